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
import { canonicalize, type Digest, hashOf, isDigest } from '../canonical/index.ts';
import { keyIdOf } from '../writs/index.ts';

/** What every checkpoint is made as now: the root of the run heads and the head log's size and hash. */
export const CHECKPOINT_FORMAT = 'keel-checkpoint/2';
/** Checkpoints made before the head log: a root only. They still verify, and a /2 may follow one. */
export const CHECKPOINT_FORMAT_V1 = 'keel-checkpoint/1';

export interface CheckpointBody {
  readonly format: typeof CHECKPOINT_FORMAT | typeof CHECKPOINT_FORMAT_V1;
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
  /** /2: how many heads the head log (merkle-log.ts) holds up to this checkpoint. */
  readonly treeSize?: number;
  /** /2: the hash of that log (RFC 9162), which every later checkpoint's log extends. */
  readonly logRoot?: Digest;
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
  /**
   * The store's copy only, never signed nor witnessed: the head log's right edge (merkle-log.ts),
   * so the next checkpoint extends the log without reading it. Used only if it folds to logRoot.
   */
  readonly logFrontier?: readonly Digest[];
}

export const bodyOf = (c: Checkpoint | CheckpointBody): CheckpointBody => {
  const body = {
    format: c.format,
    tenant: c.tenant,
    seq: c.seq,
    at: c.at,
    runs: c.runs,
    root: c.root,
    prevHash: c.prevHash,
    keyId: c.keyId,
  };
  return c.format === CHECKPOINT_FORMAT_V1
    ? body
    : { ...body, treeSize: c.treeSize as number, logRoot: c.logRoot as Digest };
};

/** The signed record alone, as a witness keeps it and a run directory carries it (no store-only fields). */
export function signedRecord(c: Checkpoint): Checkpoint {
  return {
    ...bodyOf(c),
    signature: c.signature,
    publicKey: c.publicKey,
    ...(c.rootSignature !== undefined ? { rootSignature: c.rootSignature } : {}),
    hash: c.hash,
  };
}

export const checkpointHash = (body: CheckpointBody, signature: string): Digest =>
  hashOf({ body, signature });

export function spkiBase64(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

export function signCheckpoint(
  b: Omit<CheckpointBody, 'format' | 'keyId' | 'treeSize' | 'logRoot'> & {
    readonly treeSize: number;
    readonly logRoot: Digest;
  },
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
  if (c.format !== CHECKPOINT_FORMAT && c.format !== CHECKPOINT_FORMAT_V1)
    return `format is ${JSON.stringify(c.format)}, not ${CHECKPOINT_FORMAT}`;
  if (
    c.format === CHECKPOINT_FORMAT &&
    (!Number.isSafeInteger(c.treeSize) || (c.treeSize as number) < 0 || !isDigest(c.logRoot))
  )
    return 'its treeSize or logRoot is missing or malformed';
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

const RECORD_KEYS = new Set([
  'format',
  'tenant',
  'seq',
  'at',
  'runs',
  'root',
  'prevHash',
  'keyId',
  'treeSize',
  'logRoot',
  'signature',
  'publicKey',
  'rootSignature',
  'hash',
]);

/**
 * A signed checkpoint read from outside the store (a witness file, a run directory), checked for
 * shape only, strictly: every field known and of its type. Whether it holds (its hash and
 * signature) is `checkpointProblem`'s to say.
 */
export function parseCheckpointRecord(
  v: unknown,
): { ok: true; checkpoint: Checkpoint } | { ok: false; problem: string } {
  const no = (problem: string) => ({ ok: false as const, problem });
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return no('is not a JSON object');
  const r = v as Record<string, unknown>;
  const extra = Object.keys(r).find((k) => !RECORD_KEYS.has(k));
  if (extra !== undefined) return no(`has an unknown field ${JSON.stringify(extra.slice(0, 40))}`);
  if (r.format !== CHECKPOINT_FORMAT && r.format !== CHECKPOINT_FORMAT_V1)
    return no(`format is ${JSON.stringify(r.format)}, not ${CHECKPOINT_FORMAT}`);
  for (const k of ['tenant', 'at', 'keyId', 'signature', 'publicKey'] as const)
    if (typeof r[k] !== 'string' || r[k] === '') return no(`${k} is not a non-empty string`);
  for (const k of ['seq', 'runs'] as const)
    if (!Number.isSafeInteger(r[k]) || (r[k] as number) < (k === 'seq' ? 1 : 0))
      return no(`${k} is not a whole number${k === 'seq' ? ' from 1' : ''}`);
  for (const k of ['root', 'hash'] as const) if (!isDigest(r[k])) return no(`${k} is not a sha256: digest`);
  if (r.prevHash !== null && !isDigest(r.prevHash)) return no('prevHash is neither null nor a digest');
  if (r.rootSignature !== undefined && typeof r.rootSignature !== 'string')
    return no('rootSignature is not a string');
  if (r.format === CHECKPOINT_FORMAT) {
    if (!Number.isSafeInteger(r.treeSize) || (r.treeSize as number) < 0)
      return no('treeSize is not a whole number');
    if (!isDigest(r.logRoot)) return no('logRoot is not a sha256: digest');
  } else if (r.treeSize !== undefined || r.logRoot !== undefined)
    return no(`a ${CHECKPOINT_FORMAT_V1} has no treeSize or logRoot`);
  return { ok: true, checkpoint: r as unknown as Checkpoint };
}
