/**
 * The append-only log of run heads a checkpoint signs besides its root (docs/audit.md): every
 * head a checkpoint recorded, checkpoint after checkpoint, as the leaves of an RFC 9162 Merkle
 * tree. A later checkpoint's tree extends an earlier one's, so whoever holds an older signed
 * root checks that a newer one extends it with a consistency proof (RFC 9162 §2.1.4), and a run
 * directory shows its head is in a signed tree with an inclusion proof (§2.1.3).
 *
 * leaf = SHA-256(0x00 ‖ UTF-8 of canonical `{hash, runId, seq}`); node = SHA-256(0x01 ‖ left ‖
 * right); the tree of n leaves splits at the largest power of two below n; the empty tree's hash
 * is SHA-256 of no bytes. Pure: hashes in, hashes out.
 */
import { createHash } from 'node:crypto';
import { canonicalize, type Digest } from '../canonical/index.ts';
import type { RunHead } from './merkle.ts';

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);

/** The leaf hash of a head in the log. */
export function logLeaf(h: RunHead): Buffer {
  return createHash('sha256')
    .update(LEAF)
    .update(canonicalize({ hash: h.hash, runId: h.runId, seq: h.seq }))
    .digest();
}

export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer =>
  createHash('sha256').update(NODE).update(left).update(right).digest();

const EMPTY = createHash('sha256').digest();

export const toDigest = (b: Uint8Array): Digest => `sha256:${Buffer.from(b).toString('hex')}`;

const HEX64 = /^sha256:[0-9a-f]{64}$/;
/** The 32 bytes of a `sha256:<hex>` digest, or undefined for anything else. */
export function digestBuffer(d: unknown): Buffer | undefined {
  return typeof d === 'string' && HEX64.test(d) ? Buffer.from(d.slice(7), 'hex') : undefined;
}

/** The largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The log's root computed from leaves streamed one by one, keeping only its right edge (the
 * frontier): the roots of the complete subtrees the leaves so far make, largest first. A
 * checkpoint stores its frontier, so the next one extends the tree from it without reading the
 * log again; a frontier that does not fold to its signed root is not used.
 */
export class LogBuilder {
  /** levels[k]: a complete subtree of 2^k leaves, pending its right sibling. */
  private readonly levels: (Buffer | undefined)[] = [];
  size = 0;

  /** A builder at `size` leaves with this frontier (largest subtree first, as `frontier()` gives it). */
  static from(size: number, frontier: readonly Uint8Array[]): LogBuilder | undefined {
    const b = new LogBuilder();
    const bits: number[] = [];
    for (let k = 0; 2 ** k <= size; k++) if (Math.floor(size / 2 ** k) % 2 === 1) bits.push(k);
    if (!Number.isSafeInteger(size) || size < 0 || bits.length !== frontier.length) return undefined;
    bits.reverse();
    for (const [i, k] of bits.entries()) {
      const f = frontier[i]!;
      if (f.length !== 32) return undefined;
      b.levels[k] = Buffer.from(f);
    }
    b.size = size;
    return b;
  }

  add(leaf: Uint8Array): void {
    let node: Buffer = Buffer.from(leaf);
    let k = 0;
    for (; this.levels[k]; k++) {
      node = nodeHash(this.levels[k]!, node);
      this.levels[k] = undefined;
    }
    this.levels[k] = node;
    this.size++;
  }

  /** The complete subtrees' roots, largest (leftmost) first. */
  frontier(): Buffer[] {
    const out: Buffer[] = [];
    for (let k = this.levels.length - 1; k >= 0; k--) if (this.levels[k]) out.push(this.levels[k]!);
    return out;
  }

  /** The tree's hash: the frontier folded from the right (RFC 9162's split, bottom-up). */
  root(): Buffer {
    let acc: Buffer | undefined;
    for (const node of this.levels) {
      if (!node) continue;
      acc = acc ? nodeHash(node, acc) : node;
    }
    return acc ?? EMPTY;
  }
}

/** The hash of a tree of these leaves (RFC 9162 MTH). */
export function logRoot(leaves: Iterable<Uint8Array>): Buffer {
  const b = new LogBuilder();
  for (const l of leaves) b.add(l);
  return b.root();
}

