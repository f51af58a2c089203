/**
 * Runs out of a store and into another as portable run directories (docs/run-format.md).
 *
 * `exportRunDir` writes the chosen runs of a tenant (and, with `linked`, the runs they name:
 * sources, parents, the live runs they shadow, delegated children) as files: each ledger's stored
 * bytes, the pinned version, the writ chains, the tenant's last checkpoint with each run's head
 * proven in it, and a manifest of every file's SHA-256. A run that fails verification is not
 * exported: the directory would carry the edit as evidence.
 *
 * `importRunDir` verifies the directory first (as `keel verify --dir`), then loads each run that
 * verified and has finished into the store, in one append per run: its entries exactly, its row,
 * its pinned version (as DRAFT, if the store lacks it, so nothing routes to it) and its writ
 * chains. A run already there with the same head is left as it is; one with the same id and
 * another head, or a version of the same number with another spec, is refused, never overwritten.
 */
import type { KeyObject } from 'node:crypto';
import { canonicalize, type Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { requireInstantBound } from '../core/instant.ts';
import {
  decodePayload,
  type PayloadOf,
  type RunStatus,
  type StoredEntry,
  TERMINAL_STATUSES,
} from '../core/ledger/index.ts';
import {
  blobFiles,
  CHECKPOINT_FILE,
  fileDigest,
  jsonFile,
  ledgerFile,
  type Manifest,
  type ManifestRun,
  parseLedgerFile,
  RUN_DIR_FORMAT,
  type RunDirFiles,
  type RunDirReport,
  runDirName,
  type SpecFile,
  sealManifest,
  verifyRunDir,
  withDirBlobs,
} from '../core/run-dir/index.ts';
import type { RunRecord, Store } from '../ports/index.ts';
import { checkpointCoverage } from './checkpoints/index.ts';
import type { Keel } from './keel.ts';

const PAGE = 5_000;

export interface ExportSelection {
  /** These runs (of the tenant). */
  readonly runIds?: readonly string[];
  /** Or every run of a workflow (created at or after `since`, before `until`). */
  readonly workflowId?: string;
  readonly since?: string;
  readonly until?: string;
  /** Also the runs each one names, transitively. */
  readonly linked?: boolean;
}

export interface ExportedRunDir {
  readonly files: Map<string, Uint8Array>;
  readonly manifest: Manifest;
  /** The SHA-256 of manifest.json, which pins every other file. */
  readonly manifestDigest: string;
}

async function readAll(store: Store, tenant: string, runId: string): Promise<StoredEntry[]> {
  const out: StoredEntry[] = [];
  for (;;) {
    const page = await store.ledger.readEntries(tenant, runId, out.length, PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
  }
}

function instant(s: string | undefined, field: string): string | undefined {
  if (s === undefined) return undefined;
  return requireInstantBound(`--${field}`, s);
}

async function chosenRuns(keel: Keel, tenant: string, sel: ExportSelection): Promise<RunRecord[]> {
  if (sel.runIds && sel.runIds.length > 0) {
    if (sel.workflowId !== undefined)
      throw new KeelError(ErrorCode.usage, 'export: give run ids or --workflow, not both', {
        field: 'workflow',
      });
    const runs: RunRecord[] = [];
    for (const id of sel.runIds) runs.push(await keel.runs.get(tenant, id));
    return runs;
  }
  if (sel.workflowId === undefined)
    throw new KeelError(ErrorCode.usage, 'export: give run ids or --workflow <id>', { field: 'run' });
  const since = instant(sel.since, 'since');
  const until = instant(sel.until, 'until');
  const runs: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await keel.store.runs.listRuns(tenant, {
      workflowId: sel.workflowId,
      limit: 100,
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      ...(cursor ? { cursor } : {}),
    });
    runs.push(...page.runs);
    cursor = page.next;
  } while (cursor);
  return runs.reverse(); // oldest first
}

/** The runs a run's ledger names: its source, parent, live run, and delegated children. */
function linksOf(entries: readonly StoredEntry[]): string[] {
  const root = decodePayload(entries[0]!) as PayloadOf<'run.started'>;
  const out = [root.forkOf?.runId, root.attemptOf, root.delegatedBy?.runId, root.shadowOf];
  for (const e of entries)
    if (e.kind === 'step.allowed')
      out.push((decodePayload(e) as PayloadOf<'step.allowed'>).delegation?.runId);
  return out.filter((x): x is string => typeof x === 'string');
}

export async function exportRunDir(
  keel: Keel,
  tenant: string,
  sel: ExportSelection,
  o: { now?: () => string; onRun?: (runId: string, done: number) => void } = {},
): Promise<ExportedRunDir> {
  const store = keel.store;
  const queue = await chosenRuns(keel, tenant, sel);
  const files = new Map<string, Uint8Array>();
  const runs: ManifestRun[] = [];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const run = queue.shift()!;
    if (seen.has(run.runId)) continue;
    seen.add(run.runId);
    const verified = await keel.runs.verify(tenant, run.runId);
    if (!verified.ok)
      throw new KeelError(
        ErrorCode.ledgerInvalid,
        `run ${run.runId} fails verification at seq ${verified.failure.seq} (${verified.failure.code}): ${verified.failure.message}; not exported`,
        { runId: run.runId, seq: verified.failure.seq, code: verified.failure.code },
      );
    const entries = await readAll(store, tenant, run.runId);
    const dir = runDirName(run.runId);
    files.set(`${dir}/ledger.jsonl`, ledgerFile(entries));
    for (const [name, blob] of blobFiles(entries)) files.set(name, blob);
    const version = (await store.registry.getVersion(tenant, run.workflowId, run.version))!;
    const spec: SpecFile = {
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      publishedAt: version.publishedAt,
      publishedBy: version.publishedBy,
      spec: version.spec,
    };
    files.set(`${dir}/spec.json`, jsonFile(spec));
    const root = decodePayload(entries[0]!) as PayloadOf<'run.started'>;
    if (root.writ) {
      const chain = await store.keys.getWritChain(tenant, root.writ.hash);
      if (chain === undefined)
        throw new KeelError(
          ErrorCode.ledgerInvalid,
          `run ${run.runId} names writ ${root.writ.hash}, which is not in this store`,
          {
            runId: run.runId,
          },
        );
      files.set(`${dir}/writs.json`, jsonFile({ [root.writ.hash]: JSON.parse(chain) }));
    }
    const last = entries[entries.length - 1]!;
    runs.push({
      runId: run.runId,
      dir,
      workflowId: run.workflowId,
      version: run.version,
      status: run.status,
      entries: entries.length,
      head: last.hash,
    });
    o.onRun?.(run.runId, runs.length);
    if (sel.linked)
      for (const id of linksOf(entries)) {
        if (seen.has(id)) continue;
        const linked = await store.runs.getRun(tenant, id);
        if (linked) queue.push(linked);
      }
  }
  // The last checkpoint, with each run's head proven in its head log: what `verify --dir --key` checks.
  const covered = await checkpointCoverage(
    store,
    tenant,
    runs.map((r) => r.runId),
  );
  if (covered) files.set(CHECKPOINT_FILE, jsonFile(covered));
  const digests: Record<string, Digest> = {};
  for (const [file, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1)))
    digests[file] = fileDigest(bytes);
  const manifest = sealManifest({
    format: RUN_DIR_FORMAT,
    tenant,
    exportedAt: (o.now ?? (() => new Date().toISOString()))(),
    runs,
    files: digests,
  });
  const bytes = jsonFile(manifest);
  files.set('manifest.json', bytes);
  return { files, manifest, manifestDigest: fileDigest(bytes) };
}

