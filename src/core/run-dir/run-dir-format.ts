/**
 * The portable run directory (docs/run-format.md): the files a run is handed to an auditor as, and
 * how each is written and read. Pure text and bytes: the exporter and the verifier share these, so
 * what one writes is exactly what the other reads.
 *
 * - `manifest.json`: the format, the tenant, the runs and every file's SHA-256.
 * - `runs/<dir>/ledger.jsonl`: one line per entry in seq order, the stored envelope and hash with
 *   the payload's stored bytes as a string (RFC 8785 text, so UTF-8 of the string is the bytes).
 * - `runs/<dir>/spec.json`: the version the run pins (its spec hashes to the root's `specHash`).
 * - `runs/<dir>/writs.json`: the writ chains the run presented, by hash (only when it used one).
 * - `blobs/<hex>`: each blob a v2 entry of any run references, once, named by its SHA-256.
 * - `checkpoint.json`: the tenant's last signed checkpoint and, for each run it covers, the head
 *   it recorded with the RFC 9162 inclusion proof of that head in the checkpoint's head log.
 */
import { type Digest, digestBytes, hashOf } from '../canonical/index.ts';
import type { Checkpoint } from '../checkpoint/index.ts';
import { BLOB_ENTRY_VERSION, type Blob, blobRefs, ENTRY_VERSION, type StoredEntry } from '../ledger/index.ts';
import type { WorkflowSpec } from '../spec/index.ts';

export const RUN_DIR_FORMAT = 'keel-run-dir/1';

/** A run directory as files: its relative paths (with `/`) and their bytes. */
export type RunDirFiles = ReadonlyMap<string, Uint8Array>;

export interface ManifestRun {
  readonly runId: string;
  /** Its directory, `runs/<runId with ":" as "-">`. */
  readonly dir: string;
  readonly workflowId: string;
  readonly version: number;
  readonly status: string;
  readonly entries: number;
  /** The hash of its last entry. */
  readonly head: Digest;
}

export interface Manifest {
  readonly format: typeof RUN_DIR_FORMAT;
  /**
   * The SHA-256 of the manifest's canonical form (RFC 8785) without this field: a byte changed
   * anywhere in manifest.json changes its content or its text (checked against how it is written).
   */
  readonly contentHash: Digest;
  readonly tenant: string;
  readonly exportedAt: string;
  readonly runs: readonly ManifestRun[];
  /** Every other file of the directory and the SHA-256 of its bytes (`sha256:<hex>`). */
  readonly files: Readonly<Record<string, Digest>>;
}

/** What spec.json holds: the pinned version as it was published. */
export interface SpecFile {
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly publishedAt: string;
  readonly publishedBy: string;
  readonly spec: WorkflowSpec;
}

/** writs.json: each writ chain the run presented, by the hash its root (or a delegation) names. */
export type WritsFile = Readonly<Record<string, readonly unknown[]>>;

/** The checkpoint a run directory carries, and where in its head log each run's head is. */
export const CHECKPOINT_FILE = 'checkpoint.json';

export interface CoveredHead {
  /** The run's head as the checkpoint's head log last recorded it (at or before the run's end). */
  readonly seq: number;
  readonly hash: Digest;
  /** Its leaf in the head log, and the audit path to the signed logRoot (RFC 9162 §2.1.3). */
  readonly leafIndex: number;
  readonly proof: readonly Digest[];
}

export interface CheckpointFile {
  /** The signed checkpoint, as signed (a witness keeps the same record). */
  readonly checkpoint: Checkpoint;
  /** By run id: the runs of the directory it covers. */
  readonly runs: Readonly<Record<string, CoveredHead>>;
}

/** The manifest with its contentHash. */
export function sealManifest(m: Omit<Manifest, 'contentHash'>): Manifest {
  return {
    format: m.format,
    contentHash: hashOf(m),
    tenant: m.tenant,
    exportedAt: m.exportedAt,
    runs: m.runs,
    files: m.files,
  };
}

/** What a manifest's contentHash must be. */
export function manifestContentHash(m: Manifest): Digest {
  const { contentHash: _, ...rest } = m;
  return hashOf(rest);
}

export const runDirName = (runId: string) => `runs/${runId.replace(':', '-')}`;

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's digest as the manifest records it. */
export const fileDigest = (bytes: Uint8Array): Digest => digestBytes(bytes);

/** One ledger line (without its newline): the envelope fields, the hash, the payload's bytes as text. */
export function entryLine(e: StoredEntry): string {
  return JSON.stringify({
    v: e.v,
    runId: e.runId,
    seq: e.seq,
    kind: e.kind,
    prevHash: e.prevHash,
    payloadHash: e.payloadHash,
    hash: e.hash,
    at: e.at,
    payload: strictUtf8.decode(e.payload),
  });
}

export const ledgerFile = (entries: readonly StoredEntry[]): Uint8Array =>
  utf8.encode(entries.map((e) => `${entryLine(e)}\n`).join(''));

