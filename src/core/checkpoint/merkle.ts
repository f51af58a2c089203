/**
 * The Merkle root a checkpoint signs: over a tenant's run heads in creation order.
 *
 * leaf = SHA-256 of the UTF-8 of the canonical (RFC 8785) `{hash, runId, seq}` of a run's head;
 * a parent = SHA-256 of its two children's 32 bytes, left then right; an odd node at the end of a
 * level goes up unchanged; the root of no runs is SHA-256 of no bytes. Written as `sha256:<hex>`.
 * Iterative, one level at a time, so a million heads need no recursion.
 */
import { createHash } from 'node:crypto';
import { canonicalize, type Digest } from '../canonical/index.ts';

export interface RunHead {
  readonly runId: string;
  readonly seq: number;
  readonly hash: string;
}

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

export function headLeaf(h: RunHead): Buffer {
  return sha(canonicalize({ hash: h.hash, runId: h.runId, seq: h.seq }));
}

export function merkleRoot(heads: Iterable<RunHead>): Digest {
  let level: Buffer[] = [];
  for (const h of heads) level.push(headLeaf(h));
  if (level.length === 0) return `sha256:${sha(new Uint8Array(0)).toString('hex')}`;
  while (level.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      up.push(right ? createHash('sha256').update(level[i]!).update(right).digest() : level[i]!);
    }
    level = up;
  }
  return `sha256:${level[0]!.toString('hex')}`;
}
