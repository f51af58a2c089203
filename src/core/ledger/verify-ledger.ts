/**
 * Ledger verification: integrity of stored bytes, without executing anything.
 *
 * Reads entries one at a time (so a long ledger streams in constant memory) and stops at the
 * first failure, naming its seq and a typed code. It hashes the stored payload bytes and the
 * stored envelope fields; it never trusts a re-serialised object. Deltas and engine pinning are
 * checked by later layers on top of this one.
 */
import { canonicalize, digestBytes } from '../canonical/index.ts';
import type { DeltaFailureCode } from '../world/index.ts';
import { BLOB_ENTRY_VERSION, BlobProblem, blobMap, externalize, resolveBlobs } from './blobs.ts';
import { ENTRY_VERSION, type Entry, envelopeText, type Head, jsonString, type StoredEntry } from './entry.ts';
import { type EntryKind, isEntryKind, payloadProblem, ROOT_KINDS } from './entry-kinds.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function fail(seq: number, code: VerifyFailureCode, message: string): VerifyFailure {
  return { code, seq, message };
}

/**
 * Is `text` the canonical form of `value` (parsed from it)? Fast path: JSON.stringify keeps the
 * parsed key order, so equality plus sorted keys, safe numbers and well-formed strings settles it.
 * Anything else (integer-like keys that JS reorders, for one) is decided by `canonicalize`.
 */
function isCanonicalText(value: unknown, text: string): boolean {
  // JSON.stringify escapes a lone surrogate as \uXXXX: text without "\u" cannot hold one, so the
  // walk then only checks key order and integer range.
  if (JSON.stringify(value) === text && plainCanonical(value, text.includes('\\u'))) return true;
  try {
    return canonicalize(value) === text;
  } catch {
    return false;
  }
}

function plainCanonical(v: unknown, surrogates: boolean): boolean {
  if (typeof v === 'string') return !(surrogates && LONE_SURROGATE.test(v));
  if (typeof v === 'number') return !Number.isInteger(v) || Number.isSafeInteger(v);
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!plainCanonical(x, surrogates)) return false;
    return true;
  }
  let prev: string | undefined;
  for (const k of Object.keys(v)) {
    if ((prev !== undefined && !(prev < k)) || (surrogates && LONE_SURROGATE.test(k))) return false;
    if (!plainCanonical((v as Record<string, unknown>)[k], surrogates)) return false;
    prev = k;
  }
  return true;
}

export type VerifyFailureCode =
  | 'empty'
  | 'run_mismatch'
  | 'seq_gap'
  | 'bad_genesis'
  | 'parent_mismatch'
  | 'hash_mismatch'
  | 'kind_payload_mismatch'
  | 'not_canonical'
  | 'unsupported_version'
  /** A v2 entry references a blob the store (or run directory) does not hold. */
  | 'blob_missing'
  /** A blob's bytes do not hash to the reference the entry holds, or are not a JSON string. */
  | 'blob_mismatch'
  | 'head_mismatch'
  | 'status_mismatch'
  | 'engine_drift'
  /** The root does not derive the run's id: the ledger was moved to, or swapped with, another run. */
  | 'identity_mismatch'
  /** A column of the stored run row (tenant, workflow, version, spec hash, event) disagrees with the root. */
  | 'row_mismatch'
  /** The pinned version's spec is missing or no longer hashes to the spec hash the run records. */
  | 'spec_mismatch'
  /** A pending-approval row disagrees with the ledger (edited, invented for a run that waits for nothing, or deleted). */
  | 'projection_mismatch'
  /** The run no longer extends the head its last checkpoint recorded: cut back, or rewritten, after it. */
  | 'checkpoint_mismatch'
  /** The store's checkpoint chain does not hold the last checkpoint the witness keeps: deleted or rolled back. */
  | 'checkpoint_missing'
  /**
   * A recorded decision of the control flow (`branch.chosen`, `step.skipped`, `foreach.started`) does not follow: the
   * values it says it read are not the run's, or its condition, decided again from them, says otherwise.
   */
  | 'branch_mismatch'
  /**
   * A wait for an event ended on an event it could not take: another type or tenant, outside its
   * window (before `since`, after its timeout), one an earlier wait took, or one its match,
   * decided again on the recorded event and the run's values, does not hold for (or reads otherwise).
   */
  | 'wait_mismatch'
  /**
   * A recorded approval deadline (`approval.requested` `deadline`, `approval.reminded`,
   * `.escalated`, `.expired`) does not follow from the recorded times and the pinned spec's
   * `approval`: a deadline not the request's time plus the timeout, an expiry before it, a reminder
   * too early.
   */
  | 'approval_deadline_mismatch'
  | DeltaFailureCode;

