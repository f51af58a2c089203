/**
 * Ledger entries: the hashed envelope, the canonical payload bytes, and how one entry is chained
 * to the one before it.
 *
 * Entry hash = SHA-256 of the canonical envelope {v, runId, seq, kind, prevHash, payloadHash, at};
 * payloadHash = SHA-256 of the canonical payload bytes. The payload is kept as those exact bytes
 * so verification hashes what was stored and never a re-serialised object.
 */
import { canonicalize, type Digest, digestBytes } from '../canonical/index.ts';
import {
  BLOB_ENTRY_VERSION,
  BLOB_THRESHOLD,
  type Blob,
  blobMap,
  externalize,
  resolveBlobs,
} from './blobs.ts';
import type { EntryKind, PayloadOf } from './entry-kinds.ts';

/** The entry format of a payload held whole; BLOB_ENTRY_VERSION (2) marks one that references blobs. */
export const ENTRY_VERSION = 1;

export interface Envelope {
  readonly v: number;
  readonly runId: string;
  readonly seq: number;
  readonly kind: EntryKind;
  readonly prevHash: Digest | null;
  readonly payloadHash: Digest;
  readonly at: string;
}

/**
 * An entry as stored: envelope, its hash, and the canonical payload bytes. A v2 entry's payload
 * references blobs (blobs.ts); the store hands them along in `blobs`.
 */
export interface StoredEntry extends Envelope {
  readonly hash: Digest;
  readonly payload: Uint8Array;
  readonly blobs?: readonly Blob[];
}

/** An entry with its payload decoded, as the engine and projections read it. */
export interface Entry<K extends EntryKind = EntryKind> extends Envelope {
  readonly hash: Digest;
  readonly payload: PayloadOf<K>;
}

/** The head of a ledger: what the next append must name as its parent. */
export interface Head {
  readonly seq: number;
  readonly hash: Digest;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Printable ASCII without `"` and `\`: such a string's JSON form is the string in quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The JSON (and RFC 8785) form of a string. */
export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/**
 * The canonical envelope from its fields, each already in JSON form (keys in RFC 8785 order).
 * Callers that know a field is a plain digest may quote it themselves instead of escaping it.
 */
export function envelopeText(
  at: string,
  kind: string,
  payloadHash: string,
  prevHash: string,
  runId: string,
  seq: number,
  v: number,
): string {
  return `{"at":${at},"kind":${kind},"payloadHash":${payloadHash},"prevHash":${prevHash},"runId":${runId},"seq":${seq},"v":${v}}`;
}

/**
 * The canonical envelope, built directly: every field is a string, a safe integer or null, so this
 * equals `canonicalize(envelope)` (a property test holds it to that) at a fraction of the cost.
 */
export function envelopeBytes(e: Envelope): string {
  return envelopeText(
    jsonString(e.at),
    jsonString(e.kind),
    jsonString(e.payloadHash),
    e.prevHash === null ? 'null' : jsonString(e.prevHash),
    jsonString(e.runId),
    e.seq,
    e.v,
  );
}

export function entryHash(e: Envelope): Digest {
  return digestBytes(envelopeBytes(e));
}

/** Builds the entry that follows `prev` (or the root, when prev is null). */
export function chainEntry<K extends EntryKind>(
  runId: string,
  prev: Head | null,
  kind: K,
  payload: PayloadOf<K>,
  at: string,
): { stored: StoredEntry; entry: Entry<K> } {
  const text = canonicalize(payload);
  const seq = prev === null ? 0 : prev.seq + 1;
  const prevHash = prev === null ? null : prev.hash;
  // Only a payload longer than the threshold can hold a string that is (a UTF-16 unit is at most 3
  // bytes of UTF-8, so a short text needs no counting). Its bytes are made only if it stays v1.
  const ext =
    text.length > BLOB_THRESHOLD / 3 && Buffer.byteLength(text, 'utf8') > BLOB_THRESHOLD
      ? externalize(payload)
      : undefined;
  if (ext) {
    const bytes = Buffer.from(canonicalize(ext.value), 'utf8');
    const payloadHash = digestBytes(bytes);
    const v = BLOB_ENTRY_VERSION;
    const hash = entryHash({ v, runId, seq, kind, prevHash, payloadHash, at });
    return {
      stored: { v, runId, seq, kind, prevHash, payloadHash, hash, at, payload: bytes, blobs: ext.blobs },
      entry: { v, runId, seq, kind, prevHash, payloadHash, hash, at, payload },
    };
  }
  const bytes = Buffer.from(text, 'utf8');
  const payloadHash = digestBytes(bytes);
  const hash = entryHash({ v: ENTRY_VERSION, runId, seq, kind, prevHash, payloadHash, at });
  // Two plain literals of one shape: this runs for every entry written, so no spreads.
  return {
    stored: { v: ENTRY_VERSION, runId, seq, kind, prevHash, payloadHash, hash, at, payload: bytes },
    entry: { v: ENTRY_VERSION, runId, seq, kind, prevHash, payloadHash, hash, at, payload },
  };
}

/** A stored entry's payload, decoded, its blobs resolved (throws on a missing or altered blob). */
export function decodePayload(s: Pick<StoredEntry, 'v' | 'payload' | 'blobs'>): unknown {
  const value = JSON.parse(decoder.decode(s.payload));
  return s.v === BLOB_ENTRY_VERSION ? resolveBlobs(value, blobMap(s.blobs)) : value;
}

export function decodeEntry(s: StoredEntry): Entry {
  return {
    v: s.v,
    runId: s.runId,
    seq: s.seq,
    kind: s.kind,
    prevHash: s.prevHash,
    payloadHash: s.payloadHash,
    hash: s.hash,
    at: s.at,
    payload: decodePayload(s) as Entry['payload'],
  };
}

/** The payload of `e`, typed by its kind; throws if `e` is of another kind (a broken invariant). */
export function payloadOf<K extends EntryKind>(e: Entry, kind: K): PayloadOf<K> {
  if (e.kind !== kind) throw new Error(`expected a ${kind} entry at seq ${e.seq}, found ${e.kind}`);
  return e.payload as PayloadOf<K>;
}
