/**
 * The state of a run, folded from its ledger. The engine keeps one while it drives a run and
 * rebuilds it from the stored entries on resume, so both paths share this single fold.
 * Pure: entries in, state out. Never reads a clock or a store.
 */

import type { Digest } from '../canonical/index.ts';
import type {
  ChosenBranch,
  Entry,
  EventRecord,
  Head,
  ModelOutageSuspension,
  OutcomeUnknownSuspension,
  PayloadOf,
  RunMode,
  RunStatus,
  RunWrit,
  TestRef,
} from '../ledger/index.ts';
import type { ApprovalClock } from '../spec/index.ts';
import { applyDeltas, EMPTY_WORLD, type World } from '../world/index.ts';
import { addBudget, type WritBudget, ZERO_BUDGET } from '../writs/index.ts';
import { foldApprovalDeadline } from './approval-deadline-fold.ts';
import { fileStepOutput, foldLoopStarted } from './loop-fold.ts';
import { drawOnReservation, type Reserved, reserve } from './run-reservation.ts';
import { foldWait } from './wait-fold.ts';

export interface RunState {
  readonly runId: string;
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  /** Status of the pinned version when the run started. */
  readonly versionStatus: string;
  readonly event: EventRecord;
  status: RunStatus;
  head: Head;
  /** Outputs of completed steps, by step name, in completion order. */
  readonly outputs: Record<string, unknown>;
  /** The same outputs in the shape templates read them (`steps.<name>.output`), kept in step. */
  readonly stepScope: Record<string, { output: unknown }>;
  /** The resources the run has touched, folded from its steps' deltas. */
  world: World;
  readonly completed: Set<string>;
  /** The branch each recorded choice took (`branch.chosen`): the plan counts the others' steps as done. */
  readonly chosen: Record<string, ChosenBranch>;
  /** Each recorded loop's items, as resolved (`foreach.started`): its body runs once per item (loop-fold.ts). */
  readonly loops: Record<string, { readonly items: readonly unknown[] }>;
  /** Steps allowed so far (each counts against maxSteps). */
  stepsTaken: number;
  spentCents: number;
  /** What the run's model answers cost so far, in micro-dollars (`source.drawn` model.costMicroUsd). */
  modelMicroUsd: number;
  /** An approval requested and not yet resolved, or resolved and not yet acted on. */
  approval?: {
    request: PayloadOf<'approval.requested'>;
    decision?: PayloadOf<'approval.resolved'>;
    /**
     * Where a pending approval stands on its step's declared deadline (core/spec/approval-deadline.ts):
     * folded from the request's `deadline`, its reminders and its escalation. Absent: a simulated
     * run's assumed decision.
     */
    clock?: ApprovalClock & { readonly group?: string };
  };
  /**
   * A step allowed whose result is not recorded yet: its effect may or may not have happened. With
   * parallel branches several may be in flight (`flying`): this is the first of them, in the order
   * they were allowed, the one to settle next.
   */
  inFlight?: PayloadOf<'step.allowed'>;
  /** Every step allowed whose result is not recorded yet, by step, in the order allowed. */
  readonly flying: Map<string, PayloadOf<'step.allowed'>>;
  /** What the calls in flight may cost: a decision counts it as spent (two branches never both pass a cap). */
  inFlightCents: number;
  /**
   * A step failed or was refused and the run's end is not written yet: parallel branches hold it
   * until every call in flight is recorded (engine/parallel-step.ts; also after a crash between).
   */
  ending?: { readonly status: 'failed' | 'refused'; readonly reason: string };
  /** The parallel branches a `join: first` cut (`<parallel>&<branch>`): the plan counts their steps as done. */
  readonly cut: Set<string>;
  finished?: PayloadOf<'run.finished'>;
  /** Set while the run is suspended as outcome_unknown: the in-flight step waits to be reconciled. */
  suspended?: OutcomeUnknownSuspension;
  /** Set while the run is held (paused) because its model provider could not answer: resume asks again. */
  outage?: ModelOutageSuspension;
  /**
   * A simulated run's virtual clock (ms), folded: its test's declared `clock`, moved on to each
   * wait's end (a simulated run never sleeps: its clock jumps to the fire time). Undefined for a
   * live run, and for a simulated run that declared no clock and has not waited (it reads the real clock).
   */
  virtualNow?: number;
  /** When the run started (its root's time, ms): a wait for an event takes no arrival before it. */
  startedAtMs: number;
  /** The events (`source` + newline + `id`) earlier waits of this run took: a later wait never takes one again. */
  takenEvents: Set<string>;
  /** The wait the run is in (`wait.started` without its `wait.ended`), with its fire time in ms. */
  wait?: PayloadOf<'wait.started'> & { readonly fireAtMs: number };
  /** Source values drawn since the last decision: a resumed walk reuses them instead of drawing again. */
  drawsSinceDecision: PayloadOf<'source.drawn'>[];
  /** How many `source.drawn` entries the ledger holds (the ordinal of the next draw). */
  draws: number;
  /** Recorded outcomes (completed, failed or reconciled) per step, and approval requests per step. */
  readonly executions: Record<string, number>;
  readonly approvalRequests: Record<string, number>;
  /** The attempt number of the latest allow per step (a step reconciled as not having happened runs again). */
  readonly attempts: Record<string, number>;
  /** Reconciliations recorded per step. */
  readonly reconciliations: Record<string, number>;
  readonly forkOf?: PayloadOf<'run.started'>['forkOf'];
  readonly attemptOf?: string;
  /** The writ the run executes under, read from its root entry (so a resumed run has it too). */
  readonly writ?: RunWrit;
  /** The hash of the policy the run is pinned to, from its root entry (absent: none was pinned). */
  readonly policyHash?: Digest;
  /** A simulated run's mode (`test`, `shadow`), from its root; undefined for a live run. */
  readonly mode?: RunMode;
  /** A test run's test (its approvals decide what a person would be asked), from its root. */
  readonly test?: TestRef;
  /** A shadow run's live run, from its root. */
  readonly shadowOf?: string;
  /** The status a simulated run's checks judge it as (its root's `judgedAs`); else versionStatus. */
  readonly judgedAs?: string;
  /** Writ budget reserved for child runs by delegation steps (each child writ's whole budget). */
  reserved?: Reserved;
  /**
   * What this run reserved from its writ chain's shared budget (`step.allowed` `reserves`) and has
   * not used yet; zero once the run finished (the rest went back). Undefined: it never reserved
   * (no writ, a ledger from before shared budgets, or only inherited entries so far).
   */
  reservation?: WritBudget;
  /** What each allow in flight took from the reservation, by step: it goes back if the call never happened. */
  readonly reservationInFlight: Map<string, WritBudget>;
}

