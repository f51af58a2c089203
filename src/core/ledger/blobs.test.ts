import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalize, digestBytes, hashOf } from '../canonical/index.ts';
import { BLOB_THRESHOLD, blobRefs, externalize } from './blobs.ts';
import { chainEntry, decodeEntry, decodePayload, entryHash, type Head, type StoredEntry } from './entry.ts';
import { verifyLedger } from './verify-ledger.ts';

const RUN = hashOf({ kind: 'keel.run', n: 7 });
const ANSWER = `The customer wrote: ${'the box arrived crushed, ünïcode 📦 "quoted" '.repeat(2400)}`; // ~110 KiB
const AT = '2026-03-01T12:00:00.000Z';

function started(): StoredEntry {
  return chainEntry(
    RUN,
    null,
    'run.started',
    {
      tenant: 'acme',
      workflowId: 'w',
      version: 1,
      specHash: hashOf({ w: 1 }),
      status: 'LIVE',
      event: { id: 'e', type: 't', tenant: 'acme', source: 's', subject: 'x', payload: {}, time: AT },
      engine: 'keel/0.1.0',
    },
    AT,
  ).stored;
}

function drawn(prev: StoredEntry, value: unknown): StoredEntry {
  const head: Head = { seq: prev.seq, hash: prev.hash };
  return chainEntry(RUN, head, 'source.drawn', { source: 'x-model', value } as never, AT).stored;
}

/** An entry rebuilt with another payload (and its blobs), every hash recomputed: only content differs. */
function forged(e: StoredEntry, payload: Uint8Array, blobs = e.blobs): StoredEntry {
  const payloadHash = digestBytes(payload);
  const env = {
    v: e.v,
    runId: e.runId,
    seq: e.seq,
    kind: e.kind,
    prevHash: e.prevHash,
    payloadHash,
    at: e.at,
  };
  return { ...env, hash: entryHash(env), payload, ...(blobs ? { blobs } : {}) };
}

describe('blobs', () => {
  it('stores a large string once, by the hash of its canonical bytes, and decodes the payload whole', () => {
    const root = started();
    const e = drawn(root, { answer: ANSWER, again: ANSWER, short: 'ok' });
    assert.equal(e.v, 2);
    assert.equal(e.blobs?.length, 1, 'the same string twice is one blob');
    const blob = e.blobs![0]!;
    assert.equal(Buffer.from(blob.bytes).toString('utf8'), canonicalize(ANSWER));
    assert.equal(blob.hash, digestBytes(blob.bytes));
    assert.ok(e.payload.length < 400, `the entry holds references only (${e.payload.length} bytes)`);
    assert.deepEqual(blobRefs(e.payload), [blob.hash]);
    assert.deepEqual(decodePayload(e), {
      source: 'x-model',
      value: { answer: ANSWER, again: ANSWER, short: 'ok' },
    });
    assert.equal(verifyLedger(RUN, [root, e]).ok, true);
  });

  it('gives the same large string met again (an equal copy too) the same blob, hash and bytes', () => {
    const root = started();
    const first = drawn(root, { answer: ANSWER });
    const again = drawn(first, { echo: JSON.parse(JSON.stringify(ANSWER)) as string });
    const blob = first.blobs![0]!;
    assert.equal(again.blobs?.length, 1);
    assert.equal(again.blobs![0]!.hash, blob.hash);
    assert.deepEqual(Buffer.from(again.blobs![0]!.bytes), Buffer.from(canonicalize(ANSWER), 'utf8'));
    assert.equal(blob.hash, digestBytes(canonicalize(ANSWER)));
    assert.equal(verifyLedger(RUN, [root, first, again]).ok, true);
  });

  it('keeps every payload without a large string in format v1, byte for byte as before', () => {
    const root = started();
    const value = {
      text: 'x'.repeat(BLOB_THRESHOLD - 2),
      many: Array.from({ length: 400 }, (_, i) => `item ${i}`),
    };
    const e = drawn(root, value);
    assert.equal(e.v, 1);
    assert.equal(e.blobs, undefined);
    assert.equal(Buffer.from(e.payload).toString('utf8'), canonicalize({ source: 'x-model', value }));
    // One byte more and the string is a blob.
    assert.equal(drawn(root, { text: 'x'.repeat(BLOB_THRESHOLD - 1) }).v, 2);
  });

  it('escapes keys starting with $, so a value shaped like a reference stays a value', () => {
    const root = started();
    const trick = {
      $blob: hashOf('nothing'),
      $$x: 1,
      doc: ANSWER,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    };
    const e = drawn(root, trick);
    assert.equal(e.v, 2);
    assert.equal(e.blobs?.length, 1);
    assert.deepEqual(decodePayload(e), { source: 'x-model', value: trick });
    assert.equal(verifyLedger(RUN, [root, e]).ok, true);
    // Without a large string the same object is a v1 payload, untouched.
    const small = drawn(root, { $blob: hashOf('nothing') });
    assert.equal(small.v, 1);
    assert.deepEqual(decodeEntry(small).payload, { source: 'x-model', value: { $blob: hashOf('nothing') } });
  });

  it('names a missing blob and an altered blob, at the seq', () => {
    const root = started();
    const e = drawn(root, { answer: ANSWER });
    const missing = verifyLedger(RUN, [root, { ...e, blobs: [] }]);
    assert.equal(missing.ok, false);
    assert.equal(!missing.ok && missing.failure.code, 'blob_missing');
    assert.equal(!missing.ok && missing.failure.seq, 1);
    const flipped = Buffer.from(e.blobs![0]!.bytes);
    flipped[100] = flipped[100]! ^ 1;
    const altered = verifyLedger(RUN, [root, { ...e, blobs: [{ hash: e.blobs![0]!.hash, bytes: flipped }] }]);
    assert.equal(!altered.ok && altered.failure.code, 'blob_mismatch');
    assert.throws(() => decodePayload({ ...e, blobs: [] }), /missing/);
  });

  it('refuses any stored form but the writer’s: a small string moved out, or an unescaped key', () => {
    const root = started();
    const small = JSON.stringify('short');
    const bytes = Buffer.from(small, 'utf8');
    const hash = digestBytes(bytes);
    const e = drawn(root, { answer: ANSWER });
    const movedOut = forged(e, Buffer.from(canonicalize({ source: 'x-model', value: { $blob: hash } })), [
      { hash, bytes },
    ]);
    const r1 = verifyLedger(RUN, [root, movedOut]);
    assert.equal(!r1.ok && r1.failure.code, 'not_canonical');
    const stored = JSON.parse(Buffer.from(e.payload).toString('utf8'));
    stored.value.$odd = 1;
    const r2 = verifyLedger(RUN, [root, forged(e, Buffer.from(canonicalize(stored)))]);
    assert.equal(!r2.ok && r2.failure.code, 'not_canonical');
  });

  it('property: any payload round-trips through its stored form and verifies', () => {
    const big = fc.string({ minLength: 0, maxLength: 8 }).map((s) => s + 'é'.repeat(BLOB_THRESHOLD));
    const key = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.string({ maxLength: 5 }).map((s) => `$${s}`),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 10 }),
        big,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    const root = started();
    fc.assert(
      fc.property(json, (value) => {
        const e = drawn(root, value);
        const payload = { source: 'x-model', value };
        assert.equal(canonicalize(decodePayload(e)), canonicalize(payload));
        assert.equal(e.v === 2, externalize(payload) !== undefined);
        assert.equal(verifyLedger(RUN, [root, e]).ok, true);
      }),
      { numRuns: 150 },
    );
  });
});
