/**
 * A signed checkpoint: a tenant's run heads, as one Merkle root, signed with the tenant's
 * checkpoint key and chained to the checkpoint before it. The key is the operator's (kept outside
 * the store), so whoever can edit the database can rewrite a run, even with its chain recomputed,
 * but cannot sign a checkpoint that agrees with the rewrite: `audit verify` finds the difference.
 *
 * Pure: the body, its signature (Ed25519 over the body's canonical bytes) and the record's hash;
 * and, for OpenWOP's audit-integrity surface, a second signature over the 32 bytes of the root
 * alone (RFC 0218 §A.4), so a client holding only the published key checks what it is shown.
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
  /**
   * Ed25519 over the 32 bytes the root's hex decodes to, base64 (padded): what OpenWOP's
   * `/audit/verify` shows as the checkpoint's signature. Absent on checkpoints made before it was.
   */
  readonly rootSignature?: string;
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
  const rootSignature = sign(null, rootBytes(body.root), privateKey).toString('base64');
  return {
    ...body,
    signature,
    publicKey: spkiBase64(publicKey),
    hash: checkpointHash(body, signature),
    rootSignature,
  };
}

/** The 32 bytes a root digest names. */
export const rootBytes = (root: Digest): Buffer => Buffer.from(root.slice('sha256:'.length), 'hex');

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
  if (!ok) return 'its signature does not verify under its key';
  if (c.rootSignature !== undefined) {
    try {
      ok = verify(null, rootBytes(c.root), publicKey, Buffer.from(c.rootSignature, 'base64'));
    } catch {
      ok = false;
    }
    if (!ok) return 'its signature over the root does not verify under its key';
  }
  return undefined;
}
