import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { LogBuilder, LogTree, logRoot, verifyConsistency, verifyInclusion } from './merkle-log.ts';

const sha = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

/** RFC 9162 §2.1.1, written again from the text: MTH by recursion at the largest power of two below n. */
function mth(d: readonly Uint8Array[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return Buffer.from(d[0]!);
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return sha(Buffer.from([1]), mth(d.slice(0, k)), mth(d.slice(k)));
}

const leaf = fc.uint8Array({ minLength: 32, maxLength: 32 });
const log = fc.array(leaf, { minLength: 1, maxLength: 70 });

test('the log root is RFC 9162’s MTH, streamed or held whole, and a frontier goes on to the same root', () => {
  fc.assert(
    fc.property(fc.array(leaf, { maxLength: 70 }), fc.nat(), (leaves, cut) => {
      const root = mth(leaves);
      assert.ok(logRoot(leaves).equals(root));
      assert.ok(new LogTree(leaves).hash().equals(root));
      const at = leaves.length === 0 ? 0 : cut % (leaves.length + 1);
      const first = new LogBuilder();
      for (const l of leaves.slice(0, at)) first.add(l);
      const resumed = LogBuilder.from(first.size, first.frontier());
      assert.ok(resumed);
      for (const l of leaves.slice(at)) resumed.add(l);
      assert.ok(resumed.root().equals(root));
      assert.equal(resumed.size, leaves.length);
    }),
    { numRuns: 300 },
  );
  assert.equal(
    LogBuilder.from(3, [Buffer.alloc(32)]),
    undefined,
    'a frontier of the wrong length is refused',
  );
});

test('every leaf has an inclusion proof that verifies, and only for that leaf, index, size and root', () => {
  fc.assert(
    fc.property(log, fc.nat(), fc.nat(), (leaves, i, s) => {
      const tree = new LogTree(leaves);
      const size = 1 + (s % leaves.length);
      const index = i % size;
      const root = tree.hash(0, size);
      assert.ok(root.equals(mth(leaves.slice(0, size))));
      const proof = tree.inclusionProof(index, size);
      assert.equal(verifyInclusion(leaves[index]!, index, size, proof, root), true);
      const other = sha(leaves[index]!);
      assert.equal(verifyInclusion(other, index, size, proof, root), false, 'another leaf');
      if (size > 1) {
        const j = (index + 1) % size;
        if (!Buffer.from(leaves[j]!).equals(leaves[index]!))
          assert.equal(verifyInclusion(leaves[index]!, j, size, proof, root), false, 'another index');
        assert.equal(verifyInclusion(leaves[index]!, index, size, proof.slice(1), root), false, 'cut proof');
        const bent = proof.map((p, k) => (k === 0 ? sha(p) : p));
        assert.equal(verifyInclusion(leaves[index]!, index, size, bent, root), false, 'edited proof');
      }
      assert.equal(verifyInclusion(leaves[index]!, index, size, proof, sha(root)), false, 'another root');
      assert.equal(verifyInclusion(leaves[index]!, size, size, proof, root), false, 'index past the end');
    }),
    { numRuns: 400 },
  );
});

test('any prefix of the log is consistent with any extension; an edited or truncated log is not', () => {
  fc.assert(
    fc.property(log, fc.nat(), fc.nat(), fc.nat(), (leaves, a, b, e) => {
      const tree = new LogTree(leaves);
      const n = 1 + (b % leaves.length);
      const m = a % (n + 1);
      const first = tree.hash(0, m);
      const second = tree.hash(0, n);
      const proof = tree.consistencyProof(m, n);
      assert.equal(verifyConsistency(m, n, first, second, proof), true, `${m} -> ${n}`);
      if (m === 0) return;
      // A log whose first m leaves were edited (one leaf rewritten) no longer extends the old root.
      const edited = leaves.slice(0, n).map((l, k) => (k === e % m ? sha(l) : l));
      const et = new LogTree(edited);
      assert.equal(verifyConsistency(m, n, first, et.hash(), et.consistencyProof(m, n)), false, 'edited');
      // A proof for the honest log does not carry the old root to the edited log's root either.
      assert.equal(verifyConsistency(m, n, first, et.hash(), proof), false, 'edited, honest proof');
      // A log cut back below the old size cannot extend it, whatever is sent.
      if (m > 1) {
        const cut = m - 1;
        assert.equal(verifyConsistency(m, cut, first, tree.hash(0, cut), []), false, 'truncated');
        assert.equal(
          verifyConsistency(m, cut, first, tree.hash(0, cut), tree.consistencyProof(cut - 1 || 1, cut)),
          false,
          'truncated, some proof',
        );
      }
      if (m < n) {
        // Another old root (a leaf of the prefix changed) is not consistent with the honest new one.
        const other = new LogTree(edited.slice(0, m)).hash();
        assert.equal(verifyConsistency(m, n, other, second, proof), false, 'another old root');
        const bent = proof.map((p, k) => (k === proof.length - 1 ? sha(p) : p));
        assert.equal(verifyConsistency(m, n, first, second, bent), false, 'edited proof');
        assert.equal(verifyConsistency(m, n, first, second, proof.slice(0, -1)), false, 'cut proof');
      }
    }),
    { numRuns: 500 },
  );
});

test('the RFC 9162 examples’ shapes: proof lengths for the seven-leaf tree', () => {
  const leaves = Array.from({ length: 7 }, (_, i) => sha(Buffer.from([i])));
  const t = new LogTree(leaves);
  // RFC 9162 §2.1.5: the consistency proof between sizes 3 and 7 is [c, d, g, l]; 4 and 7: [l]; 6 and 7: [i, j, k].
  assert.equal(t.consistencyProof(3).length, 4);
  assert.equal(t.consistencyProof(4).length, 1);
  assert.equal(t.consistencyProof(6).length, 3);
  // §2.1.3: the audit path for d0 is [b, h, l], for d3 [c, g, l], for d4 [f, j, k], for d6 [i, k].
  assert.deepEqual(
    [0, 3, 4, 6].map((i) => t.inclusionProof(i).length),
    [3, 3, 3, 2],
  );
});
