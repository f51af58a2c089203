/**
 * Whether a store still holds the checkpoint a witness keeps (docs/audit.md, "Witness"): the
 * store's checkpoint of that seq must be that very checkpoint. Pure; what it is given is read by
 * the caller (the store's checkpoint of the witnessed seq, and the seq its chain ends at).
 */
import type { Checkpoint } from './checkpoint.ts';

/** Why the store does not extend the witnessed checkpoint, or undefined when it holds it. */
export function witnessedProblem(
  witnessed: Checkpoint,
  held: Checkpoint | undefined,
  lastSeq: number,
): string | undefined {
  if (!held)
    return `the witness holds checkpoint ${witnessed.seq} (${witnessed.hash}) but the store's chain ${
      lastSeq === 0 ? 'holds no checkpoint' : `ends at checkpoint ${lastSeq}`
    }: checkpoints were deleted or the store was rolled back`;
  if (held.hash !== witnessed.hash)
    return `the store's checkpoint ${witnessed.seq} is ${held.hash}, not ${witnessed.hash} that the witness holds: the chain was replaced`;
  return undefined;
}
