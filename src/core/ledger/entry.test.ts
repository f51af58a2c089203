import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalize, type Digest, digestBytes, hashOf } from '../canonical/index.ts';
import { ErrorCode, isKeelError } from '../errors.ts';
import {
  chainEntry,
  decodeEntry,
  decodePayload,
  ENTRY_VERSION,
  type Envelope,
  entryHash,
  envelopeBytes,
} from './entry.ts';
import { type EntryKind, isEntryKind, payloadProblem } from './entry-kinds.ts';

const KINDS: readonly EntryKind[] = [
  'run.started',
  'source.drawn',
  'step.allowed',
  'step.refused',
  'approval.requested',
  'approval.resolved',
  'step.completed',
  'step.failed',
  'run.finished',
];

const digest: fc.Arbitrary<Digest> = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => `sha256:${Buffer.from(b).toString('hex')}` as Digest);

/** Strings that need escaping in JSON, mixed with arbitrary well-formed Unicode. */
const awkwardString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc
    .array(fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '/', '€', '😀', 'a'), {
      maxLength: 6,
    })
    .map((p) => p.join('')),
);

const envelope: fc.Arbitrary<Envelope> = fc.record({
  v: fc.maxSafeInteger(),
  runId: awkwardString,
  seq: fc.maxSafeInteger(),
  kind: fc.constantFrom(...KINDS),
  prevHash: fc.option(digest, { nil: null }),
  payloadHash: digest,
  at: awkwardString,
});

const RUN = hashOf({ kind: 'keel.run', n: 1 });
const AT = '2026-03-01T12:00:00.000Z';

