import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type Digest, digestBytes, hashOf } from '../canonical/index.ts';
import { chainEntry, decodePayload, type Envelope, entryHash, type Head, type StoredEntry } from './entry.ts';
import type { EntryKind, PayloadOf } from './entry-kinds.ts';
import type { EventRecord } from './run-entries.ts';
import { LedgerVerifier, type VerifyFailureCode, type VerifyResult, verifyLedger } from './verify-ledger.ts';

const RUN = hashOf({ kind: 'keel.run', tenant: 'acme', n: 1 });
const OTHER_RUN = hashOf({ kind: 'keel.run', tenant: 'acme', n: 2 });
const P_LOOKUP = hashOf({ kind: 'keel.proposal', step: 'lookup' });
const P_REFUND = hashOf({ kind: 'keel.proposal', step: 'refund' });

const EVENT: EventRecord = {
  id: 'evt_1042',
  type: 'refund.requested',
  tenant: 'acme',
  source: 'support-desk',
  subject: 'order-1042',
  payload: { amount_usd: 42.5, reason: 'damaged', note: 'Zoë says the box arrived crushed 📦' },
  time: '2026-03-01T11:59:58Z',
};

function at(seq: number): string {
  return `2026-03-01T12:00:${String(seq).padStart(2, '0')}.000Z`;
}

/** Appends entries to one run's chain with `chainEntry`, as the engine does. */
class ChainBuilder {
  readonly stored: StoredEntry[] = [];
  private head: Head | null;

  constructor(
    readonly runId: string = RUN,
    head: Head | null = null,
  ) {
    this.head = head;
  }

  add<K extends EntryKind>(kind: K, payload: PayloadOf<K>): this {
    const { stored } = chainEntry(
      this.runId,
      this.head,
      kind,
      payload,
      at(this.head === null ? 0 : this.head.seq + 1),
    );
    this.stored.push(stored);
    this.head = { seq: stored.seq, hash: stored.hash };
    return this;
  }

  started(): this {
    return this.add('run.started', {
      tenant: 'acme',
      workflowId: 'refund-under-50',
      version: 3,
      specHash: hashOf({ id: 'refund-under-50', version: 3 }),
      status: 'LIVE',
      event: EVENT,
      engine: 'keel/0.1.0',
    });
  }
}

/** A completed refund run that exercises most kinds: 10 entries, seq 0..9. */
function refundRun(runId: string = RUN): StoredEntry[] {
  return new ChainBuilder(runId)
    .started()
    .add('source.drawn', { source: 'clock', value: '2026-03-01T12:00:01.000Z' })
    .add('step.allowed', {
      step: 'lookup',
      tool: 'get_order',
      proposalId: P_LOOKUP,
      args: { order_id: 'order-1042' },
      idempotencyKey: hashOf({ kind: 'keel.idempotency', step: 'lookup', attempt: 1 }),
      attempt: 1,
      costCents: 0,
    })
    .add('step.completed', {
      step: 'lookup',
      tool: 'get_order',
      proposalId: P_LOOKUP,
      output: { total_usd: 42.5, customer: 'Zoë Ångström', items: [{ sku: 'MUG-01', qty: 2 }] },
      costCents: 0,
    })
    .add('approval.requested', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      args: { order_id: 'order-1042', amount_usd: 42.5 },
      costCents: 4250,
      reason: 'issue_refund is destructive and this version is LIVE, not AUTONOMOUS',
      channel: 'cli',
    })
    .add('approval.resolved', {
      proposalId: P_REFUND,
      decision: 'approved',
      by: 'dana@acme.test',
      note: 'photos attached',
    })
    .add('step.allowed', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      args: { order_id: 'order-1042', amount_usd: 42.5 },
      idempotencyKey: hashOf({ kind: 'keel.idempotency', step: 'refund', attempt: 1 }),
      attempt: 1,
      costCents: 4250,
      approvedBy: 'dana@acme.test',
    })
    .add('step.completed', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      output: { refund_id: 're_9', status: 'succeeded' },
      costCents: 4250,
    })
    .add('source.drawn', { source: 'id', name: 'receipt', value: 'rcpt_01J' })
    .add('run.finished', {
      status: 'completed',
      outputs: { lookup: { total_usd: 42.5 }, refund: { refund_id: 're_9', status: 'succeeded' } },
    }).stored;
}

