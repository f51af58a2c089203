/**
 * `keel verify` against a ledger tampered with directly in the SQLite file. Each case changes one
 * thing in a completed run's stored entries, runs `keel verify` in a new process, checks it fails
 * with exit 5 naming the right seq and code, then restores the row(s) so the next case starts
 * from an intact ledger (the file ends by verifying the restored ledger again).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { canonicalize, digestBytes } from '../../src/core/canonical/index.ts';
import { type Envelope, entryHash } from '../../src/core/ledger/index.ts';
import { exampleEvent, exampleSpec, okJson, Sandbox, show } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import {
  deleteEntryRow,
  type EntryRow,
  entryRows,
  putEntryRow,
  runRow,
  setRunHead,
  withDb,
} from '../helpers/sqlite-files.ts';

interface VerifyJson {
  runId: string;
  ok: boolean;
  entries: number;
  head?: { seq: number; hash: string };
  failure?: { code: string; seq: number; message: string };
}

const sandbox = new Sandbox('tamper', { supportDesk: true });
after(() => sandbox.remove());
const store = sandbox.store();

let runId = '';
let original: EntryRow[] = [];
let last = 0;

before(async () => {
  okJson(sandbox.keel(['publish', exampleSpec('refund-under-50'), '--as', 'alice', '--json']));
  // Not a test of promotion: the version is put at AUTONOMOUS directly (a recorded fixture).
  await putAtStatus(store, 'default', 'refund-under-50', 'AUTONOMOUS');
  const emitted = okJson<{ runs: { runId: string; status: string }[] }>(
    sandbox.keel(['emit', exampleEvent('refund-30'), '--json']),
  );
  assert.equal(emitted.runs[0]?.status, 'completed');
  runId = emitted.runs[0]!.runId;
  original = entryRows(store, runId);
  last = original.length - 1;
  assert.ok(original.length >= 6, `expected a run of 6+ entries, got ${original.length}`);
});

/** Runs `keel verify --json`, expecting exit 5, and returns the failure. */
function verifyFails(): NonNullable<VerifyJson['failure']> {
  const r = sandbox.keel(['verify', runId, '--json']);
  assert.equal(r.code, 5, show(r));
  const out = JSON.parse(r.stdout) as VerifyJson;
  assert.equal(out.ok, false, show(r));
  assert.equal(out.runId, runId);
  assert.ok(out.failure, show(r));
  return out.failure;
}

function verifyOk(): VerifyJson {
  const out = okJson<VerifyJson>(sandbox.keel(['verify', runId, '--json']));
  assert.equal(out.ok, true);
  return out;
}

/** Restores every entry row and the run's head as they were before tampering. */
function restore(): void {
  const rows = entryRows(store, runId);
  for (const r of rows) if (r.seq > last) deleteEntryRow(store, runId, r.seq);
  for (const row of original) putEntryRow(store, row);
  const head = original[last]!;
  setRunHead(store, runId, { seq: head.seq, hash: head.hash });
}

function row(seq: number): EntryRow {
  const r = original[seq];
  assert.ok(r, `no entry at seq ${seq}`);
  return { ...r, payload: Buffer.from(r.payload) };
}

function flipPayloadByte(seq: number): void {
  const r = row(seq);
  const i = Math.floor(r.payload.length / 2);
  r.payload[i] = r.payload[i]! ^ 0x01;
  putEntryRow(store, r);
}

/** Rewrites an entry's payload and re-hashes it consistently, as a careful forger would. */
function forge(seq: number, edit: (payload: Record<string, unknown>) => unknown): EntryRow {
  const r = row(seq);
  const payload = Buffer.from(canonicalize(edit(JSON.parse(r.payload.toString('utf8')))), 'utf8');
  const envelope: Envelope = {
    v: r.v,
    runId: r.run_id,
    seq: r.seq,
    kind: r.kind as Envelope['kind'],
    prevHash: r.prev_hash as Envelope['prevHash'],
    payloadHash: digestBytes(payload),
    at: r.at,
  };
  const forged = { ...r, payload, payload_hash: envelope.payloadHash, hash: entryHash(envelope) };
  putEntryRow(store, forged);
  return forged;
}

const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

