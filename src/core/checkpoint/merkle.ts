/**
 * The Merkle root a checkpoint signs: over a tenant's run heads in creation order.
 *
 * leaf = SHA-256 of the UTF-8 of the canonical (RFC 8785) `{hash, runId, seq}` of a run's head;
 * a parent = SHA-256 of its two children's 32 bytes, left then right; an odd node at the end of a
 * level goes up unchanged; the root of no runs is SHA-256 of no bytes. Written as `sha256:<hex>`.
 * Iterative, one level at a time, so a million heads need no recursion; `MerkleBuilder` computes
 * the same root from heads streamed one by one, keeping one digest per level (the complete
 * subtrees so far), so a checkpoint of a million runs never holds them all.
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

/**
 * The same root, streamed: each completed subtree of 2^k leaves is kept at level k; two at one
 * level combine. At the end the kept subtrees fold from the right (the smallest, last leaves,
 * first): exactly the odd-node-goes-up rule of `merkleRoot`.
 */
export class MerkleBuilder {
  private readonly levels: (Buffer | undefined)[] = [];
  count = 0;

  add(h: RunHead): void {
    let node = headLeaf(h);
    let k = 0;
    for (; this.levels[k]; k++) {
      node = createHash('sha256').update(this.levels[k]!).update(node).digest();
      this.levels[k] = undefined;
    }
    this.levels[k] = node;
    this.count++;
  }

  root(): Digest {
    let acc: Buffer | undefined;
    for (const node of this.levels) {
      if (!node) continue;
      acc = acc ? createHash('sha256').update(node).update(acc).digest() : node;
    }
    return `sha256:${(acc ?? sha(new Uint8Array(0))).toString('hex')}`;
  }
}
