/**
 * `keel.runs`: a tenant's runs — started directly, listed and counted, their ledgers read, verified,
 * replayed, forked and re-run, and their walks controlled (recover, reconcile, cancel, pause,
 * resume). Every call names its tenant; another tenant's run is not_found. A run that waited and
 * ends here wakes the shadow work beside it (`ended`). Reads go to the run index and the ledger;
 * every change is the engine's, recorded in the run's ledger first.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { requireInstantBound } from '../core/instant.ts';
import {
  decodeEntry,
  type Entry,
  RUN_STATUSES,
  type RunStatus,
  type StoredEntry,
  type VerifyResult,
} from '../core/ledger/index.ts';
import { describeEntry, parseEvent, runIdPrefix, subjectTerm } from '../core/run/index.ts';
import {
  type Engine,
  type GovernanceConfig,
  type ReconcileRequest,
  type ReplayResult,
  type RunSummary,
  refuseUnverified,
  replayRun,
  type ToolRegistry,
  verifyRun,
  type WalkMode,
} from '../engine/index.ts';
import type { CheckpointWitness, Planner, RunFilter, RunPage, RunRecord, Store } from '../ports/index.ts';
import type { LiveWork, RunEnded } from './lifecycle/live-activity.ts';
import { type StartOptions, startOptions } from './start-options.ts';

export interface RunsHandle {
  /** The run; not_found when the tenant has no such run. */
  get(tenant: string, runId: string): Promise<RunRecord>;
  /**
   * Starts a run of one workflow directly, whatever its status; the newest version unless
   * `version` is given. A version not yet shown to behave (DRAFT, TESTING, SHADOW) runs simulated
   * (`simulated: true`: a test run named `run`, no write or external tool acts, nobody is asked)
   * unless `live: true` asks for its effects.
   */
  start(
    tenant: string,
    workflowId: string,
    event: unknown,
    o?: StartOptions & { version?: number; live?: boolean },
  ): Promise<RunSummary & { created: boolean; simulated?: true }>;
  /** Newest first, a page at a time; `since` (inclusive) and `until` (exclusive) bound the creation time. */
  list(tenant: string, filter?: RunFilter): Promise<RunPage>;
  /** The tenant's runs by status (every status, 0 where none), and their total; one query. */
  counts(tenant: string, filter?: RunCountFilter): Promise<RunCounts>;
  /** The run's ledger, decoded. */
  entries(tenant: string, runId: string): Promise<Entry[]>;
  /** The run's ledger as stored (the exact bytes that were hashed). */
  storedEntries(tenant: string, runId: string): Promise<StoredEntry[]>;
  /** The ledger in plain language, one line per entry. */
  history(tenant: string, runId: string): Promise<HistoryLine[]>;
  /** Integrity of the stored ledger, its agreement with the run row and, with `engine`, the engine version. */
  verify(tenant: string, runId: string, o?: { engine?: string }): Promise<VerifyResult>;
  /** Walks a run on from its ledger head after a crash (crash recovery). */
  recover(tenant: string, runId: string): Promise<RunSummary>;
  /** Settles a step suspended as outcome_unknown with what a person found out, then walks on. */
  reconcile(tenant: string, runId: string, r: ReconcileRequest & { walk?: WalkMode }): Promise<RunSummary>;
  cancel(tenant: string, runId: string, c: { by: string; reason?: string }): Promise<RunSummary>;
  /**
   * Holds a running run at its next step boundary; no step starts until `resume`. `immediate`
   * also cuts an idempotent tool's call in progress (it is made again on resume).
   */
  pause(
    tenant: string,
    runId: string,
    c: { by: string; reason?: string; drainPolicy?: 'drain-current-node' | 'immediate' },
  ): Promise<RunSummary>;
  /** Resumes a paused run, walking on here or leaving it to a worker (`walk: 'enqueue'`). */
  resume(tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary>;
  /** Re-executes the run from its own ledger alone and compares. */
  replay(tenant: string, runId: string): Promise<ReplayResult>;
  /** A new run inheriting the entries before `fromSeq`: `replay` serves the record, `branch` runs live. */
  fork(
    tenant: string,
    runId: string,
    o: { fromSeq: number; mode: string; event?: unknown; version?: number },
  ): Promise<RunSummary & { created: boolean; forkOf: string; fromSeq: number; mode: string }>;
  /** A new live attempt linked by attemptOf; the original is untouched. */
  rerun(tenant: string, runId: string): Promise<RunSummary & { created: boolean; attemptOf: string }>;
}