function refusedRun(): StoredEntry[] {
  return new ChainBuilder()
    .started()
    .add('step.refused', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      check: 'spend_cap',
      code: 'spend_cap_exceeded',
      message: 'amount_usd 500 exceeds the spend cap of 50',
    })
    .add('run.finished', {
      status: 'refused',
      outputs: {},
      reason: 'issue_refund: amount_usd 500 exceeds the spend cap of 50',
    }).stored;
}

function failedRun(): StoredEntry[] {
  return new ChainBuilder()
    .started()
    .add('step.refused', {
      step: 'lookup',
      tool: 'get_order',
      proposalId: null,
      check: 'validate',
      code: 'invalid_arguments',
      message: 'order_id is missing',
      problems: [{ field: 'order_id', problem: 'missing', expected: 'a value', got: 'nothing' }],
    })
    .add('step.allowed', {
      step: 'lookup',
      tool: 'get_order',
      proposalId: P_LOOKUP,
      args: { order_id: 'order-1042' },
      idempotencyKey: hashOf({ kind: 'keel.idempotency', step: 'lookup', attempt: 1 }),
      attempt: 1,
      costCents: 0,
    })
    .add('step.failed', {
      step: 'lookup',
      tool: 'get_order',
      proposalId: P_LOOKUP,
      error: { code: 'ECONNRESET', message: 'orders service hung up' },
    })
    .add('run.finished', { status: 'failed', outputs: {}, reason: 'get_order: orders service hung up' })
    .stored;
}

function headOf(entries: readonly StoredEntry[]): Head {
  const last = entries.at(-1)!;
  return { seq: last.seq, hash: last.hash };
}

/** A copy of `entries` with entry `i` replaced by `patch` applied to it. */
function tamper(
  entries: readonly StoredEntry[],
  i: number,
  patch: Partial<Record<keyof StoredEntry, unknown>>,
): StoredEntry[] {
  return entries.map((e, j) => (j === i ? ({ ...e, ...patch } as StoredEntry) : e));
}

/** A stored entry built by hand, hashed consistently, for shapes chainEntry's types would not allow. */
function forged(
  envelope: Omit<Envelope, 'payloadHash' | 'kind'> & { kind: string },
  payload: Uint8Array,
): StoredEntry {
  const e = { ...envelope, payloadHash: digestBytes(payload) } as Envelope;
  return { ...e, hash: entryHash(e), payload };
}

function expectFailure(r: VerifyResult, code: VerifyFailureCode, seq: number, message?: RegExp): string {
  assert.equal(r.ok, false, 'expected verification to fail');
  if (r.ok) throw new Error('unreachable');
  assert.equal(r.failure.code, code, r.failure.message);
  assert.equal(r.failure.seq, seq, r.failure.message);
  if (message) assert.match(r.failure.message, message);
  return r.failure.message;
}

const other = (d: Digest): Digest => hashOf({ not: d });