/**
 * A log held whole, every complete aligned subtree's hash kept (twice the leaves' bytes), so each
 * proof costs O(log² n) hashes: what an export builds once to prove many runs' heads.
 */
export class LogTree {
  /** levels[k]: the hashes of the complete subtrees of 2^k leaves, 32 bytes each, left to right. */
  private readonly levels: Buffer[] = [];
  readonly size: number;

  constructor(leaves: readonly Uint8Array[]) {
    this.size = leaves.length;
    const base = Buffer.alloc(32 * leaves.length);
    for (const [i, l] of leaves.entries()) base.set(l, 32 * i);
    this.levels.push(base);
    for (let below = base; below.length >= 64; ) {
      const count = Math.floor(below.length / 64);
      const up = Buffer.alloc(32 * count);
      for (let i = 0; i < count; i++)
        up.set(
          nodeHash(below.subarray(64 * i, 64 * i + 32), below.subarray(64 * i + 32, 64 * i + 64)),
          32 * i,
        );
      this.levels.push(up);
      below = up;
    }
  }

  /** MTH of leaves [from, to). */
  hash(from = 0, to = this.size): Buffer {
    const n = to - from;
    if (n === 0) return EMPTY;
    const k = Math.log2(n);
    if (Number.isInteger(k) && from % n === 0 && this.levels[k])
      return this.levels[k]!.subarray(32 * (from / n), 32 * (from / n) + 32);
    const s = split(n);
    return nodeHash(this.hash(from, from + s), this.hash(from + s, to));
  }

  /** The audit path of leaf `index` in the tree of the first `size` leaves (RFC 9162 §2.1.3.1). */
  inclusionProof(index: number, size = this.size): Buffer[] {
    if (!(index >= 0 && index < size && size <= this.size)) throw new RangeError('leaf index out of range');
    const path = (m: number, from: number, to: number): Buffer[] => {
      const n = to - from;
      if (n === 1) return [];
      const k = split(n);
      return m < k
        ? [...path(m, from, from + k), this.hash(from + k, to)]
        : [...path(m - k, from + k, to), this.hash(from, from + k)];
    };
    return path(index, 0, size);
  }

  /** The proof that the tree of the first `m` leaves is a prefix of the tree of `n` (RFC 9162 §2.1.4.1). */
  consistencyProof(m: number, n = this.size): Buffer[] {
    if (!(m >= 0 && m <= n && n <= this.size)) throw new RangeError('tree sizes out of range');
    if (m === 0 || m === n) return [];
    const sub = (m: number, from: number, to: number, whole: boolean): Buffer[] => {
      const n = to - from;
      if (m === n) return whole ? [] : [this.hash(from, to)];
      const k = split(n);
      return m <= k
        ? [...sub(m, from, from + k, whole), this.hash(from + k, to)]
        : [...sub(m - k, from + k, to, false), this.hash(from, from + k)];
    };
    return sub(m, 0, n, true);
  }
}

const lsb = (x: number) => x % 2 === 1;

/** Whether `proof` shows leaf `leaf` at `index` in the tree of `size` leaves whose hash is `root` (RFC 9162 §2.1.3.2). */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!lsb(fn))
        while (!lsb(fn) && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/**
 * Whether `proof` shows the tree of `m` leaves with hash `first` is a prefix of the tree of `n`
 * leaves with hash `second` (RFC 9162 §2.1.4.2). Equal sizes need an empty proof and equal hashes;
 * the empty tree is a prefix of every tree.
 */
export function verifyConsistency(
  m: number,
  n: number,
  first: Uint8Array,
  second: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 0 || m > n) return false;
  if (m === 0) return proof.length === 0 && Buffer.from(first).equals(EMPTY);
  if (m === n) return proof.length === 0 && Buffer.from(first).equals(second);
  if (proof.length === 0) return false;
  const path = Number.isInteger(Math.log2(m)) ? [first, ...proof] : [...proof];
  let fn = m - 1;
  let sn = n - 1;
  while (lsb(fn)) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!lsb(fn))
        while (!lsb(fn) && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(first) && sr.equals(second);
}