export interface HistoryLine {
  readonly seq: number;
  readonly at: string;
  readonly kind: string;
  readonly text: string;
}

/** What `runs.counts` counts: the runs of a workflow (of one version), created in a time range. */
export interface RunCountFilter {
  readonly workflowId?: string;
  readonly version?: number;
  /** ISO 8601 instants with a zone: runs created at or after `since`, and before `until`. */
  readonly since?: string;
  readonly until?: string;
}

/** A tenant's runs by status (every status, 0 where none), and their sum. */
export interface RunCounts {
  readonly counts: Record<RunStatus, number>;
  readonly total: number;
}

export interface RunsDeps {
  readonly store: Store;
  readonly engine: Engine;
  readonly tools: ToolRegistry;
  readonly planner: Planner;
  readonly witness?: CheckpointWitness;
  /** The governance a replay judges by: the run's tenant's keys and revocations as recorded. */
  readonly replayGovernance: (tenant: string) => Promise<GovernanceConfig>;
  readonly live: LiveWork;
  readonly ended: RunEnded;
}

/**
 * A filter's `since` and `until` as the stores compare them (the clock's text, instantBound); one
 * that is not an RFC 3339 instant is a usage error naming it (requireInstantBound).
 */
function timeRange<F extends { since?: string; until?: string }>(f: F): F {
  const out: { since?: string; until?: string } = { ...f };
  for (const field of ['since', 'until'] as const) {
    const v = f[field];
    if (v === undefined) continue;
    out[field] = requireInstantBound(field, v);
  }
  return out as F;
}

/**
 * A listing's search terms checked (core/run/run-search.ts): a subject exactly or by prefix (not
 * both), a run id or a prefix of 8+ hex digits; each bad one a usage error naming its field.
 */
function searchTerms(f: RunFilter): RunFilter {
  if (f.subject !== undefined && f.subjectPrefix !== undefined)
    throw new KeelError(ErrorCode.usage, 'subjectPrefix: give subject or subjectPrefix, not both', {
      field: 'subjectPrefix',
    });
  return {
    ...f,
    ...(f.subject !== undefined ? { subject: subjectTerm(f.subject) } : {}),
    ...(f.subjectPrefix !== undefined
      ? { subjectPrefix: subjectTerm(f.subjectPrefix, 'subjectPrefix') }
      : {}),
    ...(f.runId !== undefined ? { runId: runIdPrefix(f.runId) } : {}),
  };
}

/** Versions shown to behave: a run of one acts unless it is a test or a shadow. */
const ROUTABLE_STATUSES: readonly string[] = ['LIVE', 'AUTONOMOUS'];

/** What a simulated direct run (`runs.start` of a version not yet shown to behave) is named as. */
const DIRECT_TEST = { name: 'run', approvals: 'approve' } as const;