describe('verifyLedger: valid chains', () => {
  for (const [name, build] of [
    ['a completed refund run', refundRun],
    ['a refused run', refusedRun],
    ['a failed run', failedRun],
  ] as const) {
    it(`accepts ${name} and returns its head`, () => {
      const entries = build();
      const r = verifyLedger(RUN, entries);
      assert.ok(r.ok, r.ok ? '' : r.failure.message);
      assert.equal(r.entries, entries.length);
      assert.deepEqual(r.head, headOf(entries));
      assert.deepEqual(verifyLedger(RUN, entries, headOf(entries)), r);
    });
  }

  it('accepts a ledger of just its root entry', () => {
    const entries = new ChainBuilder().started().stored;
    assert.deepEqual(verifyLedger(RUN, entries), {
      ok: true,
      entries: 1,
      head: { seq: 0, hash: entries[0]!.hash },
    });
  });

  it('accepts any chain of source.drawn entries built by chainEntry, whatever values were drawn', () => {
    const value = fc.jsonValue().filter((v) => {
      try {
        hashOf(v);
        return true;
      } catch {
        return false;
      }
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('clock', 'random', 'id', 'env'), value), { maxLength: 8 }),
        (draws) => {
          const b = new ChainBuilder().started();
          for (const [source, v] of draws) b.add('source.drawn', { source, value: v });
          const r = verifyLedger(RUN, b.stored, headOf(b.stored));
          assert.ok(r.ok, r.ok ? '' : r.failure.message);
          assert.equal(r.entries, draws.length + 1);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('verifyLedger: tampered bytes and fields', () => {
  const entries = refundRun();

  it('rejects any single byte flipped in any payload with hash_mismatch at that seq', () => {
    const flip = fc.record({
      index: fc.nat({ max: entries.length - 1 }),
      position: fc.nat(),
      mask: fc.integer({ min: 1, max: 255 }),
    });
    fc.assert(
      fc.property(flip, ({ index, position, mask }) => {
        const original = entries[index]!.payload;
        const bytes = new Uint8Array(original);
        bytes[position % bytes.length]! ^= mask;
        const r = verifyLedger(RUN, tamper(entries, index, { payload: bytes }), headOf(entries));
        expectFailure(r, 'hash_mismatch', index, /payload bytes/);
        assert.equal(r.entries, index);
        assert.deepEqual(entries[index]!.payload, original, 'the fixture itself was not modified');
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a payload flipped into invalid UTF-8 with hash_mismatch, not a decode error', () => {
    const bytes = new Uint8Array(entries[3]!.payload);
    bytes[bytes.indexOf(0xc3)] = 0xff; // the first byte of "ë" in Zoë
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    expectFailure(verifyLedger(RUN, tamper(entries, 3, { payload: bytes })), 'hash_mismatch', 3);
  });

  it('rejects a changed `at` with hash_mismatch at that seq', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 5, { at: '2026-03-01T12:00:04.999Z' })),
      'hash_mismatch',
      5,
      /envelope/,
    );
  });

  it('rejects a changed `kind` with hash_mismatch when the new kind also fits the payload', () => {
    // step.completed -> step.failed would be caught by the hash before the payload shape is looked at
    expectFailure(verifyLedger(RUN, tamper(entries, 7, { kind: 'step.failed' })), 'hash_mismatch', 7);
    expectFailure(verifyLedger(RUN, tamper(entries, 1, { kind: 'step.completed' })), 'hash_mismatch', 1);
  });

  it('rejects a `kind` changed to run.started after seq 0 as bad_genesis', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 4, { kind: 'run.started' })),
      'bad_genesis',
      4,
      /only seq 0 may be a root/,
    );
  });

  it('rejects a `runId` changed on one entry as run_mismatch, naming the other run', () => {
    const msg = expectFailure(verifyLedger(RUN, tamper(entries, 6, { runId: OTHER_RUN })), 'run_mismatch', 6);
    assert.ok(msg.includes(OTHER_RUN));
  });

  it('rejects every runId rewritten to another run with hash_mismatch at seq 0 when verified as that run', () => {
    const moved = entries.map((e) => ({ ...e, runId: OTHER_RUN }));
    expectFailure(verifyLedger(OTHER_RUN, moved), 'hash_mismatch', 0);
  });

  it('rejects a `seq` moved forward as seq_gap at the seq it expected', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 3, { seq: 7 })),
      'seq_gap',
      3,
      /expected seq 3, found 7: entries 3\.\.6 are missing/,
    );
  });

  it('rejects a repeated `seq` as seq_gap with a message about repetition, not a backwards range', () => {
    const msg = expectFailure(
      verifyLedger(RUN, tamper(entries, 3, { seq: 2 })),
      'seq_gap',
      3,
      /expected seq 3, found 2/,
    );
    assert.match(msg, /repeated or out of order/);
    assert.doesNotMatch(msg, /3\.\.1/);
  });

  it('rejects a changed `prevHash` as parent_mismatch at that seq', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 4, { prevHash: other(entries[3]!.hash) })),
      'parent_mismatch',
      4,
    );
    expectFailure(verifyLedger(RUN, tamper(entries, 4, { prevHash: null })), 'parent_mismatch', 4);
    expectFailure(
      verifyLedger(RUN, tamper(entries, 4, { prevHash: entries[2]!.hash })),
      'parent_mismatch',
      4,
      /names parent/,
    );
  });

  it('rejects a changed `payloadHash` as hash_mismatch at that seq', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 2, { payloadHash: other(entries[2]!.payloadHash) })),
      'hash_mismatch',
      2,
    );
  });

  it('rejects a changed stored `hash` as hash_mismatch at that seq, not at its successor', () => {
    expectFailure(
      verifyLedger(RUN, tamper(entries, 2, { hash: other(entries[2]!.hash) })),
      'hash_mismatch',
      2,
      /stored hash/,
    );
    const last = entries.length - 1;
    expectFailure(
      verifyLedger(RUN, tamper(entries, last, { hash: other(entries[last]!.hash) })),
      'hash_mismatch',
      last,
    );
  });

  it('rejects any envelope field of any entry changed to another value, failing at that entry', () => {
    const field = fc.constantFrom('at', 'kind', 'runId', 'seq', 'prevHash', 'payloadHash', 'hash', 'v');
    fc.assert(
      fc.property(
        fc.nat({ max: entries.length - 1 }),
        field,
        fc.string({ minLength: 1 }),
        (index, name, noise) => {
          const e = entries[index]!;
          const replacement: Record<string, unknown> = {
            at: `${e.at}${noise}`,
            kind: e.kind === 'step.failed' ? 'step.completed' : 'step.failed',
            runId: OTHER_RUN,
            seq: e.seq + 1 + noise.length,
            prevHash: other(e.prevHash ?? e.hash),
            payloadHash: other(e.payloadHash),
            hash: other(e.hash),
            v: 2,
          };
          const r = verifyLedger(RUN, tamper(entries, index, { [name]: replacement[name] }));
          assert.equal(r.ok, false);
          if (!r.ok)
            assert.equal(r.failure.seq, index, `${name} at ${index}: ${r.failure.code} ${r.failure.message}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects an edited entry whose own hashes were recomputed by its successor’s parent link', () => {
    const prev = entries[6]!;
    const { stored } = chainEntry(
      RUN,
      { seq: prev.seq, hash: prev.hash },
      'step.completed',
      {
        step: 'refund',
        tool: 'issue_refund',
        proposalId: P_REFUND,
        output: { refund_id: 're_9', status: 'succeeded' },
        costCents: 425000,
      },
      entries[7]!.at,
    );
    expectFailure(verifyLedger(RUN, tamper(entries, 7, stored)), 'parent_mismatch', 8);
  });

  it('rejects a re-hashed last entry only through the expected head (head_mismatch at that seq)', () => {
    const last = entries.length - 1;
    const prev = entries[last - 1]!;
    const { stored } = chainEntry(
      RUN,
      { seq: prev.seq, hash: prev.hash },
      'run.finished',
      { status: 'completed', outputs: {} },
      entries[last]!.at,
    );
    const edited = tamper(entries, last, stored);
    assert.ok(verifyLedger(RUN, edited).ok, 'without a recorded head the chain alone cannot tell');
    expectFailure(verifyLedger(RUN, edited, headOf(entries)), 'head_mismatch', last, /last entry is seq 9/);
  });
});

describe('verifyLedger: missing and reordered entries', () => {
  const entries = refundRun();

  it('rejects a deleted middle entry as seq_gap naming the missing seq', () => {
    const gapped = entries.filter((e) => e.seq !== 4);
    expectFailure(
      verifyLedger(RUN, gapped),
      'seq_gap',
      4,
      /expected seq 4, found 5: entries 4\.\.4 are missing/,
    );
  });

  it('rejects a ledger whose root was deleted as seq_gap at seq 0', () => {
    expectFailure(verifyLedger(RUN, entries.slice(1)), 'seq_gap', 0);
  });

  it('rejects two swapped entries as seq_gap at the first one', () => {
    const swapped = [...entries];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    expectFailure(verifyLedger(RUN, swapped), 'seq_gap', 3);
  });

  it('rejects a deletion with seqs and prevHashes rewritten but hashes left alone as hash_mismatch at the first rewritten seq', () => {
    const kept = entries.filter((e) => e.seq !== 4);
    const rewritten: StoredEntry[] = [];
    for (const [i, e] of kept.entries()) {
      rewritten.push(i < 4 ? e : { ...e, seq: i, prevHash: rewritten[i - 1]!.hash });
    }
    expectFailure(verifyLedger(RUN, rewritten), 'hash_mismatch', 4, /envelope of entry 4/);
  });

  it('verifies a deletion re-chained consistently, but reports head_mismatch against the run’s recorded head', () => {
    const kept = entries.filter((e) => e.seq !== 4);
    const b = new ChainBuilder();
    for (const e of kept) b.add(e.kind, decodePayload(e) as never);
    const rechained = b.stored;
    assert.equal(rechained.length, entries.length - 1);
    assert.ok(verifyLedger(RUN, rechained).ok, 'a consistently rewritten chain is a valid chain on its own');
    // From the deleted seq on every hash differs, because each entry's hash covers its seq and parent.
    assert.equal(rechained[3]!.hash, entries[3]!.hash);
    assert.notEqual(rechained[4]!.hash, entries[5]!.hash);
    const last = entries.length - 1;
    expectFailure(
      verifyLedger(RUN, rechained, headOf(entries)),
      'head_mismatch',
      last,
      new RegExp(`head is seq ${last}`),
    );
  });

  it('rejects a truncated tail as head_mismatch at the first missing seq when the expected head is given', () => {
    const truncated = entries.slice(0, -2);
    const r = verifyLedger(RUN, truncated, headOf(entries));
    expectFailure(r, 'head_mismatch', 8, /ledger ends at seq 7: entries 8\.\.9 are missing/);
    assert.equal(r.entries, 8);
    // Without the recorded head a truncated ledger is indistinguishable from a shorter run.
    assert.deepEqual(verifyLedger(RUN, truncated), { ok: true, entries: 8, head: headOf(truncated) });
  });

  it('rejects an expected head with the right seq but another hash as head_mismatch at that seq', () => {
    const head = headOf(entries);
    expectFailure(
      verifyLedger(RUN, entries, { seq: head.seq, hash: other(head.hash) }),
      'head_mismatch',
      head.seq,
    );
  });

  it('rejects entries appended beyond the recorded head as head_mismatch', () => {
    expectFailure(verifyLedger(RUN, entries, headOf(entries.slice(0, 5))), 'head_mismatch', 4);
  });
});

describe('verifyLedger: genesis, kinds and runs', () => {
  it('rejects a ledger whose seq 0 is not run.started as bad_genesis', () => {
    const entries = new ChainBuilder().add('source.drawn', {
      source: 'clock',
      value: '2026-03-01T12:00:00Z',
    }).stored;
    expectFailure(verifyLedger(RUN, entries), 'bad_genesis', 0, /seq 0 is source\.drawn/);
  });

  it('rejects run.started at a seq after 0 as bad_genesis at that seq', () => {
    const b = new ChainBuilder().started().add('source.drawn', { source: 'random', value: 0.25 });
    b.started();
    expectFailure(verifyLedger(RUN, b.stored), 'bad_genesis', 2, /run\.started at seq 2/);
  });

  it('rejects a root entry that names a parent as bad_genesis', () => {
    const entries = new ChainBuilder(RUN, { seq: -1, hash: hashOf('a parent that does not exist') }).started()
      .stored;
    assert.equal(entries[0]!.seq, 0);
    expectFailure(verifyLedger(RUN, entries), 'bad_genesis', 0, /names a parent/);
  });

  it('rejects an entry format version it does not know, at that seq', () => {
    const entries = refundRun();
    const e = entries[2]!;
    const bumped = forged(
      { v: 3, runId: e.runId, seq: e.seq, kind: e.kind, prevHash: e.prevHash, at: e.at },
      e.payload,
    );
    expectFailure(
      verifyLedger(RUN, tamper(entries, 2, bumped)),
      'unsupported_version',
      2,
      /v3 is not supported/,
    );
  });

  it('rejects a payload missing a required field as kind_payload_mismatch even though every hash is valid', () => {
    const entries = new ChainBuilder().started().add('step.completed', {
      step: 'lookup',
      proposalId: P_LOOKUP,
      output: null,
      costCents: 0,
    } as unknown as PayloadOf<'step.completed'>).stored;
    expectFailure(
      verifyLedger(RUN, entries),
      'kind_payload_mismatch',
      1,
      /step\.completed at seq 1: tool is missing/,
    );
  });

  it('rejects a payload field of the wrong type as kind_payload_mismatch naming the field', () => {
    const cases: [EntryKind, unknown, RegExp][] = [
      [
        'step.allowed',
        {
          step: 's',
          tool: 't',
          proposalId: P_LOOKUP,
          args: {},
          idempotencyKey: P_LOOKUP,
          attempt: 1,
          costCents: '4250',
        },
        /costCents is not a number/,
      ],
      [
        'step.allowed',
        {
          step: 's',
          tool: 't',
          proposalId: 'sha256:abc',
          args: {},
          idempotencyKey: P_LOOKUP,
          attempt: 1,
          costCents: 0,
        },
        /proposalId is not a sha256 digest/,
      ],
      [
        'step.allowed',
        {
          step: 's',
          tool: 't',
          proposalId: P_LOOKUP,
          args: [],
          idempotencyKey: P_LOOKUP,
          attempt: 1,
          costCents: 0,
        },
        /args is not a object/,
      ],
      [
        'step.refused',
        {
          step: 's',
          tool: 't',
          proposalId: null,
          check: 'validate',
          code: 'c',
          message: 'm',
          problems: 'none',
        },
        /problems is not a array/,
      ],
      [
        'approval.resolved',
        { proposalId: P_REFUND, decision: 'approved', by: 'dana', note: 7 },
        /note is not a string/,
      ],
      ['source.drawn', { source: 'clock' }, /value is missing/],
      ['run.finished', ['completed'], /payload is not an object/],
    ];
    for (const [kind, payload, message] of cases) {
      const entries = new ChainBuilder().started().add(kind, payload as never).stored;
      expectFailure(verifyLedger(RUN, entries), 'kind_payload_mismatch', 1, message);
    }
  });

  it('rejects a root whose payload is malformed as kind_payload_mismatch at seq 0', () => {
    const entries = new ChainBuilder().add('run.started', {
      tenant: 'acme',
      workflowId: 'w',
      version: 1,
      specHash: 'abc',
    } as never).stored;
    expectFailure(verifyLedger(RUN, entries), 'kind_payload_mismatch', 0, /specHash is not a sha256 digest/);
  });

  it('rejects an unknown kind as kind_payload_mismatch naming the kind', () => {
    const entries = refundRun().slice(0, 3);
    const prev = entries[2]!;
    const bytes = new TextEncoder().encode('{"to":"mars"}');
    entries.push(
      forged({ v: 1, runId: RUN, seq: 3, kind: 'step.teleported', prevHash: prev.hash, at: at(3) }, bytes),
    );
    expectFailure(
      verifyLedger(RUN, entries),
      'kind_payload_mismatch',
      3,
      /unknown entry kind "step\.teleported"/,
    );
  });

  it('rejects payload bytes that hash correctly but are not JSON as kind_payload_mismatch', () => {
    const entries = refundRun().slice(0, 2);
    const prev = entries[1]!;
    const bytes = new TextEncoder().encode('{"source":"clock",');
    entries.push(
      forged({ v: 1, runId: RUN, seq: 2, kind: 'source.drawn', prevHash: prev.hash, at: at(2) }, bytes),
    );
    expectFailure(verifyLedger(RUN, entries), 'kind_payload_mismatch', 2, /not UTF-8 JSON/);
  });

  it('rejects payload bytes that hash correctly but are not canonical (spaces, key order, invalid UTF-8)', () => {
    const entries = refundRun().slice(0, 2);
    const prev = entries[1]!;
    for (const bytes of [
      new TextEncoder().encode('{"source": "clock","value":"x"}'),
      new TextEncoder().encode('{"value":"x","source":"clock"}'),
      Uint8Array.from([...new TextEncoder().encode('{"source":"clock","value":"'), 0xff, 0x22, 0x7d]),
    ]) {
      const forgedEntry = forged(
        { v: 1, runId: RUN, seq: 2, kind: 'source.drawn', prevHash: prev.hash, at: at(2) },
        bytes,
      );
      const r = verifyLedger(RUN, [...entries, forgedEntry]);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.failure.seq, 2);
        assert.ok(['not_canonical', 'kind_payload_mismatch'].includes(r.failure.code), r.failure.code);
      }
    }
  });

  it('rejects hash-consistent payload text holding an escaped lone surrogate or an unsafe integer', () => {
    for (const text of [
      '{"source":"clock","value":"\\ud800"}',
      '{"source":"clock","value":9007199254740993}',
    ]) {
      const entries = refundRun().slice(0, 2);
      const prev = entries[1]!;
      const bytes = new TextEncoder().encode(text);
      entries.push(
        forged({ v: 1, runId: RUN, seq: 2, kind: 'source.drawn', prevHash: prev.hash, at: at(2) }, bytes),
      );
      expectFailure(verifyLedger(RUN, entries), 'not_canonical', 2, /canonical form/);
    }
  });

  it('rejects a payload whose closed-set field holds another value', () => {
    const entries = refundRun().slice(0, 2);
    const prev = entries[1]!;
    const bytes = new TextEncoder().encode('{"outputs":{},"status":"banana"}');
    entries.push(
      forged({ v: 1, runId: RUN, seq: 2, kind: 'run.finished', prevHash: prev.hash, at: at(2) }, bytes),
    );
    expectFailure(
      verifyLedger(RUN, entries),
      'kind_payload_mismatch',
      2,
      /status is "banana", not one of completed, refused, failed/,
    );
  });

  it('rejects the ledger of another run as run_mismatch at seq 0', () => {
    expectFailure(
      verifyLedger(RUN, refundRun(OTHER_RUN)),
      'run_mismatch',
      0,
      new RegExp(`belongs to run ${OTHER_RUN}`),
    );
  });

  it('rejects an entry spliced in from another run as run_mismatch at its seq', () => {
    const mine = refundRun();
    const theirs = refundRun(OTHER_RUN);
    expectFailure(verifyLedger(RUN, tamper(mine, 5, theirs[5]!)), 'run_mismatch', 5);
  });

  it("rejects an empty ledger with 'empty'", () => {
    const r = verifyLedger(RUN, []);
    expectFailure(r, 'empty', 0, new RegExp(`run ${RUN} has no entries`));
    assert.equal(r.entries, 0);
  });
});

describe('LedgerVerifier', () => {
  it('verifies incrementally and ignores everything after the first failure', () => {
    const entries = refundRun();
    const v = new LedgerVerifier(RUN);
    assert.equal(v.push(entries[0]!), true);
    assert.equal(v.push(entries[1]!), true);
    assert.equal(v.push(entries[3]!), false);
    assert.equal(v.push(entries[2]!), false, 'a later, valid entry does not clear the failure');
    const r = v.result();
    expectFailure(r, 'seq_gap', 2);
    assert.equal(r.entries, 2);
  });

  it('stops reading the entries at the first failure', () => {
    const entries = tamper(refundRun(), 2, { at: 'later' });
    let pulled = 0;
    function* stream() {
      for (const e of entries) {
        pulled++;
        yield e;
      }
    }
    expectFailure(verifyLedger(RUN, stream()), 'hash_mismatch', 2);
    assert.equal(pulled, 3);
  });
});