export interface VerifyFailure {
  readonly code: VerifyFailureCode;
  readonly seq: number;
  readonly message: string;
}

export type VerifyResult =
  | { readonly ok: true; readonly entries: number; readonly head: Head }
  | { readonly ok: false; readonly entries: number; readonly failure: VerifyFailure };

/** An incremental verifier: feed entries in stored order, then call `result()`. */
export class LedgerVerifier {
  private count = 0;
  private prev: Head | null = null;
  private failure: VerifyFailure | undefined;

  private readonly runIdJson: string;

  /**
   * `observe` sees each entry that verified, with its parsed payload, so callers can fold what
   * they need (a status, a count) in the same pass without parsing the payload again.
   */
  constructor(
    private readonly runId: string,
    private readonly observe?: (kind: EntryKind, payload: unknown, seq: number, at: string) => void,
  ) {
    this.runIdJson = jsonString(runId);
  }

  /** Returns false once a failure has been found (further entries are ignored). */
  push(e: StoredEntry): boolean {
    if (this.failure) return false;
    this.failure = this.check(e);
    if (this.failure) return false;
    this.prev = { seq: e.seq, hash: e.hash };
    this.count++;
    return true;
  }

  /**
   * `expectedHead` is the head the store's run row names: a chain that verifies but stops short
   * of it has lost its tail (entries deleted from the end).
   */
  result(expectedHead?: Head): VerifyResult {
    if (this.failure) return { ok: false, entries: this.count, failure: this.failure };
    if (this.prev === null) {
      return {
        ok: false,
        entries: 0,
        failure: { code: 'empty', seq: 0, message: `run ${this.runId} has no entries` },
      };
    }
    if (expectedHead && (expectedHead.seq !== this.prev.seq || expectedHead.hash !== this.prev.hash)) {
      const seq = Math.min(expectedHead.seq, this.prev.seq + 1);
      const message =
        expectedHead.seq > this.prev.seq
          ? `the run's head is seq ${expectedHead.seq} but the ledger ends at seq ${this.prev.seq}: entries ${this.prev.seq + 1}..${expectedHead.seq} are missing`
          : `the run's head is seq ${expectedHead.seq} (${expectedHead.hash}) but the ledger's last entry is seq ${this.prev.seq} (${this.prev.hash})`;
      return { ok: false, entries: this.count, failure: { code: 'head_mismatch', seq, message } };
    }
    return { ok: true, entries: this.count, head: this.prev };
  }

