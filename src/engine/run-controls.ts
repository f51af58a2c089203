/**
 * A person's controls over a run — `cancel`, `pause` and `resume`. A walk of the run in this
 * process (active-walks.ts) is stopped through its registration: `cancel` aborts it between steps
 * or inside a tool call, `pause` stops it at its next step boundary. A run walked elsewhere (a
 * worker) is fenced through its ledger head instead. Everything it does to a run goes through that
 * run's ledger; it never starts, forks or creates a run.
 */
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import { type CancelRequest, cancelReason, type RunState } from '../core/run/index.ts';
import type { ActiveWalk } from './active-walks.ts';
import type { EngineContext, WalkMode } from './engine-context.ts';
import { HEAD_RETRIES, headMoved } from './head-moved.ts';
import { loadRun } from './load-run.ts';
import { type RunSummary, stateSummary } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import { proceed } from './walk-inline.ts';

function terminal(runId: string, state: RunState, verb: string): KeelError {
  return new KeelError(ErrorCode.runTerminal, `run ${runId} is ${state.status}; it cannot be ${verb}`, {
    runId,
    status: state.status,
  });
}

/**
 * Cancels a run that has not finished, as `c.by` (with `c.reason`), and returns where it ended.
 *
 * - A run this process is walking now is aborted: the walk stops at its next step boundary or
 *   when the tool it is calling returns or throws (the tool sees `ctx.signal` abort; a call cut
 *   that way is recorded as `step.failed` with code `cancelled`), and finishes the run as
 *   cancelled. `cancel` waits for that walk to stop.
 * - Any other run — waiting for an approval, suspended as outcome_unknown, or running with
 *   nobody walking it here — gets `run.finished` cancelled appended at its head, closing its
 *   pending approval and releasing its lease in the same append. A run walked by another
 *   process (a worker) is treated the same way: this append names the head it read, so whoever
 *   appends second gets a head_conflict and the ledger never forks; stopping the worker's tool
 *   call mid-flight is not attempted. When the head moved, the run is re-read and cancel tries again.
 *
 * A finished run (completed, refused, failed or cancelled) throws `run_terminal`; an unknown
 * run, or another tenant's, `not_found`.
 */
export async function cancelRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  c: CancelRequest,
): Promise<RunSummary> {
  if (typeof c?.by !== 'string' || c.by.trim() === '')
    throw new KeelError(ErrorCode.usage, 'by: expected who cancels the run', { field: 'by' });
  if (c.reason !== undefined && typeof c.reason !== 'string')
    throw new KeelError(ErrorCode.usage, 'reason: expected a string', { field: 'reason' });
  const request: CancelRequest = c.reason ? { by: c.by, reason: c.reason } : { by: c.by };
  return atHead(ctx, tenant, runId, {
    doing: 'cancelling it',
    check: (state, stoppedHere) => {
      // The walk we aborted finished the run as cancelled: that is our cancellation.
      if (stoppedHere && state.status === 'cancelled') return stateSummary(state);
      if (state.finished) throw terminal(runId, state, 'cancelled');
      return undefined;
    },
    stop: (w) => w.controller.abort(request),
    write: (writer, state) => {
      const pending = state.approval && !state.approval.decision ? state.approval.request : undefined;
      writer.add('run.finished', {
        status: 'cancelled',
        outputs: state.outputs,
        reason: cancelReason(request),
      });
      if (pending) writer.approvalClosed(pending.proposalId);
    },
  });
}

/**
 * Pauses a running run as `c.by`: no step starts until `resume`. A walk of it in this process
 * finishes the step in progress (drain-current-node) and stops at the boundary; then `run.paused`
 * is appended at the head, releasing the lease. A run walked by another process (a worker) is
 * fenced like a cancel: this append names the head it read, the worker's next append conflicts
 * and it drops the run; a call it had started is then in flight and is settled on recovery as after
 * a crash. Only a running run can be paused: a finished one is `run_terminal`, any other
 * (waiting for an approval, suspended, already paused) `run_state`. With `drainPolicy:
 * 'immediate'` an idempotent tool's call in progress here is cut instead of awaited (walk.ts
 * `interrupt`); `run.paused` names the call that was in flight, if any.
 */
