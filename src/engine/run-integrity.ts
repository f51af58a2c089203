/**
 * What must hold of a stored run besides its hash chain, checked alike by `verify` and before
 * anything acts on a run (approve, deny, recover, reconcile, resume, cancel, pause, fork, rerun,
 * replay): its root derives its id and agrees with every identity column of its row, the row's
 * head and status are the ledger's, its pinned spec still hashes to the hash it records, and the
 * pending-approval rows (a projection) say what the ledger says.
 *
 * Pure comparisons over values already read; `refuse` turns a failure into the one error every
 * action throws (`ledger_invalid`, naming the seq and code), so nothing is done on a run that does
 * not verify.
 */
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import {
  type Entry,
  type PayloadOf,
  type StoredEntry,
  type VerifyFailure,
  verifiedEntries,
} from '../core/ledger/index.ts';
import { foldRun, type RunState, rootNamesRun } from '../core/run/index.ts';
import { specHash, type WorkflowSpec } from '../core/spec/index.ts';
import type { PendingApproval, RunRecord, VersionRecord } from '../ports/index.ts';

const failure = (code: VerifyFailure['code'], seq: number, message: string): VerifyFailure => ({
  code,
  seq,
  message,
});

/** The first way the run row's identity disagrees with its root (seq 0), or undefined. */
export function rootProblem(run: RunRecord, root: PayloadOf<'run.started'>): VerifyFailure | undefined {
  if (!rootNamesRun(root, run.runId))
    return failure(
      'identity_mismatch',
      0,
      `the root of run ${run.runId} does not derive its id: the ledger belongs to another run, or its root was rewritten`,
    );
  const columns: [string, unknown, unknown][] = [
    ['tenant', run.tenant, root.tenant],
    ['workflow_id', run.workflowId, root.workflowId],
    ['version', run.version, root.version],
    ['spec_hash', run.specHash, root.specHash],
    ['event_id', run.eventId, root.event.id],
    ['event_type', run.eventType, root.event.type],
    ['mode', run.mode ?? null, root.mode ?? null],
    ['shadow_of', run.shadowOf ?? null, root.shadowOf ?? null],
  ];
  // The subject is a search aid kept since schema v18 (PostgreSQL v17): a row that names one must name the root's
  // (a row without one, written before or by a hand-built fixture, is only left out of searches).
  if (run.subject !== undefined) columns.push(['subject', run.subject, root.event.subject]);
  for (const [column, row, ledger] of columns)
    if (row !== ledger)
      return failure(
        'row_mismatch',
        0,
        `the run row's ${column} is ${JSON.stringify(row)} but the ledger's root says ${JSON.stringify(ledger)}`,
      );
  return undefined;
}

/** Specs already found to hash to their recorded hash (a store hands out one object per spec hash). */
const hashedSpecs = new WeakMap<WorkflowSpec, Digest>();

/** What a stored spec hashes to now (hashed once per spec object). */
export function storedSpecHash(spec: WorkflowSpec): Digest {
  let actual = hashedSpecs.get(spec);
  if (actual === undefined) {
    actual = specHash(spec);
    hashedSpecs.set(spec, actual);
  }
  return actual;
}

/** The pinned version must exist and its spec must hash to the hash the run (and the version row) record. */
export function specProblem(
  run: Pick<RunRecord, 'workflowId' | 'version' | 'specHash'>,
  version: VersionRecord | undefined,
): VerifyFailure | undefined {
  const pinned = `${run.workflowId} v${run.version}`;
  if (!version) return failure('spec_mismatch', 0, `the pinned version ${pinned} is not in this store`);
  const actual = storedSpecHash(version.spec);
  if (version.specHash !== run.specHash || actual !== run.specHash)
    return failure(
      'spec_mismatch',
      0,
      `the stored spec of ${pinned} hashes to ${actual}, not to ${run.specHash} that the run is pinned to: the version was edited after publishing`,
    );
  return undefined;
}

/** The pending approval the ledger holds open (requested, not yet resolved), if any. */
export function openRequest(s: RunState): PayloadOf<'approval.requested'> | undefined {
  return s.approval && !s.approval.decision ? s.approval.request : undefined;
}

/** Whether a pending-approval row says exactly what the ledger's open request says. */
export function sameApproval(row: PendingApproval, request: PayloadOf<'approval.requested'>): boolean {
  return (
    row.proposalId === request.proposalId &&
    hashOf({ step: row.step, tool: row.tool, args: row.args, reason: row.reason, channel: row.channel }) ===
      hashOf({
        step: request.step,
        tool: request.tool,
        args: request.args,
        reason: request.reason,
        channel: request.channel,
      })
  );
}

