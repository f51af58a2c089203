/**
 * The composition root: `createKeel(config)` wires concrete adapters (SQLite store, system
 * sources) into the engine and returns typed handles for workflows, events, runs and approvals.
 * This is the only module that names concrete adapters; everything it returns is tenant-scoped.
 */
import { SqliteStore } from '../adapters/sqlite/index.ts';
import { systemSources } from '../adapters/system/index.ts';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import {
  decodeEntry,
  type Entry,
  type StoredEntry,
  type VerifyResult,
  verifyLedger,
} from '../core/ledger/index.ts';
import { describeEntry, foldRun, parseEvent } from '../core/run/index.ts';
import {
  parseSpec,
  specHash,
  triggerMatches,
  validateSpec,
  WORKFLOW_STATUSES,
  type WorkflowSpec,
  type WorkflowStatus,
} from '../core/spec/index.ts';
import { Engine, type RunSummary, ToolRegistry } from '../engine/index.ts';
import type {
  PendingApproval,
  Promotion,
  RawSources,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  ToolDefinition,
  VersionRecord,
} from '../ports/index.ts';

export interface KeelConfig {
  /** A Store, or a path to a SQLite file (`:memory:` for a throwaway store). */
  readonly store: Store | string;
  readonly tools?: readonly ToolDefinition[];
  /** Clock, random and env; the real ones by default. */
  readonly sources?: RawSources;
  readonly synchronous?: 'FULL' | 'NORMAL';
}

/** Statuses under which events route to a version. */
const ROUTABLE: readonly WorkflowStatus[] = ['LIVE', 'AUTONOMOUS'];

export interface HistoryLine {
  readonly seq: number;
  readonly at: string;
  readonly kind: string;
  readonly text: string;
}

export interface EmitResult {
  readonly eventId: string;
  readonly runs: readonly (RunSummary & { created: boolean })[];
}

export type Keel = ReturnType<typeof createKeel>;

