/**
 * What a checkpoint chain is judged by, shared by making and verifying: a checkpoint's own key and
 * whether it holds under it, the head log's right edge a checkpoint stored, and the refusal of a
 * store whose chain no longer holds what was signed or witnessed. Pure but for the key parsing.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  CHECKPOINT_FORMAT,
  type Checkpoint,
  checkpointProblem,
  digestBuffer,
  LogBuilder,
  toDigest,
} from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';

/** A checkpoint's own key (the SPKI it carries), or undefined if it is not one. */
export function ownKey(c: Checkpoint): KeyObject | undefined {
  try {
    return createPublicKey({ key: Buffer.from(c.publicKey, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** Why a checkpoint does not hold under its own key (hash, signature, its log fields), or undefined. */
export function selfProblem(c: Checkpoint): string | undefined {
  const key = ownKey(c);
  return key ? checkpointProblem(c, key) : 'its public key is not an Ed25519 SPKI key';
}

/** The stored right edge of a /2 checkpoint's head log, if it folds to the log it signed. */
export function frontierOf(c: Checkpoint): LogBuilder | undefined {
  if (c.format !== CHECKPOINT_FORMAT || !c.logFrontier) return undefined;
  const edge = c.logFrontier.map(digestBuffer);
  if (edge.some((b) => b === undefined)) return undefined;
  const b = LogBuilder.from(c.treeSize!, edge as Buffer[]);
  return b && toDigest(b.root()) === c.logRoot ? b : undefined;
}

/** The error for a chain the store no longer holds as signed or witnessed: nothing is signed over it. */
export const chainRefused = (tenant: string, problem: string, seq: number) =>
  new KeelError(
    ErrorCode.ledgerInvalid,
    `tenant ${tenant}: ${problem}: no checkpoint is signed over a store that does not extend its checkpoints`,
    { tenant, code: 'checkpoint_missing', seq },
  );