export function startState(root: Entry<'run.started'>): RunState {
  const p = root.payload;
  return {
    runId: root.runId,
    tenant: p.tenant,
    workflowId: p.workflowId,
    version: p.version,
    specHash: p.specHash,
    versionStatus: p.status,
    event: p.event,
    status: 'running',
    head: { seq: root.seq, hash: root.hash },
    outputs: {},
    stepScope: {},
    world: EMPTY_WORLD,
    completed: new Set(),
    chosen: {},
    loops: {},
    flying: new Map(),
    inFlightCents: 0,
    cut: new Set(),
    ending: undefined,
    stepsTaken: 0,
    spentCents: 0,
    modelMicroUsd: 0,
    drawsSinceDecision: [],
    draws: 0,
    executions: {},
    approvalRequests: {},
    attempts: {},
    reconciliations: {},
    // Every field, set or not, in one literal: all runs' states share one shape (plain runs and
    // governed, forks and delegated children), so the code reading them stays monomorphic.
    approval: undefined,
    inFlight: undefined,
    finished: undefined,
    suspended: undefined,
    outage: undefined,
    wait: undefined,
    startedAtMs: Date.parse(root.at),
    takenEvents: new Set(),
    virtualNow: p.mode && p.test?.clock ? Date.parse(p.test.clock) : undefined,
    forkOf: p.forkOf || undefined,
    attemptOf: p.attemptOf || undefined,
    writ: p.writ || undefined,
    policyHash: p.policy || undefined,
    mode: p.mode || undefined,
    test: p.test || undefined,
    shadowOf: p.shadowOf || undefined,
    judgedAs: p.judgedAs || undefined,
    reserved: undefined,
    reservation: undefined,
    reservationInFlight: new Map(),
  };
}