export async function pauseRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  c: { by: string; reason?: string; drainPolicy?: 'drain-current-node' | 'immediate' },
): Promise<RunSummary> {
  if (typeof c?.by !== 'string' || c.by.trim() === '')
    throw new KeelError(ErrorCode.usage, 'by: expected who pauses the run', { field: 'by' });
  const drainPolicy = c.drainPolicy ?? 'drain-current-node';
  if (drainPolicy !== 'drain-current-node' && drainPolicy !== 'immediate')
    throw new KeelError(ErrorCode.usage, 'drainPolicy: expected drain-current-node or immediate', {
      field: 'drainPolicy',
    });
  return atHead(ctx, tenant, runId, {
    doing: 'pausing it',
    check: (state) => {
      if (state.finished) throw terminal(runId, state, 'paused');
      if (state.status !== 'running')
        throw new KeelError(
          ErrorCode.runState,
          `run ${runId} is ${state.status}; only a running run can be paused`,
          {
            runId,
            status: state.status,
          },
        );
      return undefined;
    },
    stop: (w) => {
      w.pause = true;
      if (drainPolicy === 'immediate') w.cut.abort();
    },
    write: (writer, state) => {
      const cut = state.inFlight;
      writer.add('run.paused', {
        by: c.by,
        ...(c.reason ? { reason: c.reason } : {}),
        drainPolicy,
        ...(cut ? { interruptedNodeId: cut.step, interruptedAttempt: cut.attempt } : {}),
      });
    },
  });
}

/**
 * The loop `cancel` and `pause` share: read the run and let `check` refuse it (or say it is
 * already settled); stop this process's walks of it and read again once they have stopped;
 * otherwise `write` at its head, releasing the lease. This append names the head it read, so a
 * walker elsewhere that appends first makes it re-read and try again (up to HEAD_RETRIES times).
 */
async function atHead(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  o: {
    /** What the action does, for the error it ends in when the head keeps moving. */
    doing: string;
    check(state: RunState, stoppedHere: boolean): RunSummary | undefined;
    stop(walk: ActiveWalk): void;
    write(writer: RunWriter, state: RunState): void;
  },
): Promise<RunSummary> {
  let stoppedHere = false;
  for (let attempt = 0; ; attempt++) {
    // Read and checked like any action: a run that does not verify is refused (ledger_invalid).
    const { state } = await loadRun(ctx, tenant, runId);
    const settled = o.check(state, stoppedHere);
    if (settled) return settled;
    const walks = ctx.walks.of(tenant, runId);
    if (walks.length > 0) {
      for (const w of walks) o.stop(w);
      await Promise.all(walks.map((w) => w.stopped));
      stoppedHere = true;
      continue;
    }
    const writer = new RunWriter(ctx.store.ledger, state, state.head, ctx.live.at);
    o.write(writer, state);
    writer.leaseWith({ op: 'release' });
    try {
      await writer.commit();
      return stateSummary(state);
    } catch (e) {
      // The head moved (a walker appended, or someone else got there first): read the run again.
      if (!(isKeelError(e) && e.code === ErrorCode.headConflict)) throw e;
      if (attempt >= HEAD_RETRIES) throw headMoved(runId, o.doing, e);
    }
  }
}

/** Resumes a paused run as `by`, then walks on (inline) or leaves it to a worker (enqueue). */
export async function resumeRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  c: { by: string; walk?: WalkMode },
): Promise<RunSummary> {
  if (typeof c?.by !== 'string' || c.by.trim() === '')
    throw new KeelError(ErrorCode.usage, 'by: expected who resumes the run', { field: 'by' });
  const { state, version } = await loadRun(ctx, tenant, runId);
  if (state.finished) throw terminal(runId, state, 'resumed');
  if (state.status !== 'paused')
    throw new KeelError(ErrorCode.runState, `run ${runId} is ${state.status}, not paused`, {
      runId,
      status: state.status,
    });
  const writer = new RunWriter(ctx.store.ledger, state, state.head, ctx.live.at);
  writer.add('run.resumed', { by: c.by });
  await proceed(ctx, writer, version, c.walk);
  return stateSummary(state);
}
