/**
 * The kinds of ledger entry and the shape of each payload.
 *
 * This table is the ledger's schema: verification checks every stored payload against its kind, so
 * an entry whose bytes hash correctly but say something malformed is still rejected. Adding a kind
 * or a required field changes what old ledgers verify against: add optional fields instead.
 * The kinds come in families, each with its payloads and shapes in its own file: the run lifecycle
 * (run-entries.ts), steps (step-entries.ts), approvals (approval-entries.ts), sources
 * (source-entries.ts), the branches of the declared control flow (branch-entries.ts), waits
 * (wait-entries.ts) and loops (loop-entries.ts); the order of the table here is the order every edge lists the kinds in.
 */
import { APPROVAL_SHAPES, type ApprovalPayloads } from './approval-entries.ts';
import { BRANCH_SHAPES, type BranchPayloads, branchProblem } from './branch-entries.ts';
import { type Shape, shapeProblem } from './entry-shape.ts';
import { LOOP_SHAPES, type LoopPayloads, loopProblem } from './loop-entries.ts';
import { RUN_SHAPES, type RunPayloads } from './run-entries.ts';
import { SOURCE_SHAPES, type SourcePayloads } from './source-entries.ts';
import { STEP_SHAPES, type StepPayloads } from './step-entries.ts';
import { WAIT_SHAPES, type WaitPayloads } from './wait-entries.ts';

/** Every entry's payload, by kind. */
export interface Payloads
  extends RunPayloads,
    SourcePayloads,
    StepPayloads,
    ApprovalPayloads,
    BranchPayloads,
    WaitPayloads,
    LoopPayloads {}

export type EntryKind = keyof Payloads;
export type PayloadOf<K extends EntryKind> = Payloads[K];
/** A run suspended because a call's outcome is unknown (it waits to be reconciled). */
export type OutcomeUnknownSuspension = Extract<PayloadOf<'run.suspended'>, { reason: 'outcome_unknown' }>;
/** A run held because its model provider could not answer (it waits to be resumed). */
export type ModelOutageSuspension = Extract<PayloadOf<'run.suspended'>, { reason: 'model_unavailable' }>;

const SHAPES: { readonly [K in EntryKind]: Shape } = {
  'run.started': RUN_SHAPES['run.started'],
  'source.drawn': SOURCE_SHAPES['source.drawn'],
  'step.allowed': STEP_SHAPES['step.allowed'],
  'step.refused': STEP_SHAPES['step.refused'],
  'approval.requested': APPROVAL_SHAPES['approval.requested'],
  'approval.resolved': APPROVAL_SHAPES['approval.resolved'],
  'step.completed': STEP_SHAPES['step.completed'],
  'step.failed': STEP_SHAPES['step.failed'],
  'step.suppressed': STEP_SHAPES['step.suppressed'],
  'approval.simulated': APPROVAL_SHAPES['approval.simulated'],
  'run.finished': RUN_SHAPES['run.finished'],
  'run.suspended': RUN_SHAPES['run.suspended'],
  'step.reconciled': STEP_SHAPES['step.reconciled'],
  'run.paused': RUN_SHAPES['run.paused'],
  'run.resumed': RUN_SHAPES['run.resumed'],
  'step.skipped': BRANCH_SHAPES['step.skipped'],
  'branch.chosen': BRANCH_SHAPES['branch.chosen'],
  'wait.started': WAIT_SHAPES['wait.started'],
  'wait.ended': WAIT_SHAPES['wait.ended'],
  'parallel.joined': BRANCH_SHAPES['parallel.joined'],
  'approval.reminded': APPROVAL_SHAPES['approval.reminded'],
  'approval.escalated': APPROVAL_SHAPES['approval.escalated'],
  'approval.expired': APPROVAL_SHAPES['approval.expired'],
  'foreach.started': LOOP_SHAPES['foreach.started'],
};

export const ROOT_KINDS: readonly EntryKind[] = ['run.started'];

/** Every kind of entry, in the table's order: for filters and validation at the edges. */
export const ENTRY_KINDS = Object.keys(SHAPES) as readonly EntryKind[];

export function isEntryKind(k: unknown): k is EntryKind {
  return typeof k === 'string' && Object.hasOwn(SHAPES, k);
}

/** An outcome_unknown suspension names the call whose outcome is unknown; a model outage names none. */
function suspensionProblem(p: Record<string, unknown>): string | undefined {
  if (p.reason === 'outcome_unknown') {
    if (p.proposalId === undefined) return 'proposalId is missing';
    if (p.idempotencyKey === undefined) return 'idempotencyKey is missing';
  } else if (p.proposalId !== undefined || p.idempotencyKey !== undefined)
    return 'a model_unavailable suspension names no call (proposalId, idempotencyKey)';
  return undefined;
}

/** Returns a description of the first way `payload` does not fit `kind`, or undefined when it fits. */
export function payloadProblem(kind: EntryKind, payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return 'payload is not an object';
  const p = payload as Record<string, unknown>;
  const shaped = shapeProblem(SHAPES[kind], p);
  if (shaped !== undefined) return shaped;
  if (kind === 'step.skipped' || kind === 'branch.chosen' || kind === 'parallel.joined')
    return branchProblem(kind, p);
  if (kind === 'foreach.started') return loopProblem(p);
  return kind === 'run.suspended' ? suspensionProblem(p) : undefined;
}
