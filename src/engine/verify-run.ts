/**
 * `verify` for a stored run, in one streaming pass over its ledger: integrity of the stored bytes
 * (LedgerVerifier), then what the entries say — every step's deltas apply to the world folded so
 * far — then what the rows beside the ledger must agree with (run-integrity.ts): the root derives
 * the run's id and matches every identity column of the run row, the row's status is the ledger's,
 * the pinned spec hashes to its recorded hash, the pending-approval rows say what the ledger says,
 * the ledger extends the head its last checkpoint recorded, the store's checkpoint chain holds
 * what the witness keeps (given one: run-evidence.ts); and, when asked, the engine version. Reads the ledger in pages, so memory stays flat however long
 * it is. Never executes anything.
 */
import {
  LedgerVerifier,
  type PayloadOf,
  type VerifyFailureCode,
  type VerifyResult,
} from '../core/ledger/index.ts';
import { ApprovalDeadlineCheck, BranchCheck, StatusFold } from '../core/run/index.ts';
import { applyDeltas, EMPTY_WORLD, type World } from '../core/world/index.ts';
import type { CheckpointWitness, RunRecord, Store } from '../ports/index.ts';
import { runEvidenceProblem } from './run-evidence.ts';
import { rootProblem, specProblem } from './run-integrity.ts';

/** Entries read per page: bounds memory for ledgers of any length. */
const PAGE = 250;

/** How often verify re-reads a run row that a live walker moved while its ledger was read. */
const MOVED_ROW_RETRIES = 5;

export async function verifyRun(
  store: Store,
  run: RunRecord,
  o: { engine?: string; witness?: CheckpointWitness } = {},
): Promise<VerifyResult> {
  for (let attempt = 0; ; attempt++) {
    const result = await verifyOnce(store, run, o);
    // A ledger longer than the row says may only mean a walker appended after the row was read:
    // read the row again, and judge the run by it if it moved (a bounded number of times).
    if (result.ok || result.entries <= run.head.seq + 1 || attempt >= MOVED_ROW_RETRIES) return result;
    const now = await store.runs.getRun(run.tenant, run.runId);
    if (!now || now.head.seq === run.head.seq) return result;
    run = now;
  }
}

async function verifyOnce(
  store: Store,
  run: RunRecord,
  o: { engine?: string; witness?: CheckpointWitness } = {},
): Promise<VerifyResult> {
  const status = new StatusFold();
  const branches = new BranchCheck();
  const deadlines = new ApprovalDeadlineCheck();
  let root: PayloadOf<'run.started'> | undefined;
  let world: World = EMPTY_WORLD;
  let deltaFailure: { code: VerifyFailureCode; seq: number; message: string } | undefined;
  const verifier = new LedgerVerifier(run.runId, (kind, payload, seq, at) => {
    if (seq === 0) root = payload as PayloadOf<'run.started'>;
    status.apply(kind, payload);
    branches.apply(kind, payload, seq);
    deadlines.apply(kind, payload, seq, at);
    const deltas = kind === 'step.completed' ? (payload as PayloadOf<'step.completed'>).deltas : undefined;
    if (deltas && !deltaFailure) {
      const r = applyDeltas(world, deltas);
      if (r.ok) world = r.world;
      else
        deltaFailure = {
          code: r.failure.code,
          seq,
          message: `step.completed at seq ${seq}: ${r.failure.message}`,
        };
    }
  });
  for (let from = 0; ; ) {
    const page = await store.ledger.readEntries(run.tenant, run.runId, from, PAGE);
    const ok = page.every((e) => verifier.push(e));
    if (!ok || page.length < PAGE) break;
    from += page.length;
    // A turn of the event loop between pages lets the garbage collector finish its concurrent work;
    // without it, a long synchronous stream of pages grows the heap long before V8 collects.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const result = verifier.result(run.head);
  if (!result.ok) {
    // The earliest problem wins: a delta that failed before the integrity failure is reported first.
    return deltaFailure && deltaFailure.seq < result.failure.seq
      ? { ...result, failure: deltaFailure }
      : result;
  }
  const fail = (code: VerifyFailureCode, seq: number, message: string): VerifyResult => ({
    ok: false,
    entries: result.entries,
    failure: { code, seq, message },
  });
  if (deltaFailure) return fail(deltaFailure.code, deltaFailure.seq, deltaFailure.message);
  const version = await store.registry.getVersion(run.tenant, run.workflowId, run.version);
  const rows =
    rootProblem(run, root!) ??
    specProblem(run, version) ??
    // Each recorded branch decision follows from the run's values and the pinned spec's conditions.
    branches.result(version?.spec) ??
    // Each recorded approval deadline follows from the recorded times and the spec's approval.
    deadlines.result(version?.spec) ??
    (await runEvidenceProblem(
      store,
      run,
      result.head,
      status.open,
      async (seq) => (await store.ledger.readEntries(run.tenant, run.runId, seq, 1))[0]?.hash,
      o.witness,
    ));
  if (rows) return fail(rows.code, rows.seq, rows.message);
  if (status.status !== run.status) {
    return fail(
      'status_mismatch',
      result.head.seq,
      `the run is stored as ${run.status} but its ledger says ${status.status}`,
    );
  }
  if (o.engine !== undefined && root!.engine !== o.engine) {
    return fail(
      'engine_drift',
      0,
      `the run was recorded by ${root!.engine}, not ${o.engine}; replay it under the engine that recorded it`,
    );
  }
  return result;
}