/** A problem with a file of the directory, where it is (a line, from 1) and what is wrong. */
export interface FileProblem {
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

const FIELDS = ['v', 'runId', 'seq', 'kind', 'prevHash', 'payloadHash', 'hash', 'at', 'payload'] as const;

/**
 * The stored entries of a ledger.jsonl, or the first line that is not one (not JSON, a field
 * missing, extra or of the wrong type, a file that does not end in a newline). Whether the entries
 * chain and hash is the ledger verifier's to say.
 */
export function parseLedgerFile(
  file: string,
  bytes: Uint8Array,
): { ok: true; entries: StoredEntry[] } | { ok: false; problem: FileProblem } {
  if (bytes.length === 0)
    return { ok: false, problem: { file, message: 'is empty: a run has at least its root entry' } };
  // Lines are cut on the newline byte first, so a byte that is not UTF-8 is named by its line.
  const entries: StoredEntry[] = [];
  const lines: (string | undefined)[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end === -1) {
      return {
        ok: false,
        problem: {
          file,
          line: lines.length + 1,
          message: 'the last line does not end with a newline (the file was cut)',
        },
      };
    }
    try {
      lines.push(strictUtf8.decode(bytes.subarray(start, end)));
    } catch {
      lines.push(undefined);
    }
    start = end + 1;
  }
  for (let i = 0; i < lines.length; i++) {
    const at = (message: string) => ({ ok: false as const, problem: { file, line: i + 1, message } });
    const text = lines[i];
    if (text === undefined) return at('is not UTF-8');
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      return at('is not a JSON object');
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return at('is not a JSON object');
    const r = o as Record<string, unknown>;
    const keys = Object.keys(r);
    const extra = keys.find((k) => !(FIELDS as readonly string[]).includes(k));
    if (extra !== undefined) return at(`has an unknown field ${JSON.stringify(extra.slice(0, 40))}`);
    for (const f of FIELDS) if (!(f in r)) return at(`has no ${f}`);
    if (r.v !== ENTRY_VERSION && r.v !== BLOB_ENTRY_VERSION)
      return at(`v is ${JSON.stringify(r.v)}, not ${ENTRY_VERSION} or ${BLOB_ENTRY_VERSION}`);
    if (!Number.isSafeInteger(r.seq) || (r.seq as number) < 0) return at('seq is not a whole number');
    for (const f of ['runId', 'kind', 'payloadHash', 'hash', 'at', 'payload'] as const)
      if (typeof r[f] !== 'string') return at(`${f} is not a string`);
    if (r.prevHash !== null && typeof r.prevHash !== 'string')
      return at('prevHash is neither null nor a string');
    entries.push({
      v: r.v,
      runId: r.runId as string,
      seq: r.seq as number,
      kind: r.kind as StoredEntry['kind'],
      prevHash: r.prevHash as Digest | null,
      payloadHash: r.payloadHash as Digest,
      hash: r.hash as Digest,
      at: r.at as string,
      payload: utf8.encode(r.payload as string),
    });
  }
  return { ok: true, entries };
}

/** The file a blob is kept in: `blobs/` and the hex of its SHA-256. */
export const blobFileName = (hash: Digest): string => `blobs/${hash.slice('sha256:'.length)}`;

/** The blob files the entries' references name, by file name (for the exporter). */
export function blobFiles(entries: readonly StoredEntry[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const e of entries) for (const b of e.blobs ?? []) out.set(blobFileName(b.hash), b.bytes);
  return out;
}

/**
 * The entries with their blobs taken from the directory's `blobs/` files (those present): what the
 * verifier checks and the importer stores. A missing file is left for verification to name.
 */
export function withDirBlobs(entries: readonly StoredEntry[], files: RunDirFiles): StoredEntry[] {
  return entries.map((e) => {
    if (e.v !== BLOB_ENTRY_VERSION) return e;
    const blobs: Blob[] = [];
    for (const hash of blobRefs(e.payload)) {
      const bytes = files.get(blobFileName(hash));
      if (bytes) blobs.push({ hash, bytes });
    }
    return { ...e, blobs };
  });
}

/** A JSON file's bytes: two-space indented, one trailing newline (for people reading it too). */
export const jsonFile = (value: unknown): Uint8Array => utf8.encode(`${JSON.stringify(value, null, 2)}\n`);

/** A JSON file of the directory, parsed, or a problem naming it. */
export function parseJsonFile(
  files: RunDirFiles,
  file: string,
): { ok: true; value: unknown } | { ok: false; problem: FileProblem } {
  const bytes = files.get(file);
  if (!bytes) return { ok: false, problem: { file, message: 'is missing' } };
  try {
    return { ok: true, value: JSON.parse(strictUtf8.decode(bytes)) };
  } catch {
    return { ok: false, problem: { file, message: 'is not JSON' } };
  }
}
