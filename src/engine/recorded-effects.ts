/**
 * Effects served from a recorded ledger: replay reads only the record.
 *
 * The n-th source draw of the walk gets the recorded n-th draw; the n-th outcome of a step gets
 * that step's recorded n-th outcome; the n-th approval of a step gets its recorded decision. A
 * draw of another kind than recorded is a divergence; an outcome that was never recorded fails
 * closed with `replay_source_missing` — nothing is ever synthesised, and no handler is called.
 * A call whose outcome was never known (a crash, then a suspension or a tool's reconcile check)
 * is served as unknown, and the n-th reconciliation of its step as recorded. A cancellation is
 * served where it was recorded: when the walk's next entry would sit at the recorded
 * `run.finished` cancelled, the walk is told the run was cancelled there, with the recorded reason.
 * A call cut by an immediate pause (the pause recorded where its outcome would be) is served as
 * unknown there, and its outcome after the resume.
 *
 * Re-planning another version on the record (the replay gate, replan.ts) indexes it by call instead
 * (`indexLedger(entries, 'call')`): a call is served the outcome, approval and reconciliation the
 * record holds for the same tool with the same arguments (the n-th such call, the n-th such
 * outcome), whatever the step is named, so a renamed step still finds what its old self got;
 * a call the record never made has nothing to serve.
 *
 * A replay fork (`fork`) is a new run, not the source re-read: the source's cancellation is a
 * person's control of the source, so the fork does not inherit it, and a call that cancellation cut
 * has no outcome to serve. Where nothing is recorded, a read-only tool (`effect: read`: it changes
 * nothing outside the run) is called live; any other tool still fails closed.
 */
import { hashOf } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type {
  DrawnSource,
  Entry,
  ModelOutageSuspension,
  OutcomeUnknownSuspension,
  PayloadOf,
  StepMode,
} from '../core/ledger/index.ts';
import type { RunState } from '../core/run/index.ts';
import type { Effects, HoldEntry, StepOutcome } from './effects.ts';
import { type MintResult, recordedMints, servedMint } from './mint-delegation.ts';
import { type RecordedBudget, recordedBudgets } from './recorded-budget.ts';

export interface RecordedLedger {
  /**
   * What the maps of outcomes, approvals and reconciliations are keyed by: the step's name
   * (absent: a replay of the same version), or the call (`callKey`: re-planning another version).
   */
  readonly by?: 'call';
  readonly draws: PayloadOf<'source.drawn'>[];
  readonly outcomes: Map<string, StepOutcome[]>;
  readonly approvals: Map<string, PayloadOf<'approval.resolved'>[]>;
  readonly reconciliations: Map<string, PayloadOf<'step.reconciled'>[]>;
  /** The run's cancellation, if it was cancelled: the seq of its `run.finished` and the reason recorded. */
  readonly cancelled?: { readonly seq: number; readonly reason?: string };
  /** Pauses and resumes, by the seq they were recorded at. */
  readonly holds: Map<number, HoldEntry>;
  /** The ends of waits, by the seq they were recorded at: a wait for an event is served its recorded end. */
  readonly waitEnds?: Map<number, PayloadOf<'wait.ended'>>;
  /** Suspensions, by the seq they were recorded at (their message says what a check answered). */
  readonly suspensions?: Map<number, OutcomeUnknownSuspension>;
  /** Model outages, by the seq they were recorded at: where the live walk's model could not answer. */
  readonly outages?: Map<number, ModelOutageSuspension>;
  /** Delegation mints (mint-delegation.ts): the child each delegating allow named, or the refusal. */
  readonly mints?: Map<string, MintResult>;
  /** What writ budgets answered, by the seq of the allow or refusal they decided (writ-budget.ts). */
  readonly budgets?: Map<number, RecordedBudget>;
  /** The outcome a cancellation cut (the step and its execution index), if the run was cut that way. */
  readonly cutByCancel?: { readonly step: string; readonly n: number };
  /** The seqs of approval deadlines' entries (`approval.reminded`, `.escalated`, `.expired`). */
  readonly approvalDeadlines?: ReadonlySet<number>;
  /** How each allow of a step was carried out, as recorded (`step.allowed` `mode`; undefined: live). */
  readonly modes?: Map<string, (StepMode | undefined)[]>;
  /** The step of each call outcome (completed, failed, suppressed), by the seq it was recorded at. */
  readonly outcomeAt?: Map<number, string>;
}