export function runsHandle(d: RunsDeps): RunsHandle {
  const { store, engine, tools, planner, witness, live, ended } = d;

  async function getRun(tenant: string, runId: string): Promise<RunRecord> {
    const run = await store.runs.getRun(tenant, runId);
    if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
    return run;
  }

  const runs: RunsHandle = {
    get: getRun,
    /**
     * Starts a run of one workflow directly (any status: this is how DRAFT and TESTING versions are
     * tried), for an event that need not match a trigger. The newest version unless `version` is given.
     * Its id is derived apart from the run routing the same event makes (`emit`), so trying a
     * version never takes the name of its later LIVE run. A version not yet shown to behave
     * (DRAFT, TESTING, SHADOW) runs simulated — the test run named `run` of that event: no write or
     * external tool acts, nobody is asked — unless `live` asks for its effects.
     */
    async start(
      tenant: string,
      workflowId: string,
      eventValue: unknown,
      o: StartOptions & { version?: number; live?: boolean } = {},
    ): Promise<RunSummary & { created: boolean; simulated?: true }> {
      const event = parseEvent(eventValue, tenant);
      if (o.live !== undefined && typeof o.live !== 'boolean')
        throw new KeelError(ErrorCode.usage, `live: expected true or false, got ${JSON.stringify(o.live)}`, {
          field: 'live',
        });
      const v = await store.registry.getVersion(tenant, workflowId, o.version);
      if (!v) {
        throw new KeelError(
          ErrorCode.notFound,
          `workflow ${workflowId}${o.version ? ` v${o.version}` : ''} not found`,
          {
            workflowId,
            version: o.version,
          },
        );
      }
      const so = startOptions(o);
      if (!o.live && !ROUTABLE_STATUSES.includes(v.status)) {
        if (so.writ)
          throw new KeelError(
            ErrorCode.usage,
            `writ: ${workflowId} v${v.version} is ${v.status}, so its run is simulated and acts under no writ; ask for live effects (live: true, keel run --live) to run it under the writ`,
            { field: 'writ', workflowId, version: v.version },
          );
        const { run, created } = await engine.startSimulated(v, event, {
          mode: 'test',
          test: DIRECT_TEST,
          ...(so.walk ? { walk: so.walk } : {}),
          ...(so.onWalk ? { onWalk: so.onWalk } : {}),
        });
        return { ...run, created, simulated: true as const };
      }
      const { run, created } = await live(() => engine.start(v, event, { ...so, direct: true }));
      return { ...run, created };
    },
    /**
     * Runs newest first, a page at a time; `since` (inclusive) and `until` (exclusive) bound their
     * creation time (the run root's time) and may be any ISO 8601 instant with a zone: `until` is
     * how one jumps to a date (the runs just before it, then older ones by the cursor). `subject`,
     * `subjectPrefix` and `runId` find runs (searchTerms).
     */
    list: (tenant: string, filter?: RunFilter): Promise<RunPage> =>
      store.runs.listRuns(tenant, filter ? searchTerms(timeRange(filter)) : filter),
    /** How many of the tenant's runs are in each status (of a workflow, a version, a time range). */
    async counts(tenant: string, filter: RunCountFilter = {}): Promise<RunCounts> {
      const f = timeRange(filter);
      const found = await store.runs.countRuns(tenant, {
        ...(f.workflowId !== undefined ? { workflowId: f.workflowId } : {}),
        ...(f.version !== undefined ? { version: f.version } : {}),
        ...(f.since !== undefined ? { since: f.since } : {}),
        ...(f.until !== undefined ? { until: f.until } : {}),
      });
      const counts = Object.fromEntries(RUN_STATUSES.map((st) => [st, found[st] ?? 0])) as Record<
        RunStatus,
        number
      >;
      return { counts, total: RUN_STATUSES.reduce((n, st) => n + counts[st], 0) };
    },
    async entries(tenant: string, runId: string): Promise<Entry[]> {
      await getRun(tenant, runId);
      return (await store.ledger.readEntries(tenant, runId)).map(decodeEntry);
    },
    async storedEntries(tenant: string, runId: string): Promise<StoredEntry[]> {
      await getRun(tenant, runId);
      return store.ledger.readEntries(tenant, runId);
    },
    async history(tenant: string, runId: string): Promise<HistoryLine[]> {
      return (await runs.entries(tenant, runId)).map((e) => ({
        seq: e.seq,
        at: e.at,
        kind: e.kind,
        text: describeEntry(e),
      }));
    },
    /**
     * Integrity of the stored bytes, then agreement of the run row (a projection) with its ledger,
     * then, when `engine` is given, that the run was recorded by that engine version.
     */
    async verify(tenant: string, runId: string, o: { engine?: string } = {}): Promise<VerifyResult> {
      return verifyRun(store, await getRun(tenant, runId), { ...o, ...(witness ? { witness } : {}) });
    },
    recover: (tenant: string, runId: string) => engine.recover(tenant, runId).then((r) => ended(tenant, r)),
    /**
     * Records whether a suspended (outcome_unknown) step's effect happened, as a person found out
     * on the tool's side, then continues the run (or leaves it to a worker).
     */
    reconcile: (tenant: string, runId: string, r: ReconcileRequest & { walk?: WalkMode }) =>
      engine.reconcile(tenant, runId, r).then((s) => ended(tenant, s)),
    /**
     * Cancels a run that has not finished, as `by`: a walk in this process is stopped (its current
     * tool call aborted), any other run gets `run.finished` cancelled; its pending approval closes.
     * A finished run throws run_terminal. Returns the run, now cancelled.
     */
    cancel: (tenant: string, runId: string, c: { by: string; reason?: string }): Promise<RunSummary> =>
      engine.cancel(tenant, runId, c).then((r) => ended(tenant, r)),
    /**
     * Holds a running run at its next step boundary; no step starts until `resume`. `immediate`
     * also cuts an idempotent tool's call in progress (it is made again on resume).
     */
    pause: (
      tenant: string,
      runId: string,
      c: { by: string; reason?: string; drainPolicy?: 'drain-current-node' | 'immediate' },
    ): Promise<RunSummary> => engine.pause(tenant, runId, c),
    /** Resumes a paused run, walking on here (inline) or leaving it to a worker (`walk: 'enqueue'`). */
    resume: (tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary> =>
      engine.resume(tenant, runId, c).then((r) => ended(tenant, r)),
    /**
     * Re-executes the run against its own ledger, serving everything from the record, and compares.
     * A ledger (or row, or pinned spec) that fails verification is refused first (ledger_invalid):
     * replaying it would regenerate the edit and report it "identical".
     */
    async replay(tenant: string, runId: string): Promise<ReplayResult> {
      const run = await getRun(tenant, runId);
      const verified = await verifyRun(store, run, witness ? { witness } : {});
      if (!verified.ok) throw refuseUnverified(runId, verified.failure);
      const version = await store.registry.getVersion(tenant, run.workflowId, run.version);
      if (!version || version.specHash !== run.specHash) {
        throw new KeelError(
          ErrorCode.notFound,
          `run ${runId} is pinned to ${run.workflowId} v${run.version}, which is not in this store`,
          {
            runId,
          },
        );
      }
      return replayRun(await store.ledger.readEntries(tenant, runId), version, tools, {
        governance: await d.replayGovernance(tenant),
        writChainOf: (t, hash) => engine.writChains.chainOf(t, hash),
        ...(planner ? { planner } : {}),
      });
    },
    /** A new run inheriting entries before `fromSeq`; `event` (branch only) is validated like an emitted one. */
    async fork(
      tenant: string,
      runId: string,
      o: { fromSeq: number; mode: string; event?: unknown; version?: number },
    ): Promise<RunSummary & { created: boolean; forkOf: string; fromSeq: number; mode: string }> {
      if (o.mode !== 'replay' && o.mode !== 'branch') {
        throw new KeelError(
          ErrorCode.usage,
          `mode: expected replay or branch, got ${JSON.stringify(o.mode)}`,
          { field: 'mode' },
        );
      }
      const { run, created } = await engine.fork(tenant, runId, {
        fromSeq: o.fromSeq,
        mode: o.mode,
        ...(o.event !== undefined ? { event: parseEvent(o.event, tenant) } : {}),
        ...(o.version !== undefined ? { version: o.version } : {}),
      });
      return { ...run, created, forkOf: runId, fromSeq: o.fromSeq, mode: o.mode };
    },
    /** A diagnostic re-execution: a new live run linked by attemptOf; the original is untouched. */
    async rerun(
      tenant: string,
      runId: string,
    ): Promise<RunSummary & { created: boolean; attemptOf: string }> {
      const { run, created } = await engine.rerun(tenant, runId);
      return { ...run, created, attemptOf: runId };
    },
  };
  return runs;
}