  private check(e: StoredEntry): VerifyFailure | undefined {
    const expectedSeq = this.prev === null ? 0 : this.prev.seq + 1;
    const seq = e.seq;
    if (e.runId !== this.runId) return fail(seq, 'run_mismatch', `entry ${e.seq} belongs to run ${e.runId}`);
    if (e.seq !== expectedSeq) {
      const why =
        Number.isSafeInteger(e.seq) && e.seq > expectedSeq
          ? `entries ${expectedSeq}..${e.seq - 1} are missing or out of order`
          : 'entries are repeated or out of order';
      return {
        code: 'seq_gap',
        seq: expectedSeq,
        message: `expected seq ${expectedSeq}, found ${e.seq}: ${why}`,
      };
    }
    if (e.v !== ENTRY_VERSION && e.v !== BLOB_ENTRY_VERSION)
      return fail(
        seq,
        'unsupported_version',
        `entry format v${e.v} is not supported (expected v${ENTRY_VERSION} or v${BLOB_ENTRY_VERSION})`,
      );
    if (!isEntryKind(e.kind))
      return fail(seq, 'kind_payload_mismatch', `unknown entry kind ${JSON.stringify(e.kind)}`);
    const isRoot = ROOT_KINDS.includes(e.kind);
    if (this.prev === null) {
      if (!isRoot)
        return fail(
          seq,
          'bad_genesis',
          `seq 0 is ${e.kind}; a ledger must start with ${ROOT_KINDS.join(' or ')}`,
        );
      if (e.prevHash !== null)
        return fail(seq, 'bad_genesis', 'seq 0 names a parent; the root entry has none');
    } else {
      if (isRoot) return fail(seq, 'bad_genesis', `${e.kind} at seq ${e.seq}; only seq 0 may be a root`);
      if (e.prevHash !== this.prev.hash) {
        return fail(
          seq,
          'parent_mismatch',
          `entry ${e.seq} names parent ${e.prevHash}, but entry ${this.prev.seq} hashes to ${this.prev.hash}`,
        );
      }
    }
    const payloadHash = digestBytes(e.payload);
    if (payloadHash !== e.payloadHash) {
      return fail(seq, 'hash_mismatch', `payload bytes of entry ${e.seq} do not hash to its payloadHash`);
    }
    // Every field but `at` is now known to be a plain digest, a known kind or an integer.
    const envelope = envelopeText(
      jsonString(e.at),
      `"${e.kind}"`,
      `"${payloadHash}"`,
      this.prev === null ? 'null' : `"${this.prev.hash}"`,
      this.runIdJson,
      seq,
      e.v,
    );
    if (digestBytes(envelope) !== e.hash)
      return fail(seq, 'hash_mismatch', `envelope of entry ${e.seq} does not hash to its stored hash`);
    let payload: unknown;
    let text: string;
    try {
      text = strictUtf8.decode(e.payload);
      payload = JSON.parse(text);
    } catch {
      return fail(seq, 'kind_payload_mismatch', `payload of entry ${e.seq} is not UTF-8 JSON`);
    }
    if (e.v === BLOB_ENTRY_VERSION) {
      const resolved = resolvedPayload(e, payload, text);
      if (!resolved.ok) return resolved.failure;
      payload = resolved.value;
    } else if (!isCanonicalText(payload, text)) {
      // Hashes alone would accept other byte forms of the same JSON; the ledger holds only canonical bytes.
      return fail(seq, 'not_canonical', `payload of entry ${e.seq} is not in RFC 8785 canonical form`);
    }
    const problem = payloadProblem(e.kind, payload);
    if (problem) return fail(seq, 'kind_payload_mismatch', `${e.kind} at seq ${e.seq}: ${problem}`);
    this.observe?.(e.kind, payload, seq, e.at);
    return undefined;
  }
}

/**
 * A v2 entry's payload with its blobs resolved, or why it fails: a blob missing or altered, or a
 * stored form other than the one the writer makes of that payload (blobs.ts: the only form).
 */
function resolvedPayload(
  e: StoredEntry,
  parsed: unknown,
  text: string,
): { ok: true; value: unknown } | { ok: false; failure: VerifyFailure } {
  let resolved: unknown;
  try {
    resolved = resolveBlobs(parsed, blobMap(e.blobs));
  } catch (err) {
    if (err instanceof BlobProblem)
      return { ok: false, failure: fail(e.seq, err.code, `entry ${e.seq}: ${err.message}`) };
    const message = `payload of entry ${e.seq} is not a blob-referencing form`;
    return { ok: false, failure: fail(e.seq, 'not_canonical', message) };
  }
  const again = externalize(resolved);
  let same = false;
  try {
    same = again !== undefined && canonicalize(again.value) === text;
  } catch {}
  if (!same)
    return {
      ok: false,
      failure: fail(
        e.seq,
        'not_canonical',
        `payload of entry ${e.seq} is not the canonical blob-referencing form`,
      ),
    };
  return { ok: true, value: resolved };
}

/**
 * Verifies stored entries and hands them back decoded: each payload parsed once, by the
 * verification itself (the entries are complete only when `result.ok`).
 */
export function verifiedEntries(
  runId: string,
  stored: readonly StoredEntry[],
  expectedHead?: Head,
): { result: VerifyResult; entries: Entry[] } {
  const entries: Entry[] = [];
  let i = 0;
  const v = new LedgerVerifier(runId, (_kind, payload) => {
    const s = stored[i]!;
    entries.push({
      v: s.v,
      runId: s.runId,
      seq: s.seq,
      kind: s.kind,
      prevHash: s.prevHash,
      payloadHash: s.payloadHash,
      hash: s.hash,
      at: s.at,
      payload: payload as Entry['payload'],
    });
  });
  for (; i < stored.length; i++) if (!v.push(stored[i]!)) break;
  return { result: v.result(expectedHead), entries };
}

export function verifyLedger(
  runId: string,
  entries: Iterable<StoredEntry>,
  expectedHead?: Head,
): VerifyResult {
  const v = new LedgerVerifier(runId);
  for (const e of entries) if (!v.push(e)) break;
  return v.result(expectedHead);
}