const UNKNOWN: StepOutcome = { ok: false, unknown: true };

/** A call by what it does: the tool and its canonical arguments (not the step, not the attempt). */
export function callKey(tool: string, args: unknown): string {
  return hashOf({ tool, args });
}

/**
 * Indexes a ledger's draws, outcomes and approval decisions by ordinal: per step, or with `by`
 * `call`, per call (`callKey`) whatever the step that made it is named.
 */
export function indexLedger(entries: readonly Entry[], by: 'step' | 'call' = 'step'): RecordedLedger {
  const draws: PayloadOf<'source.drawn'>[] = [];
  const outcomes = new Map<string, StepOutcome[]>();
  const approvals = new Map<string, PayloadOf<'approval.resolved'>[]>();
  const requests = new Map<string, string>();
  const reconciliations = new Map<string, PayloadOf<'step.reconciled'>[]>();
  /** Proposals whose call was recorded as unknown (a suspension) and not yet reconciled. */
  const unknown = new Set<string>();
  let cancelled: RecordedLedger['cancelled'];
  let cutByCancel: RecordedLedger['cutByCancel'];
  const holds = new Map<number, HoldEntry>();
  const waitEnds = new Map<number, PayloadOf<'wait.ended'>>();
  const suspensions = new Map<number, OutcomeUnknownSuspension>();
  const outages = new Map<number, ModelOutageSuspension>();
  const modes = new Map<string, (StepMode | undefined)[]>();
  const approvalDeadlines = new Set<number>();
  const pushTo = <T>(m: Map<string, T[]>, k: string, v: T) => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  /** By call: the call each step made last (its outcome entries name only the step). */
  const callOf = new Map<string, string>();
  const keyOf = (step: string) => (by === 'call' ? (callOf.get(step) ?? `step:${step}`) : step);
  const push = <T>(m: Map<string, T[]>, step: string, v: T) => pushTo(m, keyOf(step), v);
  const outcomeAt = new Map<number, string>();
  for (const e of entries) {
    if (e.kind === 'step.completed' || e.kind === 'step.failed' || e.kind === 'step.suppressed')
      outcomeAt.set(e.seq, (e.payload as { step: string }).step);
    if (e.kind === 'source.drawn') draws.push(e.payload as PayloadOf<'source.drawn'>);
    else if (e.kind === 'step.allowed') {
      const p = e.payload as PayloadOf<'step.allowed'>;
      callOf.set(p.step, callKey(p.tool, p.args));
      push(modes, p.step, p.mode);
    } else if (e.kind === 'step.suppressed') {
      const p = e.payload as PayloadOf<'step.suppressed'>;
      push(outcomes, p.step, { ok: false, suppressed: p.reason });
    } else if (e.kind === 'step.completed') {
      const p = e.payload as PayloadOf<'step.completed'>;
      push(
        outcomes,
        p.step,
        p.deltas ? { ok: true, output: p.output, deltas: p.deltas } : { ok: true, output: p.output },
      );
    } else if (e.kind === 'step.failed') {
      const p = e.payload as PayloadOf<'step.failed'>;
      push(outcomes, p.step, { ok: false, error: p.error });
    } else if (e.kind === 'run.suspended') {
      const p = e.payload as PayloadOf<'run.suspended'>;
      if (p.reason === 'model_unavailable') {
        outages.set(e.seq, p);
        continue;
      }
      push(outcomes, p.step, UNKNOWN);
      unknown.add(p.proposalId);
      suspensions.set(e.seq, p);
    } else if (e.kind === 'step.reconciled') {
      const p = e.payload as PayloadOf<'step.reconciled'>;
      // A tool's check settles a call that was never suspended: that call's outcome was unknown too.
      if (!unknown.delete(p.proposalId)) push(outcomes, p.step, UNKNOWN);
      push(reconciliations, p.step, p);
    } else if (e.kind === 'run.paused' || e.kind === 'run.resumed') {
      holds.set(e.seq, { kind: e.kind, payload: e.payload } as HoldEntry);
    } else if (e.kind === 'wait.ended') {
      waitEnds.set(e.seq, e.payload as PayloadOf<'wait.ended'>);
    } else if (e.kind === 'run.finished') {
      const p = e.payload as PayloadOf<'run.finished'>;
      if (p.status === 'cancelled') {
        cancelled = { seq: e.seq, ...(p.reason !== undefined ? { reason: p.reason } : {}) };
        // The walk records a call cut by the cancellation as failed `cancelled`, right before this.
        const before = entries[entries.indexOf(e) - 1];
        const cut = before?.kind === 'step.failed' ? (before.payload as PayloadOf<'step.failed'>) : undefined;
        if (cut?.error.code === 'cancelled')
          cutByCancel = { step: cut.step, n: (outcomes.get(keyOf(cut.step))?.length ?? 1) - 1 };
      }
    } else if (e.kind === 'approval.requested') {
      const p = e.payload as PayloadOf<'approval.requested'>;
      requests.set(p.proposalId, by === 'call' ? callKey(p.tool, p.args) : p.step);
    } else if (e.kind === 'approval.resolved') {
      const p = e.payload as PayloadOf<'approval.resolved'>;
      const key = requests.get(p.proposalId);
      if (key !== undefined) pushTo(approvals, key, p);
    } else if (
      e.kind === 'approval.reminded' ||
      e.kind === 'approval.escalated' ||
      e.kind === 'approval.expired'
    ) {
      approvalDeadlines.add(e.seq);
    }
  }
  const mints = recordedMints(entries);
  const budgets = recordedBudgets(entries);
  return {
    ...(by === 'call' ? { by } : {}),
    draws,
    outcomes,
    approvals,
    reconciliations,
    holds,
    waitEnds,
    suspensions,
    outages,
    mints,
    budgets,
    modes,
    outcomeAt,
    approvalDeadlines,
    ...(cancelled ? { cancelled } : {}),
    ...(cutByCancel ? { cutByCancel } : {}),
  };
}

