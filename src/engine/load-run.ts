/**
 * A run read for acting on it: its row, its ledger, its pinned version and its folded state, after
 * everything `verify` checks — the ledger and the row (run-integrity.ts), the pinned spec, the
 * pending-approval rows, the last checkpointed head and the witness (run-evidence.ts). Another
 * tenant's run is "not found"; a run that does not verify is refused (`ledger_invalid`) before
 * anything is done. Reads only.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { StoredEntry } from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { RunRecord, Store } from '../ports/index.ts';
import type { EngineContext } from './engine-context.ts';
import { HEAD_RETRIES } from './head-moved.ts';
import { runEvidenceProblem } from './run-evidence.ts';
import { checkStoredRun, openRequest, refuseUnverified } from './run-integrity.ts';

export async function loadRun(ctx: EngineContext, tenant: string, runId: string) {
  const { store } = ctx;
  const read = await readRunLedger(store, tenant, runId);
  if (!read) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
  const { run, stored } = read;
  const version = await store.registry.getVersion(tenant, run.workflowId, run.version);
  // The row is checked against its root before the version it names is relied on.
  const checked = checkStoredRun(run, stored, version);
  await checkEvidence(ctx, run, checked.state, stored);
  return { run, stored, ...checked };
}

/**
 * A run's row and its ledger, read in two statements (undefined: no such run). A ledger past the
 * row's head may only mean a walker appended between the two reads: both are read again (a
 * bounded number of times) before the caller sees a row that disagrees with its ledger. A row
 * that stays behind, or a ledger short of the row's head, is returned as read: verifying it fails.
 */
export async function readRunLedger(
  store: Pick<Store, 'runs' | 'ledger'>,
  tenant: string,
  runId: string,
): Promise<{ run: RunRecord; stored: StoredEntry[] } | undefined> {
  let run = await store.runs.getRun(tenant, runId);
  if (!run) return undefined;
  let stored = await store.ledger.readEntries(tenant, runId);
  for (let i = 0; i < HEAD_RETRIES && stored.length > run.head.seq + 1; i++) {
    const now = await store.runs.getRun(tenant, runId);
    if (!now || now.head.seq === run.head.seq) break;
    run = now;
    stored = await store.ledger.readEntries(tenant, runId);
  }
  return { run, stored };
}

/** A run as `loadRun` reads it. */
export type LoadedRun = Awaited<ReturnType<typeof loadRun>>;

/**
 * What `verify` checks beside the ledger and row, before any action: the pending-approval rows,
 * the last checkpointed head, the witness (run-evidence.ts). Throws `ledger_invalid`.
 */
export async function checkEvidence(
  ctx: EngineContext,
  run: Pick<RunRecord, 'tenant' | 'runId'>,
  state: RunState,
  stored: readonly StoredEntry[],
): Promise<void> {
  const problem = await runEvidenceProblem(
    ctx.store,
    run,
    state.head,
    openRequest(state),
    (seq) => stored[seq]?.hash,
    ctx.witness,
  );
  if (problem) throw refuseUnverified(run.runId, problem);
}