export interface ImportReport {
  readonly tenant?: string;
  /** Runs loaded into the store. */
  readonly imported: readonly string[];
  /** Runs the store already had, with the same head. */
  readonly present: readonly string[];
  /** Runs not loaded, and why. */
  readonly refused: readonly { readonly runId: string; readonly code: string; readonly message: string }[];
  /** The verification of the directory, as `keel verify --dir` gives it. */
  readonly verification: RunDirReport;
}

export async function importRunDir(
  store: Store,
  files: RunDirFiles,
  o: { trustedKeys?: readonly KeyObject[]; tenant?: string } = {},
): Promise<ImportReport> {
  const verification = verifyRunDir(files, o.trustedKeys ? { trustedKeys: o.trustedKeys } : {});
  const tenant = verification.tenant;
  if (verification.problems.length > 0 || tenant === undefined)
    throw new KeelError(
      ErrorCode.ledgerInvalid,
      `the run directory does not verify: ${verification.problems
        .slice(0, 3)
        .map((p) => `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`)
        .join('; ')}; nothing was imported`,
      { problems: verification.problems.slice(0, 20) },
    );
  if (o.tenant !== undefined && o.tenant !== tenant)
    throw new KeelError(
      ErrorCode.usage,
      `the runs are tenant ${tenant}'s (their ids derive from it), not ${o.tenant}'s; import them as ${tenant}`,
      { field: 'tenant' },
    );
  const imported: string[] = [];
  const present: string[] = [];
  const refused: { runId: string; code: string; message: string }[] = [];
  for (const r of verification.runs) {
    const refuse = (code: string, message: string) => refused.push({ runId: r.runId, code, message });
    if (!r.ok) {
      const p = r.problems[0]!;
      refuse(p.code, `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`);
      continue;
    }
    const status = r.status as RunStatus;
    if (!TERMINAL_STATUSES.includes(status)) {
      refuse(
        'run_not_finished',
        `the run is ${status}: only finished runs are imported (a live one belongs to its store)`,
      );
      continue;
    }
    const dir = runDirName(r.runId);
    const parsed = parseLedgerFile(`${dir}/ledger.jsonl`, files.get(`${dir}/ledger.jsonl`)!);
    if (!parsed.ok) continue; // verified above
    const entries = withDirBlobs(parsed.entries, files);
    const head = entries[entries.length - 1]!;
    const existing = await store.runs.getRun(tenant, r.runId);
    if (existing) {
      if (existing.head.hash === head.hash && existing.head.seq === head.seq) present.push(r.runId);
      else
        refuse(
          'run_exists',
          `this store has run ${r.runId} with another head (seq ${existing.head.seq}); it is never overwritten`,
        );
      continue;
    }
    const spec = JSON.parse(new TextDecoder().decode(files.get(`${dir}/spec.json`))) as SpecFile;
    const stored = await store.registry.getVersion(tenant, spec.workflowId, spec.version);
    if (stored && stored.specHash !== spec.specHash) {
      refuse(
        'version_immutable',
        `this store's ${spec.workflowId} v${spec.version} is another spec (${stored.specHash}); the run pins ${spec.specHash}`,
      );
      continue;
    }
    if (!stored)
      await store.registry.putVersion({
        tenant,
        workflowId: spec.workflowId,
        version: spec.version,
        specHash: spec.specHash,
        spec: { ...spec.spec, status: 'DRAFT' },
        status: 'DRAFT',
        publishedAt: spec.publishedAt,
        publishedBy: spec.publishedBy,
      });
    const writs = files.get(`${dir}/writs.json`);
    if (writs)
      for (const [hash, chain] of Object.entries(
        JSON.parse(new TextDecoder().decode(writs)) as Record<string, unknown>,
      ))
        await store.keys.putWritChain(tenant, hash as Digest, canonicalize(chain));
    const root = decodePayload(entries[0]!) as PayloadOf<'run.started'>;
    await store.ledger.append({
      tenant,
      runId: r.runId,
      expectedHead: null,
      entries,
      status,
      create: {
        workflowId: root.workflowId,
        version: root.version,
        specHash: root.specHash,
        eventId: root.event.id,
        eventType: root.event.type,
        ...(typeof root.event.subject === 'string' && root.event.subject !== ''
          ? { subject: root.event.subject }
          : {}),
        ...(root.mode ? { mode: root.mode } : {}),
        ...(root.shadowOf ? { shadowOf: root.shadowOf } : {}),
      },
    });
    imported.push(r.runId);
  }
  return { tenant, imported, present, refused, verification };
}