/**
 * Effects served from `record`. With `fork` (a replay fork of the record's run): the source's
 * cancellation and the call it cut are not served, and a read-only tool with nothing recorded is
 * called through `fork.live` (absent for a run under a writ: a live call would have to be charged
 * to the writ's shared budget, which a replay never touches).
 */
export function recordedEffects(
  record: RecordedLedger,
  at: (seq: number) => string,
  fork?: { readonly live?: Effects },
): Effects {
  // By call, the n-th call of a kind is counted here: a re-planning walk is one pass, start to end.
  const counted = new Map<string, number>();
  const nth = (key: string) => {
    const n = counted.get(key) ?? 0;
    counted.set(key, n + 1);
    return n;
  };
  const byCall = record.by === 'call';
  return {
    draw: (ref, state) => served(record, ref, state),
    // A model answer is a draw like any other: served by ordinal, never asked again.
    model: async (request, state) => {
      // The live walk's model could not answer here: so it cannot now (the walk writes the outage).
      const outage = record.outages?.get(state.head.seq + 1);
      if (outage)
        throw new KeelError(ErrorCode.modelUnavailable, outage.message, {
          step: outage.step,
          recorded: true,
        });
      const value = served(record, { source: 'x-model', name: request.slot }, state);
      const model = record.draws[state.draws]?.model;
      return model ? { value, model } : { value };
    },
    async invoke(tool, a, state, signal) {
      // An immediate pause recorded where this outcome would go: the call was cut, its outcome unknown.
      if (record.holds.get(state.head.seq + 1)?.kind === 'run.paused') return UNKNOWN;
      const key = byCall ? callKey(a.tool, a.args) : a.step;
      const n = byCall ? nth(`invoke:${key}`) : (state.executions[a.step] ?? 0);
      const cut = fork && record.cutByCancel?.step === a.step && record.cutByCancel.n === n;
      const outcome = cut ? undefined : record.outcomes.get(key)?.[n];
      if (outcome) return outcome;
      if (fork?.live && tool.effect === 'read') return fork.live.invoke(tool, a, state, signal);
      return {
        ok: false,
        error: {
          code: ErrorCode.replaySourceMissing,
          message: byCall
            ? `no recorded outcome for ${a.tool} with these arguments (call #${n + 1}); replay never calls the tool`
            : `no recorded outcome for execution #${n + 1} of step ${a.step}; replay never calls the tool`,
        },
      };
    },
    async reconcile(_tool, a, state) {
      const recorded = byCall
        ? record.reconciliations.get(callKey(a.tool, a.args))?.[nth(`reconcile:${callKey(a.tool, a.args)}`)]
        : record.reconciliations.get(a.step)?.[state.reconciliations[a.step] ?? 0];
      // A person's decision follows a suspension; a tool's check comes instead of one.
      if (!recorded || (recorded.via === 'operator') !== (state.suspended !== undefined)) return undefined;
      return { decision: recorded };
    },
    at,
    // A replay says what the record says; a replay fork serves its calls from its source's record
    // (a read tool with nothing recorded is called live: it changes nothing outside the run).
    mode(tool, step, state) {
      // Re-planned on a live run's record: the candidate's calls are judged as that run's were, live.
      if (byCall) return undefined;
      if (!fork) return record.modes?.get(step)?.[state.attempts[step] ?? 0];
      const n = state.executions[step] ?? 0;
      const recorded = record.outcomes.get(step)?.[n] !== undefined;
      return recorded || !(fork.live && tool.effect === 'read') ? 'recorded' : undefined;
    },
    // A delegation is served as recorded: replay never mints a writ or starts a child run.
    delegate: async (r) => servedMint(record.mints ?? new Map(), r),
    hold: (state) => record.holds.get(state.head.seq + 1),
    recordedWaitEnd: (state) => record.waitEnds?.get(state.head.seq + 1),
    // Parallel calls' outcomes are written in the order recorded (by step: a replay of the same run).
    nextOutcome: (state) => (byCall ? undefined : record.outcomeAt?.get(state.head.seq + 1)),
    recordedSuspension: (state) => record.suspensions?.get(state.head.seq + 1),
    recordedOutage: (state) => record.outages?.get(state.head.seq + 1),
    // A writ budget's answer is served as recorded: replay never reserves or asks the store.
    recordedBudget: (state) => record.budgets?.get(state.head.seq + 1),
    cancellation(state) {
      const c = fork ? undefined : record.cancelled;
      if (c?.seq !== state.head.seq + 1) return undefined;
      return c.reason !== undefined ? { reason: c.reason } : {};
    },
    // Re-planned on another version's record, a deadline is never served: the decision is.
    recordedApprovalDeadline: (state) =>
      !byCall && (record.approvalDeadlines?.has(state.head.seq + 1) ?? false),
    approval(request, state) {
      if (byCall) {
        const key = callKey(request.tool, request.args);
        return record.approvals.get(key)?.[nth(`approval:${key}`)];
      }
      const n = (state.approvalRequests[request.step] ?? 1) - 1;
      return record.approvals.get(request.step)?.[n];
    },
  };
}

/** The recorded n-th draw, when it reads the same source as the walk asks for now. */
function served(
  record: RecordedLedger,
  ref: { readonly source: DrawnSource; readonly name?: string },
  state: RunState,
): unknown {
  const recorded = record.draws[state.draws];
  if (!recorded) {
    throw new KeelError(
      ErrorCode.replaySourceMissing,
      `no recorded value for draw #${state.draws} (${ref.source})`,
      {
        ordinal: state.draws,
        source: ref.source,
      },
    );
  }
  if (recorded.source !== ref.source || (recorded.name ?? null) !== (ref.name ?? null)) {
    throw new KeelError(
      ErrorCode.replayDiverged,
      `draw #${state.draws} reads ${ref.source}${ref.name ? ` ${ref.name}` : ''}, but the record holds ${recorded.source}${recorded.name ? ` ${recorded.name}` : ''}`,
      { ordinal: state.draws, expected: ref, recorded },
    );
  }
  return recorded.value;
}
