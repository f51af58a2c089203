/**
 * Creating a run — new, forked, re-executed, simulated or delegated: its root (`run.started`,
 * recording what the run is pinned to and derives from) and any inherited entries, committed with
 * the run's row in one append, then walked here (holding its lease) or left to a worker. A run that
 * exists already is returned as it is; an id a retention sweep removed is never reused; a version
 * whose stored spec no longer hashes to its recorded hash is refused. Never appends to another run.
 */
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import {
  chainEntry,
  type Entry,
  type EventRecord,
  type PayloadOf,
  type RunMode,
  type RunWrit,
  type SplitEntry,
  type TestRef,
} from '../core/ledger/index.ts';
import { retainedRunError, startState } from '../core/run/index.ts';
import type { ShadowWork, VersionRecord } from '../ports/index.ts';
import type { EngineContext, OnWalk } from './engine-context.ts';
import type { DelegatedBy } from './mint-delegation.ts';
import { refuseUnverified, specProblem } from './run-integrity.ts';
import { type RunSummary, stateSummary, summaryOf } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import { walkInline } from './walk-inline.ts';

/** How a run is created (`create`): what it derives from, what it is pinned to, whether it is walked. */
export interface CreateOptions {
  readonly forkOf?: PayloadOf<'run.started'>['forkOf'];
  readonly attemptOf?: string;
  /** With attemptOf: which re-execution (2 for the first). */
  readonly attempt?: number;
  /** A run started directly, not by routing an event (its id is derived apart). */
  readonly direct?: boolean;
  readonly status?: string;
  readonly prefix?: readonly Entry[];
  /** The writ the run executes under, already admitted (or inherited from the source run). */
  readonly writ?: RunWrit;
  /** The hash of the policy the run is pinned to (the tenant's now, or a replayed source's). */
  readonly policy?: Digest;
  /** A child run of a delegation step: the parent run and its delegating entry. */
  readonly delegatedBy?: DelegatedBy;
  /** A simulated run: `test` (with `test`) or `shadow` (with `shadowOf`); absent, a live run. */
  readonly mode?: RunMode;
  readonly test?: TestRef;
  readonly shadowOf?: string;
  /** A routed run during a rollout: its bucket and the weights that chose its version. */
  readonly split?: SplitEntry;
  /** A simulated run: the status its checks judge it as. */
  readonly judgedAs?: 'LIVE' | 'AUTONOMOUS';
  /** The caller's W3C `traceparent` (validated, canonical): the run's span becomes its child. */
  readonly traceparent?: string;
  /**
   * false: commit the root and the prefix, and leave the walk to `recover` (or a worker);
   * `background`: commit them holding this process's lease, then walk on, handing the walk to `onWalk`.
   */
  readonly walk?: boolean | 'background';
  /** With walk `background`: told of the walk (required). */
  readonly onWalk?: OnWalk;
  /** Shadow work to queue with the run's root, in its transaction, given the run's id. */
  readonly shadowWork?: (runId: Digest) => readonly ShadowWork[];
}

export async function createRun(
  ctx: EngineContext,
  runId: Digest,
  version: VersionRecord,
  event: EventRecord,
  o: CreateOptions,
): Promise<{ run: RunSummary; created: boolean }> {
  const existing = await ctx.store.runs.getRun(version.tenant, runId);
  if (existing) return { run: summaryOf(existing), created: false };
  if (await ctx.store.checkpoints.getRetainedRun(version.tenant, runId)) throw retainedRunError(runId);
  // A new run is pinned to the version's spec hash: the stored spec must still hash to it.
  const edited = specProblem(version, version);
  if (edited) throw refuseUnverified(runId, edited);
  const fx = ctx.live;
  // Optional fields assigned, not spread: this runs for every run.
  const started: PayloadOf<'run.started'> = {
    tenant: version.tenant,
    workflowId: version.workflowId,
    version: version.version,
    specHash: version.specHash,
    status: o.status ?? version.status,
    event,
    engine: ctx.engineVersion,
  };
  if (o.forkOf) started.forkOf = o.forkOf;
  if (o.attemptOf) started.attemptOf = o.attemptOf;
  if (o.attempt !== undefined) started.attempt = o.attempt;
  if (o.direct) started.direct = true;
  if (o.writ) started.writ = o.writ;
  if (o.policy) started.policy = o.policy;
  if (o.delegatedBy) started.delegatedBy = o.delegatedBy;
  if (o.mode) started.mode = o.mode;
  if (o.test) started.test = o.test;
  if (o.shadowOf) started.shadowOf = o.shadowOf;
  if (o.split) started.split = o.split;
  if (o.judgedAs) started.judgedAs = o.judgedAs;
  if (o.traceparent) started.traceparent = o.traceparent;
  // A test that declares its clock starts there (virtual time, core/run/virtual-clock.ts).
  const root = chainEntry(runId, null, 'run.started', started, o.test?.clock ?? fx.at(0));
  const state = startState(root.entry);
  const prefix = o.prefix ?? [];
  const writer = new RunWriter(
    ctx.store.ledger,
    state,
    null,
    // Inherited entries keep their recorded times; new ones are stamped now.
    (seq) => (seq <= prefix.length ? prefix[seq - 1]!.at : fx.at(seq)),
    {
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      eventId: event.id,
      eventType: event.type,
      ...(event.subject ? { subject: event.subject } : {}),
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
    },
  );
  writer.addRoot(root.stored);
  if (o.shadowWork) writer.queueShadowWork(o.shadowWork(runId));
  for (const e of prefix) writer.add(e.kind, e.payload as never);
  if (state.approval && !state.approval.decision) {
    const r = state.approval.request;
    writer.approvalOpened({
      tenant: version.tenant,
      runId,
      ...r,
      requestedAt: prefix.at(-1)?.at ?? root.entry.at,
    });
  }
  try {
    if (o.walk === false) {
      // Left for a worker: no lease, and the workers are woken in the same transaction.
      writer.leaseWith({ op: 'release' });
      await writer.commit();
    } else if (o.walk === 'background') {
      // The root is durable, under this process's lease, before the caller answers; then this
      // process walks on, as a walker that claimed it would, but without the claim and the reload.
      writer.leaseWith(ctx.inlineLease);
      await writer.commit();
      o.onWalk!(runId, walkInline(ctx, writer, version, true));
    } else await walkInline(ctx, writer, version, true);
  } catch (e) {
    const raced =
      isKeelError(e) && e.code === ErrorCode.headConflict
        ? await ctx.store.runs.getRun(version.tenant, runId)
        : undefined;
    if (raced) return { run: summaryOf(raced), created: false };
    throw e;
  }
  return { run: stateSummary(state), created: true };
}
