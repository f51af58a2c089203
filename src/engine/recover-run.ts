/**
 * Recovering a run: continuing it from its ledger head after a crash — by the worker that claimed
 * it (passing the ledger its claim returned; the worker holds and renews the lease), or here,
 * where this process first claims the run's lease (free, expired, its own, or held by a process
 * known to be gone) and holds it while it walks. What it acts on is checked first, as every action
 * checks it. It never walks a run twice in one process, nor one a live walker elsewhere holds.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { StoredEntry } from '../core/ledger/index.ts';
import { foldRun, type RunState } from '../core/run/index.ts';
import type { EngineContext } from './engine-context.ts';
import { checkEvidence, loadRun } from './load-run.ts';
import { checkClaimedLedger, refuseUnverified, rowProblem } from './run-integrity.ts';
import { type RunSummary, stateSummary } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import type { WalkOptions } from './walk.ts';
import { walkInline } from './walk-inline.ts';

/** How a run is recovered: by a worker, with the ledger its claim returned (`entries`). */
export type RecoverOptions = WalkOptions & { readonly entries?: readonly StoredEntry[] };

/**
 * Continues the run, or leaves it as it is: a run leased by a live walker elsewhere (run_state),
 * and runs waiting for a person or a timer not yet due, suspended, paused and finished runs.
 */
export async function recoverRun(
  ctx: EngineContext,
  tenant: string,
  runId: string,
  o: RecoverOptions,
): Promise<RunSummary> {
  const { store } = ctx;
  // The ledger alone says where the run is and which version it is pinned to: a worker passes
  // the ledger its claim returned, and the version comes from the cache — no query at all.
  let stored = o.entries;
  let leased = false;
  if (!stored && !ctx.walks.walking(tenant, runId)) {
    const claimed = await claim(ctx, tenant, runId);
    if (claimed) {
      stored = claimed.entries;
      leased = true;
    }
  }
  let state: RunState;
  if (stored) {
    // Claimed with its ledger (here or by a worker): the chain and the root's identity must hold,
    // then what every action checks: the row, the pinned spec, the approvals rows, the checkpoint.
    const entries = checkClaimedLedger(tenant, runId, stored);
    state = foldRun(entries);
    try {
      const run = await store.runs.getRun(tenant, runId);
      if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
      const problem = rowProblem(run, entries, state);
      if (problem) throw refuseUnverified(runId, problem);
      await checkEvidence(ctx, run, state, stored);
    } catch (e) {
      if (leased) await store.queue.releaseRun(ctx.inlineLease.owner, runId).catch(() => false);
      throw e;
    }
  } else {
    // Not claimed here: a walker elsewhere (or this process) may be appending to the run while it
    // is read. `loadRun` reads the row, then its ledger, and reads both again when the ledger has
    // moved past the row's head in between — a run being walked is not a run that fails to verify.
    ({ state } = await loadRun(ctx, tenant, runId));
  }
  // An approval with a deadline (approval-deadline.ts) is walked when claimed: its deadline may be due.
  const deadline = state.approval?.clock?.deadlineMs !== undefined && (o.entries !== undefined || leased);
  if (
    state.finished ||
    state.suspended ||
    state.status === 'paused' ||
    (state.approval && !state.approval.decision && !deadline)
  )
    return stateSummary(state);
  // A timer not due yet (a claim takes a waiting run only once it is): it waits, nothing to do.
  if (state.status === 'waiting' && !o.entries && !leased) return stateSummary(state);
  if (!o.entries && !leased) {
    const here = ctx.walks.walking(tenant, runId);
    throw new KeelError(
      ErrorCode.runState,
      here
        ? `run ${runId} is being walked by this process already`
        : `run ${runId} is being walked by another process (its lease is live); it goes on there, or can be recovered here once that lease expires`,
      { runId, status: state.status },
    );
  }
  const version = await ctx.pinned.get(tenant, runId, state);
  const writer = new RunWriter(store.ledger, state, state.head, ctx.live.at);
  await walkInline(ctx, writer, version, leased, o);
  // Walked and found still waiting (woken early): the lease this process took is given back.
  if (leased && (state.status === 'waiting' || state.status === 'waiting_approval'))
    await store.queue.releaseRun(ctx.inlineLease.owner, runId).catch(() => false);
  return stateSummary(state);
}

/**
 * Claims one running run's lease for this process's inline walks: a free or expired lease, its
 * own (no walk of it runs here), or one whose holder is known to be gone. Undefined when the run
 * is not running or a live walker elsewhere holds it.
 */
async function claim(ctx: EngineContext, tenant: string, runId: string) {
  const { owner, ms } = ctx.inlineLease;
  const take = (takeOver: readonly string[]) =>
    ctx.store.queue.claimRuns(owner, ms, 1, ctx.leaseClock.now(), { tenant, runId, takeOver });
  const [mine] = await take([owner]);
  if (mine) return mine;
  const gone = await ctx.goneOwners();
  return gone.length > 0 ? (await take([owner, ...gone]))[0] : undefined;
}
