/**
 * Verifies a portable run directory from its files alone: no store, no network. For each run of
 * the manifest, its ledger.jsonl chains and hashes entry by entry (the ledger verifier `keel verify`
 * uses), its root derives its run id in the manifest's tenant, its fold agrees with the manifest
 * (status, entries, head), its spec.json hashes to the hash the root pins, and each writ chain it
 * presented ends in the writ its root names (and, given trusted keys, its signatures hold). Then
 * every file's bytes against the manifest, and no file the manifest does not list.
 *
 * Every problem names its file, and in a ledger its line (line n holds seq n − 1). A directory
 * rewritten consistently (chains recomputed, manifest recomputed) chains and hashes: only a signed
 * checkpoint can tell. The one it carries (checkpoint.json, run-dir-checkpoint.ts) is checked, and
 * with the checkpoint public key every run must be covered by it (docs/run-format.md).
 */

import type { KeyObject } from 'node:crypto';
import type { Digest } from '../canonical/index.ts';
import { LedgerVerifier, type PayloadOf } from '../ledger/index.ts';
import { rootNamesRun, StatusFold } from '../run/index.ts';
import { specHash, type WorkflowSpec } from '../spec/index.ts';
import { keyIdOf, type SignedWrit, type TrustedKey, verifyWritChain, writHash } from '../writs/index.ts';
import {
  checkRunDirCheckpoint,
  type RunCoverage,
  type RunDirCheckpointReport,
} from './run-dir-checkpoint.ts';
import {
  blobFileName,
  type FileProblem,
  fileDigest,
  jsonFile,
  type Manifest,
  type ManifestRun,
  manifestContentHash,
  parseJsonFile,
  parseLedgerFile,
  RUN_DIR_FORMAT,
  type RunDirFiles,
  runDirName,
  type SpecFile,
  withDirBlobs,
} from './run-dir-format.ts';

export interface RunDirProblem extends FileProblem {
  /** The ledger verifier's code for a ledger problem (hash_mismatch, seq_gap, ...), else a word. */
  readonly code: string;
}

export interface RunDirRunReport {
  readonly runId: string;
  readonly ok: boolean;
  readonly entries: number;
  readonly status?: string;
  /** `verified`: every chain's signatures held under the given keys; `unchecked`: no keys given. */
  readonly writs: 'none' | 'verified' | 'unchecked';
  /** The runs this one names (its source, parent, the live run it shadows, its delegated children), and whether each is here. */
  readonly links: readonly { readonly kind: string; readonly runId: string; readonly here: boolean }[];
  /** The head the directory's checkpoint recorded for it, proven in its head log (absent: not covered). */
  readonly checkpoint?: RunCoverage;
  readonly problems: readonly RunDirProblem[];
}

export interface RunDirReport {
  readonly ok: boolean;
  readonly format?: string;
  readonly tenant?: string;
  readonly runs: readonly RunDirRunReport[];
  /** Problems of the directory as a whole (the manifest, files not listed or missing). */
  readonly problems: readonly RunDirProblem[];
  /** The SHA-256 of manifest.json: record it to know later that this very directory was verified. */
  readonly manifestDigest?: Digest;
  /** The checkpoint the directory carries, when it held (under the key given, or only its own). */
  readonly checkpoint?: RunDirCheckpointReport['summary'];
}

const problem = (file: string, code: string, message: string, line?: number): RunDirProblem =>
  line === undefined ? { file, code, message } : { file, line, code, message };

function manifestProblem(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return 'is not a JSON object';
  const o = m as Record<string, unknown>;
  if (o.format !== RUN_DIR_FORMAT) return `format is ${JSON.stringify(o.format)}, not "${RUN_DIR_FORMAT}"`;
  if (typeof o.tenant !== 'string' || o.tenant === '') return 'tenant is not a name';
  if (!Array.isArray(o.runs)) return 'runs is not a list';
  if (typeof o.files !== 'object' || o.files === null || Array.isArray(o.files))
    return 'files is not a mapping';
  for (const [i, r] of (o.runs as unknown[]).entries()) {
    const x = r as Record<string, unknown>;
    if (typeof x !== 'object' || x === null || typeof x.runId !== 'string' || typeof x.dir !== 'string')
      return `runs[${i}] has no runId and dir`;
    if (!Number.isSafeInteger(x.entries) || typeof x.head !== 'string' || typeof x.status !== 'string')
      return `runs[${i}] has no entries, head and status`;
  }
  return undefined;
}

/**
 * `trustedKeys`: public keys the auditor trusts to have signed the runs' writs (the tenant's, as
 * given on the command line); without them a writ chain is checked for integrity only.
 */
