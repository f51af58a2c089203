/**
 * Blobs beside the entries that reference them, alike for both stores: which hashes a read needs,
 * and the entries with their blobs attached. A blob the store does not hold is simply absent, so
 * verification names it (blob_missing) instead of a read failing somewhere else.
 */
import type { Digest } from '../../core/canonical/index.ts';
import { BLOB_ENTRY_VERSION, type Blob, blobRefs, type StoredEntry } from '../../core/ledger/index.ts';

/** The blob hashes the v2 entries among `entries` reference, each once. */
export function blobsWanted(entries: readonly StoredEntry[]): Digest[] {
  const wanted = new Set<Digest>();
  for (const e of entries) if (e.v === BLOB_ENTRY_VERSION) for (const h of blobRefs(e.payload)) wanted.add(h);
  return [...wanted];
}

/** `entries` with each v2 entry's blobs (those found) attached; v1 entries are returned as they are. */
export function withBlobs<T extends StoredEntry>(entries: T[], found: ReadonlyMap<string, Uint8Array>): T[] {
  return entries.map((e) => {
    if (e.v !== BLOB_ENTRY_VERSION) return e;
    const blobs: Blob[] = [];
    for (const hash of blobRefs(e.payload)) {
      const bytes = found.get(hash);
      if (bytes) blobs.push({ hash, bytes });
    }
    return { ...e, blobs };
  });
}

/** The blobs an append writes: each entry's, once per hash. */
export function appendedBlobs(entries: readonly StoredEntry[]): Blob[] {
  const out = new Map<Digest, Blob>();
  for (const e of entries) for (const b of e.blobs ?? []) out.set(b.hash, b);
  return [...out.values()];
}