/** The first way the run's pending-approval rows disagree with the ledger (seq: its head), or undefined. */
export function approvalRowsProblem(
  rows: readonly PendingApproval[],
  request: PayloadOf<'approval.requested'> | undefined,
  headSeq: number,
): VerifyFailure | undefined {
  if (!request) {
    const row = rows[0];
    return row
      ? failure(
          'projection_mismatch',
          headSeq,
          `the approvals table lists proposal ${row.proposalId} (${row.tool}) as pending, but the ledger waits for no approval`,
        )
      : undefined;
  }
  if (rows.length === 0)
    return failure(
      'projection_mismatch',
      headSeq,
      `the ledger waits for an approval of proposal ${request.proposalId} (${request.tool}), but the approvals table has no row for it`,
    );
  const wrong = rows.find((r) => !sameApproval(r, request));
  return wrong
    ? failure(
        'projection_mismatch',
        headSeq,
        `the approvals table's row for proposal ${wrong.proposalId} does not say what the ledger's request says (step, tool, arguments, reason or channel differ)`,
      )
    : undefined;
}

/** The error every action throws on a run that does not verify: nothing was done. */
export function refuseUnverified(runId: string, f: VerifyFailure): KeelError {
  return new KeelError(
    ErrorCode.ledgerInvalid,
    `run ${runId} fails verification at seq ${f.seq} (${f.code}): ${f.message}; nothing was done — see keel verify ${runId}`,
    { runId, code: f.code, seq: f.seq },
  );
}

/**
 * The check before acting on a stored run: its chain verifies up to the head its row records,
 * its root names it and agrees with the row, the row's status is the ledger's, and its pinned
 * spec hashes to the recorded hash. Returns the decoded entries and their fold; throws
 * `ledger_invalid` otherwise.
 */
export function checkStoredRun(
  run: RunRecord,
  stored: readonly StoredEntry[],
  version: VersionRecord | undefined,
): { entries: Entry[]; state: RunState; version: VersionRecord } {
  const { result, entries } = verifiedEntries(run.runId, stored, run.head);
  if (!result.ok) throw refuseUnverified(run.runId, result.failure);
  const state = foldRun(entries);
  const problem = rowProblem(run, entries, state) ?? specProblem(run, version);
  if (problem) throw refuseUnverified(run.runId, problem);
  return { entries, state, version: version! };
}

/**
 * The first way a run row disagrees with its ledger, already verified and folded: the root must
 * derive the run's id and agree with every identity column, the row's head and status must be
 * the ledger's. What a claimed run (its ledger verified by `checkClaimedLedger`) is checked with.
 */
export function rowProblem(
  run: RunRecord,
  entries: readonly Entry[],
  state: RunState,
): VerifyFailure | undefined {
  const root = rootProblem(run, entries[0]!.payload as PayloadOf<'run.started'>);
  if (root) return root;
  if (state.head.seq !== run.head.seq || state.head.hash !== run.head.hash)
    return failure(
      'head_mismatch',
      Math.min(state.head.seq, run.head.seq),
      `the run row's head is seq ${run.head.seq} (${run.head.hash}) but its ledger's is seq ${state.head.seq} (${state.head.hash})`,
    );
  if (state.status !== run.status)
    return failure(
      'status_mismatch',
      run.head.seq,
      `the run is stored as ${run.status} but its ledger says ${state.status}`,
    );
  return undefined;
}

/**
 * The check before walking a run claimed with its ledger (a worker's claim, or this process's):
 * the chain verifies from its root, and the root names this run in this tenant. The claim read the
 * row and the entries together, so the ledger is the run's; its row is not read again.
 */
export function checkClaimedLedger(tenant: string, runId: string, stored: readonly StoredEntry[]): Entry[] {
  const { result, entries } = verifiedEntries(runId, stored);
  if (!result.ok) throw refuseUnverified(runId, result.failure);
  const root = entries[0]!.payload as PayloadOf<'run.started'>;
  if (!rootNamesRun(root, runId) || root.tenant !== tenant)
    throw refuseUnverified(
      runId,
      failure(
        'identity_mismatch',
        0,
        `the root of run ${runId} does not derive its id in tenant ${tenant}: the ledger belongs to another run`,
      ),
    );
  return entries;
}