export function verifyRunDir(
  files: RunDirFiles,
  o: { trustedKeys?: readonly KeyObject[]; checkpointKey?: KeyObject } = {},
): RunDirReport {
  /** The directory refused whole, for a manifest that cannot be trusted to say what is in it. */
  const refused = (p: RunDirProblem): RunDirReport => ({ ok: false, runs: [], problems: [p] });
  const m = parseJsonFile(files, 'manifest.json');
  if (!m.ok) return refused({ ...m.problem, code: 'manifest_invalid' });
  const bad = manifestProblem(m.value);
  if (bad) return refused(problem('manifest.json', 'manifest_invalid', bad));
  const manifest = m.value as Manifest;
  const manifestBytes = files.get('manifest.json')!;
  const manifestDigest = fileDigest(manifestBytes);
  let sealed: string | undefined;
  try {
    sealed = manifestContentHash(manifest);
  } catch {
    sealed = undefined;
  }
  if (sealed !== manifest.contentHash)
    return refused(
      problem(
        'manifest.json',
        'manifest_digest_mismatch',
        `its content hashes to ${sealed ?? '(no canonical form)'}, but it records ${JSON.stringify(manifest.contentHash)}: it was edited`,
      ),
    );
  if (Buffer.compare(Buffer.from(jsonFile(manifest)), Buffer.from(manifestBytes)) !== 0)
    return refused(
      problem(
        'manifest.json',
        'manifest_invalid',
        'is not written as keel export writes it (its text was changed)',
      ),
    );
  const here = new Set(manifest.runs.map((r) => r.runId));
  const trusted = (o.trustedKeys ?? []).map((publicKey) => ({
    keyId: keyIdOf(publicKey),
    tenant: manifest.tenant,
    publicKey,
  }));
  const hashes = new Map<string, string[]>();
  const checked = manifest.runs.map((r) => verifyOneRun(files, manifest, r, here, trusted, hashes));
  const cover = checkRunDirCheckpoint(
    files,
    manifest.tenant,
    manifest.runs.map((r) => r.runId),
    (id) => hashes.get(id),
    o.checkpointKey,
  );
  const runs = checked.map((r): RunDirRunReport => {
    const c = cover.byRun.get(r.runId);
    const problems = [...r.problems, ...(c?.problems ?? [])];
    return {
      ...r,
      ok: problems.length === 0,
      ...(c?.coverage ? { checkpoint: c.coverage } : {}),
      problems,
    };
  });

  // Files: each listed one present with its digest, none unlisted.
  const problems: RunDirProblem[] = [...cover.problems];
  const ids = new Set<string>();
  for (const r of manifest.runs) {
    if (ids.has(r.runId))
      problems.push(problem('manifest.json', 'manifest_invalid', `run ${r.runId} is listed twice`));
    ids.add(r.runId);
  }
  for (const [file, digest] of Object.entries(manifest.files)) {
    const bytes = files.get(file);
    if (!bytes) problems.push(problem(file, 'file_missing', 'is listed in the manifest but missing'));
    else if (fileDigest(bytes) !== digest)
      problems.push(
        problem(
          file,
          'file_digest_mismatch',
          `hashes to ${fileDigest(bytes)}, but the manifest records ${digest}`,
        ),
      );
  }
  for (const file of files.keys())
    if (file !== 'manifest.json' && !(file in manifest.files))
      problems.push(problem(file, 'file_unlisted', 'is not in the manifest: added after the export'));
  const ok = problems.length === 0 && runs.every((r) => r.ok);
  return {
    ok,
    format: manifest.format,
    tenant: manifest.tenant,
    runs,
    problems,
    manifestDigest,
    ...(cover.summary ? { checkpoint: cover.summary } : {}),
  };
}

