/**
 * A signed checkpoint: a tenant's run heads, as one Merkle root, signed with the tenant's
 * checkpoint key and chained to the checkpoint before it. The key is the operator's (kept outside
 * the store), so whoever can edit the database can rewrite a run, even with its chain recomputed,
 * but cannot sign a checkpoint that agrees with the rewrite: `audit verify` finds the difference.
 *
 * Pure: the body, its signature (Ed25519 over the body's canonical bytes) and the record's hash.
 */
import { type KeyObject, sign, verify } from 'node:crypto';
import { canonicalize, type Digest, hashOf } from '../canonical/index.ts';
import { keyIdOf } from '../writs/index.ts';

export const CHECKPOINT_FORMAT = 'keel-checkpoint/1';

export interface CheckpointBody {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly tenant: string;
  /** 1 for the tenant's first checkpoint, then one more each. */
  readonly seq: number;
  readonly at: string;
  /** How many runs the root covers. */
  readonly runs: number;
  readonly root: Digest;
  /** The hash of the checkpoint before, null for the first. */
  readonly prevHash: Digest | null;
  /** `sha256:` of the signing key's SPKI DER (as writ keys are named). */
  readonly keyId: string;
}

export interface Checkpoint extends CheckpointBody {
  /** Ed25519 over the canonical body, base64url. */
  readonly signature: string;
  /** The signing public key, SPKI DER in base64 (as OpenWOP's audit facet publishes it). */
  readonly publicKey: string;
  /** SHA-256 of the canonical `{body, signature}`: what the next checkpoint's prevHash names. */
  readonly hash: Digest;
}

export const bodyOf = (c: Checkpoint | CheckpointBody): CheckpointBody => ({
  format: c.format,
  tenant: c.tenant,
  seq: c.seq,
  at: c.at,
  runs: c.runs,
  root: c.root,
  prevHash: c.prevHash,
  keyId: c.keyId,
});

export const checkpointHash = (body: CheckpointBody, signature: string): Digest =>
  hashOf({ body, signature });

export function spkiBase64(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

export function signCheckpoint(
  b: Omit<CheckpointBody, 'format' | 'keyId'>,
  privateKey: KeyObject,
  publicKey: KeyObject,
): Checkpoint {
  const body: CheckpointBody = bodyOf({ format: CHECKPOINT_FORMAT, keyId: keyIdOf(publicKey), ...b });
  const signature = sign(null, Buffer.from(canonicalize(body), 'utf8'), privateKey).toString('base64url');
  return { ...body, signature, publicKey: spkiBase64(publicKey), hash: checkpointHash(body, signature) };
}

/** Why a checkpoint does not hold by itself (its hash, its signature under its own key), or undefined. */
export function checkpointProblem(c: Checkpoint, publicKey: KeyObject): string | undefined {
  const body = bodyOf(c);
  if (c.format !== CHECKPOINT_FORMAT)
    return `format is ${JSON.stringify(c.format)}, not ${CHECKPOINT_FORMAT}`;
  if (checkpointHash(body, c.signature) !== c.hash)
    return 'its hash is not the hash of its body and signature';
  if (keyIdOf(publicKey) !== c.keyId) return `it names key ${c.keyId}, not the key it is checked with`;
  let ok = false;
  try {
    ok = verify(
      null,
      Buffer.from(canonicalize(body), 'utf8'),
      publicKey,
      Buffer.from(c.signature, 'base64url'),
    );
  } catch {
    ok = false;
  }
  return ok ? undefined : 'its signature does not verify under its key';
}