describe('envelopeBytes', () => {
  it('equals canonicalize(envelope) for arbitrary envelopes', () => {
    fc.assert(
      fc.property(envelope, (e) => {
        assert.equal(envelopeBytes(e), canonicalize(e));
      }),
      { numRuns: 1000 },
    );
  });

  it('ignores fields beyond the envelope, such as a stored hash and payload', () => {
    fc.assert(
      fc.property(envelope, digest, (e, hash) => {
        const stored = { ...e, hash, payload: new Uint8Array([1, 2, 3]) };
        assert.equal(envelopeBytes(stored), envelopeBytes(e));
      }),
    );
  });

  it('changes the entry hash when any one envelope field changes', () => {
    fc.assert(
      fc.property(
        envelope,
        envelope,
        fc.constantFrom('v', 'runId', 'seq', 'kind', 'prevHash', 'payloadHash', 'at'),
        (a, b, field) => {
          fc.pre(a[field] !== b[field]);
          assert.notEqual(entryHash({ ...a, [field]: b[field] }), entryHash(a));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('chainEntry', () => {
  it('builds a root at seq 0 with no parent, and each next entry one seq on, naming the previous hash', () => {
    const root = chainEntry(RUN, null, 'source.drawn', { source: 'clock', value: AT }, AT);
    assert.equal(root.stored.seq, 0);
    assert.equal(root.stored.prevHash, null);
    assert.equal(root.stored.v, ENTRY_VERSION);
    const next = chainEntry(
      RUN,
      { seq: 0, hash: root.stored.hash },
      'source.drawn',
      { source: 'random', value: 0.5 },
      AT,
    );
    assert.equal(next.stored.seq, 1);
    assert.equal(next.stored.prevHash, root.stored.hash);
    assert.equal(next.entry.prevHash, root.stored.hash);
  });

  it('stores the canonical UTF-8 payload bytes and hashes the envelope over them', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.boolean()), {
          noNullPrototype: true,
        }),
        fc.nat(),
        digest,
        (value, seq, parent) => {
          const { stored, entry } = chainEntry(
            RUN,
            { seq, hash: parent },
            'source.drawn',
            { source: 'env', name: 'REGION', value },
            AT,
          );
          const text = canonicalize({ source: 'env', name: 'REGION', value });
          assert.deepEqual(Buffer.from(stored.payload), Buffer.from(new TextEncoder().encode(text)));
          assert.equal(stored.payloadHash, digestBytes(stored.payload));
          assert.equal(stored.payloadHash, hashOf({ value, name: 'REGION', source: 'env' }));
          assert.equal(stored.hash, entryHash(stored));
          assert.equal(entry.hash, stored.hash);
          assert.deepEqual(entry.payload, { source: 'env', name: 'REGION', value });
          assert.deepEqual(decodeEntry(stored), entry);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives the same entry for the same payload whatever its key order', () => {
    const a = chainEntry(
      RUN,
      null,
      'run.finished',
      { status: 'completed', outputs: { b: 2, a: 1 }, reason: 'done' },
      AT,
    );
    const b = chainEntry(
      RUN,
      null,
      'run.finished',
      { reason: 'done', outputs: { a: 1, b: 2 }, status: 'completed' },
      AT,
    );
    assert.equal(a.stored.hash, b.stored.hash);
    assert.deepEqual(a.stored.payload, b.stored.payload);
  });

  it('refuses a payload that has no canonical form, so nothing unhashable reaches the ledger', () => {
    assert.throws(
      () => chainEntry(RUN, null, 'source.drawn', { source: 'random', value: Number.NaN }, AT),
      (e: unknown) => isKeelError(e) && e.code === ErrorCode.canonicalInvalid && e.details.path === '$.value',
    );
    assert.throws(
      () =>
        chainEntry(
          RUN,
          null,
          'step.completed',
          { step: 's', tool: 't', proposalId: RUN, output: { n: 2 ** 60 }, costCents: 0 },
          AT,
        ),
      (e: unknown) => isKeelError(e) && e.details.path === '$.output.n',
    );
  });

  it('decodes stored payload bytes back to the payload, including non-ASCII text', () => {
    const payload = { source: 'x-model' as 'clock', value: { text: 'Zoë paid €42 😀', n: -1.5 } };
    const { stored } = chainEntry(RUN, null, 'source.drawn', payload, AT);
    assert.deepEqual(decodePayload(stored), payload);
  });
});

describe('entry kinds', () => {
  it('knows every kind and nothing inherited from Object.prototype', () => {
    for (const k of KINDS) assert.ok(isEntryKind(k), k);
    for (const k of [
      'toString',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'run',
      'run.Started',
      '',
      42,
      null,
    ]) {
      assert.equal(isEntryKind(k), false, String(k));
    }
  });

  it('accepts optional fields when absent and checks their type when present', () => {
    assert.equal(payloadProblem('source.drawn', { source: 'clock', value: null }), undefined);
    assert.equal(payloadProblem('source.drawn', { source: 'env', name: 'REGION', value: 'eu' }), undefined);
    assert.equal(
      payloadProblem('source.drawn', { source: 'env', name: 3, value: 'eu' }),
      'name is not a string',
    );
    assert.equal(payloadProblem('run.finished', { status: 'completed', outputs: {} }), undefined);
    assert.equal(
      payloadProblem('run.finished', { status: 'failed', outputs: {}, reason: null }),
      'reason is not a string',
    );
  });

  it('accepts a null proposalId only where the kind allows one', () => {
    const refused = {
      step: 's',
      tool: 't',
      proposalId: null,
      check: 'resolve',
      code: 'unresolved_arguments',
      message: 'm',
    };
    assert.equal(payloadProblem('step.refused', refused), undefined);
    const completed = { step: 's', tool: 't', proposalId: null, output: 1, costCents: 0 };
    assert.equal(payloadProblem('step.completed', completed), 'proposalId is not a sha256 digest');
  });

  it('accepts a model draw (x-model) and still every source an older ledger holds', () => {
    for (const source of ['clock', 'random', 'id', 'env', 'x-model']) {
      assert.equal(payloadProblem('source.drawn', { source, name: 'n', value: 'v' }), undefined, source);
    }
    assert.match(payloadProblem('source.drawn', { source: 'x-other', value: 1 }) ?? '', /not one of/);
  });

  it('names the first missing field of an empty payload for every kind', () => {
    for (const k of KINDS) {
      assert.match(payloadProblem(k, {}) ?? '', /^\w+ is missing(, not one of [\w, -]+)?$/, k);
      assert.equal(payloadProblem(k, null), 'payload is not an object', k);
      assert.equal(payloadProblem(k, 'text'), 'payload is not an object', k);
    }
  });
});
