import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { canonicalize } from '../canonical/index.ts';
import { keyIdOf } from '../writs/index.ts';
import {
  bodyOf,
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_V1,
  type Checkpoint,
  checkpointHash,
  checkpointProblem,
  headLeaf,
  MerkleBuilder,
  merkleRoot,
  type RunHead,
  rootBytes,
  signCheckpoint,
  spkiBase64,
} from './index.ts';

const digest = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => `sha256:${Buffer.from(b).toString('hex')}`);
const head = fc.record({ runId: digest, seq: fc.nat({ max: 10_000 }), hash: digest });

/** The definition, written again: pair each level left to right, an odd last node going up unchanged. */
function reference(heads: readonly RunHead[]): string {
  const sha = (...b: Buffer[]) => b.reduce((h, x) => h.update(x), createHash('sha256')).digest();
  const leaves = heads.map((h) =>
    sha(Buffer.from(canonicalize({ hash: h.hash, runId: h.runId, seq: h.seq }))),
  );
  if (leaves.length === 0) return `sha256:${sha().toString('hex')}`;
  let level = leaves;
  while (level.length > 1)
    level = Array.from({ length: Math.ceil(level.length / 2) }, (_, i) =>
      level[2 * i + 1] ? sha(level[2 * i]!, level[2 * i + 1]!) : level[2 * i]!,
    );
  return `sha256:${level[0]!.toString('hex')}`;
}

test('the Merkle root is the definition, and changes with any head, its order or its count', () => {
  fc.assert(
    fc.property(fc.array(head, { maxLength: 40 }), fc.nat(), (heads, k) => {
      const root = merkleRoot(heads);
      assert.equal(root, reference(heads));
      const streamed = new MerkleBuilder();
      for (const h of heads) streamed.add(h);
      assert.equal(streamed.root(), root);
      if (heads.length === 0) return;
      const i = k % heads.length;
      const changed = heads.map((h, j) => (j === i ? { ...h, seq: h.seq + 1 } : h));
      assert.notEqual(merkleRoot(changed), root);
      assert.notEqual(merkleRoot(heads.slice(0, -1)), root);
      if (heads.length > 1 && canonicalize(heads[0]) !== canonicalize(heads[1]))
        assert.notEqual(merkleRoot([heads[1]!, heads[0]!, ...heads.slice(2)]), root);
    }),
    { numRuns: 300 },
  );
  assert.equal(merkleRoot([]), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  const one = { runId: 'sha256:00', seq: 0, hash: 'sha256:11' };
  assert.equal(merkleRoot([one]), `sha256:${headLeaf(one).toString('hex')}`);
});

test('a signed checkpoint verifies under its key, and any change to it does not', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const other = generateKeyPairSync('ed25519').publicKey;
  const c = signCheckpoint(
    {
      tenant: 'acme',
      seq: 1,
      at: '2026-12-01T00:00:00.000Z',
      runs: 2,
      root: merkleRoot([]),
      prevHash: null,
      treeSize: 2,
      logRoot: `sha256:${'2'.repeat(64)}`,
    },
    privateKey,
    publicKey,
  );
  assert.equal(checkpointProblem(c, publicKey), undefined);
  assert.match(checkpointProblem(c, other) ?? '', /names key/);
  const edits: Partial<Checkpoint>[] = [
    { runs: 3 },
    { seq: 2 },
    { root: `sha256:${'0'.repeat(64)}` },
    { tenant: 'globex' },
    { at: '2026-12-01T00:00:01.000Z' },
    { prevHash: `sha256:${'1'.repeat(64)}` },
    // A character in the middle: the last one's low bits may be padding, which decoders ignore.
    {
      signature: `${c.signature.slice(0, 10)}${c.signature[10] === 'A' ? 'B' : 'A'}${c.signature.slice(11)}`,
    },
    { treeSize: 3 },
    { logRoot: `sha256:${'3'.repeat(64)}` },
    { format: 'keel-checkpoint/1' },
  ];
  for (const e of edits) {
    const x = { ...c, ...e };
    assert.ok(checkpointProblem(x, publicKey), JSON.stringify(e));
    // Even with its hash recomputed, the signature does not cover the edit.
    const rehashed = { ...x, hash: signCheckpointHashOf(x) };
    assert.ok(checkpointProblem(rehashed, publicKey), `rehashed ${JSON.stringify(e)}`);
  }
});

const signCheckpointHashOf = (c: Checkpoint) => checkpointHash(bodyOf(c), c.signature);

test('the root signature is Ed25519 over the 32 bytes of the root, as OpenWOP verifies it', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const root = merkleRoot([{ runId: 'r', seq: 3, hash: `sha256:${'a'.repeat(64)}` }]);
  const c = signCheckpoint(
    {
      tenant: 'acme',
      seq: 1,
      at: '2026-12-01T00:00:00.000Z',
      runs: 1,
      root,
      prevHash: null,
      treeSize: 1,
      logRoot: root,
    },
    privateKey,
    publicKey,
  );
  const bytes = rootBytes(c.root);
  assert.equal(bytes.length, 32);
  assert.equal(verify(null, bytes, publicKey, Buffer.from(c.rootSignature!, 'base64')), true);
  assert.match(c.rootSignature!, /^[A-Za-z0-9+/]{86}==$/, 'base64, padded');
  // Not over the hex text, nor the canonical body.
  assert.equal(
    verify(null, Buffer.from(c.root.slice(7), 'ascii'), publicKey, Buffer.from(c.rootSignature!, 'base64')),
    false,
  );
  const forged = { ...c, rootSignature: sign(null, Buffer.from('x'), privateKey).toString('base64') };
  assert.match(checkpointProblem(forged, publicKey) ?? '', /over the root/);
  // A checkpoint made before root signatures existed still verifies by its body signature.
  const { rootSignature: _, ...older } = c;
  assert.equal(checkpointProblem(older, publicKey), undefined);
});

test('a keel-checkpoint/1 (a root, no head log) still verifies; a /2 without its log does not', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const body = bodyOf({
    format: CHECKPOINT_FORMAT_V1,
    tenant: 'acme',
    seq: 1,
    at: '2026-12-01T00:00:00.000Z',
    runs: 0,
    root: merkleRoot([]),
    prevHash: null,
    keyId: keyIdOf(publicKey),
  });
  assert.deepEqual(Object.keys(body).sort(), [
    'at',
    'format',
    'keyId',
    'prevHash',
    'root',
    'runs',
    'seq',
    'tenant',
  ]);
  const signature = sign(null, Buffer.from(canonicalize(body)), privateKey).toString('base64url');
  const v1: Checkpoint = {
    ...body,
    signature,
    publicKey: spkiBase64(publicKey),
    hash: checkpointHash(body, signature),
  };
  assert.equal(checkpointProblem(v1, publicKey), undefined);
  // Calling it /2 changes the body (and so the signature); with its hash recomputed, its log is missing.
  const relabelled = { ...v1, format: CHECKPOINT_FORMAT } as Checkpoint;
  assert.match(checkpointProblem(relabelled, publicKey) ?? '', /treeSize or logRoot/);
});
