/**
 * Runs made from another run: a fork, which inherits the source run's entries before `fromSeq` and
 * continues from there (replay: served from the source's record; branch: live), and a rerun, a new
 * live attempt of the same version and event. Both check the request, read what they inherit and
 * name the new run; create-run.ts creates and walks it. Never appends to the source run.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { decodeEntry, type EventRecord, type PayloadOf, type TestRef } from '../core/ledger/index.ts';
import { attemptRunIdFor, forkRunIdFor } from '../core/run/index.ts';
import { createRun } from './create-run.ts';
import type { EngineContext } from './engine-context.ts';
import { loadRun } from './load-run.ts';
import { currentPolicy } from './run-admission.ts';
import { refuseUnverified } from './run-integrity.ts';
import type { RunSummary } from './run-summary.ts';
import { verifyRun } from './verify-run.ts';

export interface ForkOptions {
  readonly fromSeq: number;
  readonly mode: 'replay' | 'branch';
  /** branch only: start from another event (what-if). */
  readonly event?: EventRecord;
  /** branch only: continue on another published version of the same workflow. */
  readonly version?: number;
  /** false: create the fork with its inherited entries and leave the walk to `resume` or a worker. */
  readonly walk?: boolean;
}

/**
 * A new run that inherits the source run's entries before `fromSeq` under a root naming the
 * source, then continues: `replay` serves every source value and tool outcome from the source's
 * record (failing closed where none was recorded); `branch` draws and executes live, and acts on
 * no approval decided before the fork point (its guarded steps ask again; run-state.ts). The
 * source is verified first, whole.
 */
export async function forkRun(
  ctx: EngineContext,
  tenant: string,
  sourceRunId: string,
  o: ForkOptions,
): Promise<{ run: RunSummary; created: boolean }> {
  const run = await ctx.store.runs.getRun(tenant, sourceRunId);
  if (!run) throw new KeelError(ErrorCode.notFound, `run ${sourceRunId} not found`, { runId: sourceRunId });
  const last = run.head.seq;
  if (!Number.isSafeInteger(o.fromSeq) || o.fromSeq < 0 || o.fromSeq > last + 1) {
    throw new KeelError(
      ErrorCode.usage,
      `fromSeq: expected an integer from 0 to ${last + 1}, got ${o.fromSeq}`,
      {
        field: 'fromSeq',
      },
    );
  }
  if (o.mode === 'replay' && (o.event !== undefined || o.version !== undefined)) {
    throw new KeelError(
      ErrorCode.usage,
      'a replay fork serves the recorded run; a new event or version needs mode branch',
      {
        field: 'mode',
      },
    );
  }
  // A fork inherits the source's history: a source that does not verify is never forked (its edit
  // would be laundered into a new chain that verifies).
  const verified = await verifyRun(ctx.store, run, ctx.witness ? { witness: ctx.witness } : {});
  if (!verified.ok) throw refuseUnverified(sourceRunId, verified.failure);
  const version = await ctx.store.registry.getVersion(tenant, run.workflowId, o.version ?? run.version);
  if (!version || (o.version === undefined && version.specHash !== run.specHash)) {
    throw new KeelError(
      ErrorCode.notFound,
      `workflow ${run.workflowId} v${o.version ?? run.version} not found`,
      {
        version: o.version ?? run.version,
      },
    );
  }
  // Only the inherited prefix is read to create the fork: its cost grows with fromSeq, not with the history.
  const prefix = (await ctx.store.ledger.readEntries(tenant, sourceRunId, 0, Math.max(o.fromSeq, 1))).map(
    decodeEntry,
  );
  const root = prefix[0]!.payload as PayloadOf<'run.started'>;
  const event = o.event ?? root.event;
  const runId = forkRunIdFor(tenant, sourceRunId, o.fromSeq, o.mode, version.specHash, event);
  return createRun(ctx, runId, version, event, {
    forkOf: { runId: sourceRunId, fromSeq: o.fromSeq, mode: o.mode },
    // Replay keeps the recorded status (approver eligibility is fixed history); a branch runs under today's.
    status: o.mode === 'replay' ? root.status : version.status,
    prefix: prefix.slice(1),
    walk: o.walk !== false,
    // A fork executes under the source's writ; its inherited entries count against the budget.
    ...(root.writ ? { writ: root.writ } : {}),
    // A fork of a simulated run is simulated too: it never acts either (it shadows nothing itself).
    ...simulatedOf(root),
    // A replay is judged by the policy the source was pinned to; a branch by today's.
    ...(o.mode === 'replay' ? (root.policy ? { policy: root.policy } : {}) : currentPolicy(ctx, tenant)),
  });
}

/** A diagnostic re-execution: a new, live run of the same version and event, linked by `attemptOf`. */
export async function rerunRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
): Promise<{ run: RunSummary; created: boolean }> {
  const source = await loadRun(ctx, tenant, runId);
  const root = source.entries[0]!.payload as PayloadOf<'run.started'>;
  for (let attempt = 2; ; attempt++) {
    const id = attemptRunIdFor(runId, attempt);
    if (await ctx.store.runs.getRun(tenant, id)) continue;
    return createRun(ctx, id, source.version, root.event, {
      attemptOf: runId,
      attempt,
      ...(root.writ ? { writ: root.writ } : {}),
      ...simulatedOf(root),
      ...currentPolicy(ctx, tenant),
    });
  }
}

/** What a fork or re-execution of a simulated run keeps of its mode: simulated, never live. */
function simulatedOf(root: PayloadOf<'run.started'>): {
  mode?: 'test' | 'shadow';
  test?: TestRef;
  judgedAs?: 'LIVE' | 'AUTONOMOUS';
} {
  if (!root.mode) return {};
  return {
    mode: root.mode,
    ...(root.test ? { test: root.test } : {}),
    ...(root.judgedAs ? { judgedAs: root.judgedAs } : {}),
  };
}