export function createKeel(config: KeelConfig) {
  const store =
    typeof config.store === 'string'
      ? new SqliteStore(config.store, { synchronous: config.synchronous })
      : config.store;
  const tools = new ToolRegistry(config.tools ?? []);
  const sources = config.sources ?? systemSources();
  const engine = new Engine({ store, tools, sources });
  const now = () => new Date(sources.clock.now()).toISOString();
  const knownTool = (name: string) => tools.has(name);

  async function getRun(tenant: string, runId: string): Promise<RunRecord> {
    const run = await store.getRun(tenant, runId);
    if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
    return run;
  }

  async function publishSpec(tenant: string, spec: WorkflowSpec, file: string, by: string) {
    // Going beyond DRAFT is a person's recorded decision (`promote`), never a line in a file.
    if (spec.status !== 'DRAFT') {
      throw new KeelError(
        ErrorCode.specInvalid,
        `${file}: status: a version is published as DRAFT, got ${spec.status}; publish it as DRAFT, then run \`keel promote ${spec.id} ${spec.status}\``,
        { problems: [{ file, field: 'status', message: `expected DRAFT at publish, got ${spec.status}` }] },
      );
    }
    return store.putVersion({
      tenant,
      workflowId: spec.id,
      version: spec.version,
      specHash: specHash(spec),
      spec,
      status: spec.status,
      publishedAt: now(),
      publishedBy: by,
    });
  }

  const workflows = {
    /** Parses, validates (tools included) and hashes a spec without storing it. */
    validate(text: string, file: string): { spec: WorkflowSpec; specHash: Digest } {
      const spec = parseSpec(text, file, { knownTool });
      return { spec, specHash: specHash(spec) };
    },
    async publish(tenant: string, text: string, file: string, by: string) {
      return publishSpec(tenant, parseSpec(text, file, { knownTool }), file, by);
    },
    async publishObject(tenant: string, value: unknown, by: string) {
      return publishSpec(tenant, validateSpec(value, '(request)', { knownTool }), '(request)', by);
    },
    async promote(
      tenant: string,
      workflowId: string,
      to: string,
      by: string,
      version?: number,
    ): Promise<Promotion> {
      if (!(WORKFLOW_STATUSES as readonly string[]).includes(to)) {
        throw new KeelError(
          ErrorCode.usage,
          `status: expected one of ${WORKFLOW_STATUSES.join(', ')}, got ${JSON.stringify(to)}`,
          {
            field: 'status',
          },
        );
      }
      const rec = await store.getVersion(tenant, workflowId, version);
      if (!rec) {
        throw new KeelError(
          ErrorCode.notFound,
          `workflow ${workflowId}${version ? ` v${version}` : ''} not found`,
          { workflowId, version },
        );
      }
      if (rec.status === to) {
        throw new KeelError(ErrorCode.usage, `${workflowId} v${rec.version} is already ${to}`, {
          workflowId,
          version: rec.version,
        });
      }
      const p: Promotion = {
        tenant,
        workflowId,
        version: rec.version,
        from: rec.status,
        to: to as WorkflowStatus,
        by,
        at: now(),
      };
      await store.setVersionStatus(p);
      return p;
    },
    list: (tenant: string, workflowId?: string): Promise<VersionRecord[]> =>
      store.listVersions(tenant, workflowId),
    get: (tenant: string, workflowId: string, version?: number) =>
      store.getVersion(tenant, workflowId, version),
    promotions: (tenant: string, workflowId: string) => store.listPromotions(tenant, workflowId),
  };

  const events = {
    /** Validates an event and starts one run per matching workflow (its latest LIVE or AUTONOMOUS version). */
    async emit(tenant: string, value: unknown): Promise<EmitResult> {
      const event = parseEvent(value, tenant);
      const latestRoutable = new Map<string, VersionRecord>();
      for (const v of await store.listVersions(tenant)) {
        if (ROUTABLE.includes(v.status)) latestRoutable.set(v.workflowId, v);
      }
      const runs: (RunSummary & { created: boolean })[] = [];
      for (const v of latestRoutable.values()) {
        if (!v.spec.triggers.some((t) => triggerMatches(t, event))) continue;
        const { run, created } = await engine.start(v, event);
        runs.push({ ...run, created });
      }
      return { eventId: event.id, runs };
    },
  };

  const runs = {
    get: getRun,
    list: (tenant: string, filter?: RunFilter): Promise<RunPage> => store.listRuns(tenant, filter),
    async entries(tenant: string, runId: string): Promise<Entry[]> {
      await getRun(tenant, runId);
      return (await store.readEntries(tenant, runId)).map(decodeEntry);
    },
    async storedEntries(tenant: string, runId: string): Promise<StoredEntry[]> {
      await getRun(tenant, runId);
      return store.readEntries(tenant, runId);
    },
    async history(tenant: string, runId: string): Promise<HistoryLine[]> {
      return (await runs.entries(tenant, runId)).map((e) => ({
        seq: e.seq,
        at: e.at,
        kind: e.kind,
        text: describeEntry(e),
      }));
    },
    /** Integrity of the stored bytes, then agreement of the run row (a projection) with its ledger. */
    async verify(tenant: string, runId: string): Promise<VerifyResult> {
      const run = await getRun(tenant, runId);
      const stored = await store.readEntries(tenant, runId);
      const result = verifyLedger(runId, stored, run.head);
      if (!result.ok) return result;
      const folded = foldRun(stored.map(decodeEntry)).status;
      if (folded !== run.status) {
        return {
          ok: false,
          entries: result.entries,
          failure: {
            code: 'status_mismatch',
            seq: result.head.seq,
            message: `the run is stored as ${run.status} but its ledger says ${folded}`,
          },
        };
      }
      return result;
    },
    resume: (tenant: string, runId: string) => engine.resume(tenant, runId),
  };

  const approvals = {
    list: (tenant: string, runId?: string): Promise<PendingApproval[]> =>
      store.listPendingApprovals(tenant, runId),
    approve: (tenant: string, runId: string, by: string, note?: string) =>
      engine.resolveApproval(tenant, runId, { decision: 'approved', by, ...(note ? { note } : {}) }),
    deny: (tenant: string, runId: string, by: string, note?: string) =>
      engine.resolveApproval(tenant, runId, { decision: 'denied', by, ...(note ? { note } : {}) }),
  };

  return {
    store,
    tools,
    engine,
    workflows,
    events,
    runs,
    approvals,
    close: () => store.close(),
  };
}