function verifyOneRun(
  files: RunDirFiles,
  manifest: Manifest,
  r: ManifestRun,
  here: ReadonlySet<string>,
  trusted: readonly TrustedKey[],
  hashes: Map<string, string[]>,
): RunDirRunReport {
  const problems: RunDirProblem[] = [];
  const report = (extra: Partial<RunDirRunReport> = {}): RunDirRunReport => ({
    runId: r.runId,
    ok: problems.length === 0,
    entries: 0,
    writs: 'none',
    links: [],
    problems,
    ...extra,
  });
  const dir = runDirName(r.runId);
  if (r.dir !== dir) {
    problems.push(problem('manifest.json', 'manifest_invalid', `run ${r.runId} is in ${r.dir}, not ${dir}`));
    return report();
  }
  const ledgerName = `${dir}/ledger.jsonl`;
  const bytes = files.get(ledgerName);
  if (!bytes) {
    problems.push(problem(ledgerName, 'file_missing', 'is missing'));
    return report();
  }
  const parsed = parseLedgerFile(ledgerName, bytes);
  if (!parsed.ok) {
    problems.push({ ...parsed.problem, code: 'ledger_malformed' });
    return report();
  }

  // The chain, entry by entry; the fold and the root beside it.
  const status = new StatusFold();
  let root: PayloadOf<'run.started'> | undefined;
  const children: string[] = [];
  const verifier = new LedgerVerifier(r.runId, (kind, payload, seq) => {
    if (seq === 0) root = payload as PayloadOf<'run.started'>;
    status.apply(kind, payload);
    const d = kind === 'step.allowed' ? (payload as PayloadOf<'step.allowed'>).delegation : undefined;
    if (d) children.push(d.runId);
  });
  hashes.set(
    r.runId,
    parsed.entries.map((e) => e.hash),
  );
  let line = 0;
  for (const e of withDirBlobs(parsed.entries, files)) {
    line++;
    if (!verifier.push(e)) break;
  }
  const result = verifier.result();
  if (!result.ok) {
    const { code, message } = result.failure;
    // A blob's failure is the blob file's: name it, and the ledger line that references it.
    const blob =
      code === 'blob_missing' || code === 'blob_mismatch' ? /sha256:[0-9a-f]{64}/.exec(message) : null;
    if (blob)
      problems.push(
        problem(
          blobFileName(blob[0] as Digest),
          code,
          `${message} (referenced by ${ledgerName} line ${line})`,
        ),
      );
    else problems.push(problem(ledgerName, code, message, line));
    return report({ entries: result.entries });
  }
  const rootOf = root!;
  if (!rootNamesRun(rootOf, r.runId) || rootOf.tenant !== manifest.tenant)
    problems.push(
      problem(
        ledgerName,
        'identity_mismatch',
        `line 1: the root does not derive run id ${r.runId} in tenant ${manifest.tenant}: the ledger belongs to another run, or its root was rewritten`,
        1,
      ),
    );
  const agree: [string, unknown, unknown][] = [
    ['entries', r.entries, result.entries],
    ['head', r.head, result.head.hash],
    ['status', r.status, status.status],
    ['workflowId', r.workflowId, rootOf.workflowId],
    ['version', r.version, rootOf.version],
  ];
  for (const [field, said, is] of agree)
    if (said !== is)
      problems.push(
        problem(
          'manifest.json',
          'manifest_mismatch',
          `run ${r.runId}: the manifest says ${field} ${JSON.stringify(said)}, its ledger ${JSON.stringify(is)}`,
        ),
      );

  // The pinned spec.
  const specName = `${dir}/spec.json`;
  const s = parseJsonFile(files, specName);
  if (!s.ok) problems.push({ ...s.problem, code: 'spec_mismatch' });
  else {
    const spec = s.value as SpecFile;
    let actual: string | undefined;
    try {
      actual = specHash(spec.spec as WorkflowSpec);
    } catch {
      actual = undefined;
    }
    if (actual !== rootOf.specHash || spec.specHash !== rootOf.specHash)
      problems.push(
        problem(
          specName,
          'spec_mismatch',
          `its spec hashes to ${actual ?? '(no canonical form)'}, but the run is pinned to ${rootOf.specHash}`,
        ),
      );
    else if (spec.workflowId !== rootOf.workflowId || spec.version !== rootOf.version)
      problems.push(
        problem(
          specName,
          'spec_mismatch',
          `is ${spec.workflowId} v${spec.version}, the run pins ${rootOf.workflowId} v${rootOf.version}`,
        ),
      );
  }

  // Writ chains: each ends in the writ named (its hash pins every body); signatures with keys.
  let writs: RunDirRunReport['writs'] = 'none';
  if (rootOf.writ) {
    const writsName = `${dir}/writs.json`;
    const w = parseJsonFile(files, writsName);
    const chain = w.ok ? (w.value as Record<string, unknown>)[rootOf.writ.hash] : undefined;
    if (!w.ok) problems.push({ ...w.problem, code: 'writ_missing' });
    else if (!Array.isArray(chain) || chain.length === 0)
      problems.push(
        problem(writsName, 'writ_missing', `has no chain for writ ${rootOf.writ.hash}, which the root names`),
      );
    else if (leafHashOf(chain) !== rootOf.writ.hash)
      problems.push(
        problem(
          writsName,
          'writ_mismatch',
          `the chain given for writ ${rootOf.writ.hash} does not end in that writ`,
        ),
      );
    else if (trusted.length > 0) {
      const v = verifyWritChain(chain, trusted);
      if (!v.ok)
        problems.push(
          problem(
            writsName,
            'writ_signature',
            `writ ${rootOf.writ.hash}: writ ${v.index} of its chain: ${v.violations.map((x) => x.message).join('; ')}`,
          ),
        );
      else writs = 'verified';
    } else writs = 'unchecked';
  }

  const links = [
    ...(rootOf.forkOf ? [{ kind: 'forkOf', runId: rootOf.forkOf.runId }] : []),
    ...(rootOf.attemptOf ? [{ kind: 'attemptOf', runId: rootOf.attemptOf }] : []),
    ...(rootOf.delegatedBy ? [{ kind: 'delegatedBy', runId: rootOf.delegatedBy.runId }] : []),
    ...(rootOf.shadowOf ? [{ kind: 'shadowOf', runId: rootOf.shadowOf }] : []),
    ...children.map((runId) => ({ kind: 'delegatedTo', runId })),
  ].map((l) => ({ ...l, here: here.has(l.runId) }));
  return report({ entries: result.entries, status: status.status, writs, links });
}

function leafHashOf(chain: readonly unknown[]): string | undefined {
  try {
    return writHash(chain[chain.length - 1] as SignedWrit);
  } catch {
    return undefined;
  }
}