describe('keel verify on a tampered ledger', () => {
  test('the untouched run verifies (exit 0)', () => {
    const v = verifyOk();
    assert.equal(v.entries, original.length);
    assert.deepEqual(v.head, { seq: last, hash: original[last]!.hash });
  });

  for (const which of ['first', 'second', 'middle', 'last'] as const) {
    test(`one flipped payload byte in the ${which} entry names its seq (hash_mismatch)`, () => {
      const seq = { first: 0, second: 1, middle: Math.floor(last / 2), last }[which];
      try {
        flipPayloadByte(seq);
        const f = verifyFails();
        assert.deepEqual({ code: f.code, seq: f.seq }, { code: 'hash_mismatch', seq });
        assert.match(f.message, new RegExp(`entry ${seq}\\b`));
      } finally {
        restore();
      }
    });
  }

  test('a changed `at` names its seq', () => {
    try {
      putEntryRow(store, { ...row(3), at: '2020-01-01T00:00:00.000Z' });
      assert.deepEqual(pick(verifyFails()), { code: 'hash_mismatch', seq: 3 });
    } finally {
      restore();
    }
  });

  test('a changed `kind` names its seq', () => {
    try {
      const r = row(2);
      assert.equal(r.kind, 'step.completed');
      putEntryRow(store, { ...r, kind: 'step.allowed' });
      assert.deepEqual(pick(verifyFails()), { code: 'hash_mismatch', seq: 2 });
    } finally {
      restore();
    }
  });

  test('a changed `hash` names its seq, in the middle and at the end', () => {
    for (const seq of [2, last]) {
      try {
        putEntryRow(store, { ...row(seq), hash: ZERO_HASH });
        assert.deepEqual(pick(verifyFails()), { code: 'hash_mismatch', seq });
      } finally {
        restore();
      }
    }
  });

  test('a changed `prev_hash` names its seq (parent_mismatch; bad_genesis on the root)', () => {
    try {
      putEntryRow(store, { ...row(4), prev_hash: original[2]!.hash });
      assert.deepEqual(pick(verifyFails()), { code: 'parent_mismatch', seq: 4 });
    } finally {
      restore();
    }
    try {
      putEntryRow(store, { ...row(0), prev_hash: ZERO_HASH });
      assert.deepEqual(pick(verifyFails()), { code: 'bad_genesis', seq: 0 });
    } finally {
      restore();
    }
  });

  test('a deleted middle entry names the gap (seq_gap), in text too', () => {
    try {
      deleteEntryRow(store, runId, 3);
      const f = verifyFails();
      assert.deepEqual(pick(f), { code: 'seq_gap', seq: 3 });
      assert.match(f.message, /expected seq 3, found 4/);
      const text = sandbox.keel(['verify', runId]);
      assert.equal(text.code, 5, show(text));
      assert.match(text.stdout, /FAILED .*: seq 3: seq_gap/);
    } finally {
      restore();
    }
  });

  test('a deleted root entry names seq 0', () => {
    try {
      deleteEntryRow(store, runId, 0);
      assert.deepEqual(pick(verifyFails()), { code: 'seq_gap', seq: 0 });
    } finally {
      restore();
    }
  });

  test('a deleted last entry is caught (head_mismatch at that seq)', () => {
    try {
      deleteEntryRow(store, runId, last);
      const f = verifyFails();
      assert.deepEqual(pick(f), { code: 'head_mismatch', seq: last });
      assert.match(f.message, new RegExp(`head is seq ${last}`));
    } finally {
      restore();
    }
  });

  test('a consistently re-hashed middle entry breaks the next link (parent_mismatch)', () => {
    try {
      assert.equal(row(4).kind, 'step.completed');
      forge(4, (p) => ({ ...p, output: { refund_id: 'rf_forged', ticket_id: 'T-1001', amount_usd: 3000 } }));
      assert.deepEqual(pick(verifyFails()), { code: 'parent_mismatch', seq: 5 });
    } finally {
      restore();
    }
  });

  test("a consistently re-hashed last entry no longer matches the run's head (head_mismatch)", () => {
    try {
      assert.equal(row(last).kind, 'run.finished');
      forge(last, (p) => ({ ...p, reason: 'nothing to see' }));
      assert.deepEqual(pick(verifyFails()), { code: 'head_mismatch', seq: last });
    } finally {
      restore();
    }
  });

  test('a re-hashed payload that does not fit its kind is caught (kind_payload_mismatch)', () => {
    try {
      const forged = forge(last, (p) => ({ ...p, status: 42 }));
      setRunHead(store, runId, { seq: last, hash: forged.hash });
      assert.deepEqual(pick(verifyFails()), { code: 'kind_payload_mismatch', seq: last });
    } finally {
      restore();
    }
  });

  test('after restoring, the ledger verifies again and the run row is intact', () => {
    const v = verifyOk();
    assert.equal(v.entries, original.length);
    assert.equal(runRow(store, runId)?.head_hash, original[last]!.hash);
    assert.equal(
      withDb(store, (db) => (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n),
      original.length,
    );
  });
});

function pick(f: { code: string; seq: number }): { code: string; seq: number } {
  return { code: f.code, seq: f.seq };
}
