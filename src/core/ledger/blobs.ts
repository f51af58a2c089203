/**
 * Blobs: large string values of a payload stored once, by the SHA-256 of their canonical bytes,
 * and referenced from the entry. An entry whose canonical payload has a string whose canonical
 * form is longer than BLOB_THRESHOLD bytes is written as format v2: each such string replaced by
 * `{"$blob":"sha256:…"}`, and every object key that starts with `$` escaped with one more `$`
 * (so no value of the payload can look like a reference). The entry's payloadHash covers those
 * references; each blob is checked against its reference. The stored form is a pure function of
 * the payload: the verifier rebuilds it from the resolved payload and compares bytes.
 */
import { canonicalize, type Digest, digestBytes, isDigest } from '../canonical/index.ts';
import { RecentStrings } from '../canonical/recent-strings.ts';

/** Strings whose canonical (JSON, UTF-8) form is longer than this many bytes become blobs. */
export const BLOB_THRESHOLD = 4096;

/** The entry format of a payload that references blobs. */
export const BLOB_ENTRY_VERSION = 2;

export interface Blob {
  readonly hash: Digest;
  /** The RFC 8785 form of the string it replaces (a JSON string literal), UTF-8. */
  readonly bytes: Uint8Array;
}

const BLOB_KEY = '$blob';
/** A reference in stored payload text: a key `"$blob` can only be a reference (others are escaped). */
const REF = /\{"\$blob":"(sha256:[0-9a-f]{64})"\}/g;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A string's canonical byte length is at most 6 bytes per UTF-16 unit: shorter ones never qualify. */
const MIN_CANDIDATE = Math.floor(BLOB_THRESHOLD / 6);

/**
 * The stored form of `payload` when it references blobs: the value to canonicalize and the blobs,
 * or undefined when no string is large enough (the entry stays format v1, byte for byte as before).
 */
export function externalize(payload: unknown): { value: unknown; blobs: Blob[] } | undefined {
  const blobs = new Map<Digest, Blob>();
  const value = stored(payload, blobs);
  return blobs.size === 0 ? undefined : { value, blobs: [...blobs.values()] };
}

/**
 * The blobs of recently stored strings, by the string: a run holds one large string in several
 * entries (its event, a step's arguments and output), and its bytes and hash are a pure function
 * of it. Each append's blobs are still hashed again by the store before it writes them.
 */
const RECENT_BLOBS = new RecentStrings<Blob>(MIN_CANDIDATE + 1, 16, 4 * 1024 * 1024);

function stored(v: unknown, blobs: Map<Digest, Blob>): unknown {
  if (typeof v === 'string') {
    if (v.length <= MIN_CANDIDATE) return v;
    let blob = RECENT_BLOBS.get(v);
    if (blob === undefined) {
      const bytes = Buffer.from(canonicalize(v), 'utf8');
      if (bytes.length <= BLOB_THRESHOLD) return v;
      blob = { hash: digestBytes(bytes), bytes };
      RECENT_BLOBS.set(v, blob);
    }
    if (!blobs.has(blob.hash)) blobs.set(blob.hash, blob);
    return { [BLOB_KEY]: blob.hash };
  }
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map((x) => stored(x, blobs));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k.startsWith('$') ? `$${k}` : k] = stored(x, blobs);
  return out;
}

/** The blob hashes a stored payload references, in order of first appearance. */
export function blobRefs(payload: Uint8Array): Digest[] {
  const text = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('latin1');
  if (!text.includes('{"$blob":')) return [];
  const refs = new Set<Digest>();
  for (const m of text.matchAll(REF)) refs.add(m[1] as Digest);
  return [...refs];
}

/** Why a stored v2 payload cannot be resolved: a blob is missing, or does not match its reference. */
export class BlobProblem extends Error {
  constructor(
    readonly code: 'blob_missing' | 'blob_mismatch',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The payload a stored v2 payload stands for: references replaced by their blobs' strings, keys
 * unescaped. Throws BlobProblem for a missing or mismatched blob, and a plain Error for a payload
 * that is not a stored form at all (a key with a single `$`).
 */
export function resolveBlobs(storedValue: unknown, blobs: ReadonlyMap<Digest, Uint8Array>): unknown {
  if (typeof storedValue !== 'object' || storedValue === null) return storedValue;
  if (Array.isArray(storedValue)) return storedValue.map((x) => resolveBlobs(x, blobs));
  const o = storedValue as Record<string, unknown>;
  if (BLOB_KEY in o) {
    const hash = o[BLOB_KEY];
    if (Object.keys(o).length !== 1 || !isDigest(hash)) throw new Error('a blob reference has other keys');
    const bytes = blobs.get(hash);
    if (!bytes) throw new BlobProblem('blob_missing', `blob ${hash} is missing`);
    if (digestBytes(bytes) !== hash)
      throw new BlobProblem('blob_mismatch', `blob ${hash} does not hash to its reference`);
    let s: unknown;
    try {
      s = JSON.parse(strictUtf8.decode(bytes));
    } catch {
      throw new BlobProblem('blob_mismatch', `blob ${hash} is not a UTF-8 JSON string`);
    }
    if (typeof s !== 'string') throw new BlobProblem('blob_mismatch', `blob ${hash} is not a JSON string`);
    return s;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) {
    if (k.startsWith('$') && !k.startsWith('$$')) throw new Error(`key ${JSON.stringify(k)} is not escaped`);
    out[k.startsWith('$') ? k.slice(1) : k] = resolveBlobs(x, blobs);
  }
  return out;
}

/** Blobs by hash, for resolveBlobs. */
export function blobMap(blobs: readonly Blob[] | undefined): ReadonlyMap<Digest, Uint8Array> {
  const m = new Map<Digest, Uint8Array>();
  for (const b of blobs ?? []) m.set(b.hash, b.bytes);
  return m;
}
