/**
 * The shape check every store makes before an append touches the database: the entries belong
 * to the run and continue its chain from the expected head (seq and parent hash), and their
 * digests are `sha256:<hex>` (the SQLite store keeps their bytes), and each v2 entry carries
 * every blob it references (so no entry is ever stored without its blobs). A failure is a
 * broken invariant in the caller, never a conflict between writers (that is the head check).
 */
import { digestBytes, isDigest } from '../../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { BLOB_ENTRY_VERSION, type Blob, blobRefs } from '../../core/ledger/index.ts';
import type { AppendRequest } from '../../ports/index.ts';

/** Throws unless the entries continue the chain from the expected head. */
export function checkChain(req: AppendRequest): void {
  const { entries, expectedHead } = req;
  if (entries.length === 0) throw new KeelError(ErrorCode.internal, 'append with no entries');
  if (expectedHead === null && !req.create)
    throw new KeelError(ErrorCode.internal, 'creating a run needs its identity');
  const startSeq = expectedHead === null ? 0 : expectedHead.seq + 1;
  // Whether each blob's bytes hash to its reference, hashed once per append: the entries of one
  // append often carry the same blob (a step's arguments and its output).
  const sound = new Map<Blob, boolean>();
  const soundBlob = (b: Blob): boolean => {
    let ok = sound.get(b);
    if (ok === undefined) {
      ok = digestBytes(b.bytes) === b.hash;
      sound.set(b, ok);
    }
    return ok;
  };
  entries.forEach((e, i) => {
    const parent = i === 0 ? (expectedHead?.hash ?? null) : entries[i - 1]!.hash;
    if (e.runId !== req.runId || e.seq !== startSeq + i || e.prevHash !== parent) {
      throw new KeelError(
        ErrorCode.internal,
        `append to ${req.runId}: entry ${i} does not continue the chain`,
        {
          runId: req.runId,
        },
      );
    }
    if (!isDigest(e.hash) || !isDigest(e.payloadHash))
      throw new KeelError(
        ErrorCode.internal,
        `append to ${req.runId}: entry ${i} has a hash or payload hash that is not a sha256 digest`,
        { runId: req.runId },
      );
    if (e.v === BLOB_ENTRY_VERSION) {
      const carried = new Set((e.blobs ?? []).filter(soundBlob).map((b) => b.hash));
      if (!blobRefs(e.payload).every((h) => carried.has(h)))
        throw new KeelError(
          ErrorCode.internal,
          `append to ${req.runId}: entry ${i} lacks a blob it references`,
          {
            runId: req.runId,
          },
        );
    }
  });
}