/** Applies one entry (after the root) to the state, in place. */
export function applyEntry(s: RunState, e: Entry): void {
  s.head = { seq: e.seq, hash: e.hash };
  if (e.kind === 'source.drawn') {
    s.draws++;
    const p = e.payload as PayloadOf<'source.drawn'>;
    s.drawsSinceDecision.push(p);
    if (p.model) s.modelMicroUsd += p.model.costMicroUsd;
    return;
  }
  // A pause is a person's hold on the run, not a decision: draws before it stay unused. So is a
  // hold for a model outage: the slots answered before it are not asked again on resume.
  if (e.kind === 'run.paused') {
    s.status = 'paused';
    return;
  }
  if (
    e.kind === 'run.suspended' &&
    (e.payload as PayloadOf<'run.suspended'>).reason === 'model_unavailable'
  ) {
    s.outage = e.payload as ModelOutageSuspension;
    s.status = 'paused';
    return;
  }
  if (e.kind === 'run.resumed') {
    s.status = s.wait ? 'waiting' : 'running';
    s.outage = undefined;
    return;
  }
  // Any other entry is a decision or its consequence: draws before it were used by it.
  s.drawsSinceDecision = [];
  switch (e.kind) {
    case 'step.allowed': {
      const p = e.payload as PayloadOf<'step.allowed'>;
      s.flying.set(p.step, p);
      s.inFlight = s.flying.values().next().value;
      s.inFlightCents += p.costCents;
      s.stepsTaken++;
      s.attempts[p.step] = p.attempt;
      if (p.delegation) s.reserved = reserve(s.reserved, p.delegation.writ.leaf);
      // An allow a fork inherited was reserved (and is given back) by the fork's source.
      if (s.forkOf && e.seq < s.forkOf.fromSeq) s.reservationInFlight.delete(p.step);
      else drawOnReservation(s, p);
      if (s.approval?.request.proposalId === p.proposalId) s.approval = undefined;
      s.status = 'running';
      break;
    }
    case 'step.completed': {
      const p = e.payload as PayloadOf<'step.completed'>;
      fileStepOutput(s, p.step, p.output);
      if (p.deltas) {
        // Deltas were applied on a trial world before the entry was written; a ledger whose
        // deltas do not apply is caught by verify, and the world then stays as it was.
        const r = applyDeltas(s.world, p.deltas);
        if (r.ok) s.world = r.world;
      }
      s.completed.add(p.step);
      s.spentCents += p.costCents;
      landed(s, p.step);
      s.executions[p.step] = (s.executions[p.step] ?? 0) + 1;
      break;
    }
    case 'step.failed': {
      const p = e.payload as PayloadOf<'step.failed'>;
      // A failed call was made: what it took from the reservation stays taken.
      landed(s, p.step);
      if (p.error.code !== 'cancelled')
        s.ending ??= { status: 'failed', reason: `${p.tool}: ${p.error.message}` };
      s.executions[p.step] = (s.executions[p.step] ?? 0) + 1;
      break;
    }
    case 'approval.requested': {
      const p = e.payload as PayloadOf<'approval.requested'>;
      s.approval = {
        request: p,
        clock: {
          sinceMs: Date.parse(e.at),
          escalated: false,
          ...(p.deadline !== undefined ? { deadlineMs: Date.parse(p.deadline) } : {}),
        },
      };
      s.status = 'waiting_approval';
      s.approvalRequests[p.step] = (s.approvalRequests[p.step] ?? 0) + 1;
      break;
    }
    case 'approval.simulated': {
      // Nobody was asked: the request and the decision the run assumed, at once.
      const { assumed, by, ...request } = e.payload as PayloadOf<'approval.simulated'>;
      s.approval = { request, decision: { proposalId: request.proposalId, decision: assumed, by } };
      s.approvalRequests[request.step] = (s.approvalRequests[request.step] ?? 0) + 1;
      break;
    }
    case 'step.suppressed': {
      // The tool did not act and the step has no output; the plan goes on past it.
      const p = e.payload as PayloadOf<'step.suppressed'>;
      s.completed.add(p.step);
      landed(s, p.step);
      s.executions[p.step] = (s.executions[p.step] ?? 0) + 1;
      break;
    }
    case 'approval.resolved': {
      const p = e.payload as PayloadOf<'approval.resolved'>;
      // A decision counts only for the proposal that is waiting; anything else is ignored.
      if (s.approval && s.approval.request.proposalId === p.proposalId) {
        s.status = 'running';
        // A branch fork never acts on a decision it inherited: the person decided for the source
        // run, which acted on it there. The fork proposes the step again, and a guarded step asks again.
        if (s.forkOf?.mode === 'branch' && e.seq < s.forkOf.fromSeq) s.approval = undefined;
        else s.approval.decision = p;
      }
      break;
    }
    case 'approval.reminded':
    case 'approval.escalated':
    case 'approval.expired':
      foldApprovalDeadline(s, e);
      break;
    case 'step.refused': {
      const p = e.payload as PayloadOf<'step.refused'>;
      s.ending ??= { status: 'refused', reason: `${p.tool}: ${p.message}` };
      if (s.approval?.request.proposalId === (e.payload as PayloadOf<'step.refused'>).proposalId)
        s.approval = undefined;
      break;
    }
    case 'run.finished': {
      const p = e.payload as PayloadOf<'run.finished'>;
      s.finished = p;
      s.status = p.status;
      s.ending = undefined;
      // What the run reserved and did not use goes back to its writs with this entry (RunWriter).
      if (s.reservation) s.reservation = ZERO_BUDGET;
      // A finished run waits for nothing: a cancelled run's open approval or suspension is void.
      s.approval = undefined;
      s.suspended = undefined;
      s.outage = undefined;
      break;
    }
    case 'wait.started':
    case 'wait.ended':
      foldWait(s, e);
      break;
    case 'step.skipped':
      // Its if was false: it called nothing and has no output (a later read finds it missing).
      s.completed.add((e.payload as PayloadOf<'step.skipped'>).step);
      break;
    case 'foreach.started':
      foldLoopStarted(s, e);
      break;
    case 'branch.chosen': {
      const p = e.payload as PayloadOf<'branch.chosen'>;
      s.chosen[p.step] = p.branch;
      s.completed.add(p.step);
      break;
    }
    case 'parallel.joined': {
      const p = e.payload as PayloadOf<'parallel.joined'>;
      for (const b of p.cut ?? []) s.cut.add(`${p.step}&${b}`);
      s.completed.add(p.step);
      break;
    }
    case 'run.suspended':
      s.suspended = e.payload as OutcomeUnknownSuspension;
      s.status = 'outcome_unknown';
      break;
    case 'step.reconciled': {
      const p = e.payload as PayloadOf<'step.reconciled'>;
      if (p.happened) {
        fileStepOutput(s, p.step, p.output ?? null);
        s.completed.add(p.step);
        s.spentCents += s.flying.get(p.step)?.costCents ?? 0;
      } else {
        // The effect never happened: the allow is void and does not count against maxSteps, and
        // what it took from the reservation is the run's again (the next attempt draws on it).
        s.stepsTaken--;
        const back = s.reservationInFlight.get(p.step);
        if (back) s.reservation = addBudget(s.reservation ?? ZERO_BUDGET, back);
      }
      landed(s, p.step);
      s.suspended = undefined;
      s.status = 'running';
      s.executions[p.step] = (s.executions[p.step] ?? 0) + 1;
      s.reconciliations[p.step] = (s.reconciliations[p.step] ?? 0) + 1;
      break;
    }
    default:
      break;
  }
}

export function foldRun(entries: readonly Entry[]): RunState {
  const [root, ...rest] = entries;
  if (root?.kind !== 'run.started') throw new Error('foldRun: a ledger starts with run.started');
  const s = startState(root as Entry<'run.started'>);
  for (const e of rest) applyEntry(s, e);
  return s;
}

/** A step's call is no longer in flight (its outcome, or what a reconciliation found, is recorded). */
function landed(s: RunState, step: string): void {
  const a = s.flying.get(step);
  if (a) s.inFlightCents -= a.costCents;
  s.flying.delete(step);
  s.inFlight = s.flying.values().next().value;
  s.reservationInFlight.delete(step);
}
