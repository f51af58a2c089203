/**
 * `verify` for a stored run, in one streaming pass over its ledger: integrity of the stored bytes
 * (LedgerVerifier), then what the entries say — every step's deltas apply to the world folded so
 * far, the stored run row's status matches the ledger's, and (when pinned) the engine version.
 * Reads the ledger in pages, so memory stays flat however long it is. Never executes anything.
 */
import {
  LedgerVerifier,
  type PayloadOf,
  type VerifyFailureCode,
  type VerifyResult,
} from '../core/ledger/index.ts';
import { StatusFold } from '../core/run/index.ts';
import { applyDeltas, EMPTY_WORLD, type World } from '../core/world/index.ts';
import type { RunRecord, Store } from '../ports/index.ts';

/** Entries read per page: bounds memory for ledgers of any length. */
const PAGE = 250;

export async function verifyRun(
  store: Store,
  run: RunRecord,
  o: { engine?: string } = {},
): Promise<VerifyResult> {
  const status = new StatusFold();
  let engineOf: string | undefined;
  let world: World = EMPTY_WORLD;
  let deltaFailure: { code: VerifyFailureCode; seq: number; message: string } | undefined;
  const verifier = new LedgerVerifier(run.runId, (kind, payload, seq) => {
    if (seq === 0) engineOf = (payload as PayloadOf<'run.started'>).engine;
    status.apply(kind, payload);
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
    const page = await store.readEntries(run.tenant, run.runId, from, PAGE);
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
  if (status.status !== run.status) {
    return fail(
      'status_mismatch',
      result.head.seq,
      `the run is stored as ${run.status} but its ledger says ${status.status}`,
    );
  }
  if (o.engine !== undefined && engineOf !== o.engine) {
    return fail(
      'engine_drift',
      0,
      `the run was recorded by ${engineOf}, not ${o.engine}; replay it under the engine that recorded it`,
    );
  }
  return result;
}
