/**
 * The run lifecycle family of ledger entries: a run's root (`run.started`, with the event, the
 * version, the writ and policy it is judged by, and what it forks, re-executes, shadows or was
 * delegated by), its end (`run.finished`), and the holds in between (`run.suspended`, `run.paused`,
 * `run.resumed`); with the run statuses these entries move a run through.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Digest } from '../canonical/index.ts';
import type { Shape } from './entry-shape.ts';

export type RunStatus =
  | 'running'
  | 'waiting_approval'
  | 'waiting'
  | 'outcome_unknown'
  | 'completed'
  | 'refused'
  | 'failed'
  | 'cancelled'
  | 'paused';
/** How a run ends; `cancelled`: a person stopped it (`run.finished` carries who and why in `reason`). */
export type TerminalStatus = 'completed' | 'refused' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'refused', 'failed', 'cancelled'];
/** Every run status, in lifecycle order: for filters and validation at the edges. */
export const RUN_STATUSES = [
  'running',
  'waiting_approval',
  'waiting',
  'outcome_unknown',
  'paused',
  'completed',
  'refused',
  'failed',
  'cancelled',
] as const satisfies readonly RunStatus[];

/**
 * The writ a run executes under, as its root records it: the leaf's hash. The chain (root first)
 * is stored by content under that hash (Store.putWritChain); the hash pins every body in it.
 */
export interface RunWrit {
  hash: Digest;
}

/** Set on a delegated run's root: the parent run, the seq of its delegating `step.allowed`, the step. */
export interface DelegatedBy {
  runId: string;
  seq: number;
  step: string;
  /** The delegating step's attempt (part of the child's id); absent in ledgers recorded before it was. */
  attempt?: number;
}

/** How a run was started: absent for a live run; a simulated run is a `test` or a `shadow`. */
export type RunMode = 'test' | 'shadow';
export const RUN_MODES = ['test', 'shadow'] as const satisfies readonly RunMode[];

/** A test run's test: its name and the decision it assumes where a person would be asked. */
export interface TestRef {
  name: string;
  /**
   * `none`: nobody answers — the run waits as a live run would, and an approval deadline declared
   * on the step acts in virtual time (remind, escalate, expire).
   */
  approvals: 'approve' | 'deny' | 'none';
  /** The test's declared virtual clock (`tests[].clock`): where the run's time starts. */
  clock?: string;
  /**
   * The test's declared arrivals (`tests[].arrives`): each event in full and how long after the
   * run's start it arrives (a duration, `2h`), for its waits for events, in virtual time.
   */
  arrives?: { at: string; event: EventRecord }[];
}

/**
 * A routed run during a rollout: the run's bucket (0..9999, a pure function of the event), the
 * share of buckets (in percent) the rollout gives the new version, and the two versions.
 * `stickyBy`: the key the bucket was derived from (`subject`, `payload.<field>`, or `event` when
 * the event had no value for the rollout's key); absent in runs routed before rollouts had one.
 * `chosen`: set when the two versions' triggers disagreed on the event and the run is of another
 * version than the bucket chose (docs/lifecycle.md).
 */
export interface SplitEntry {
  bucket: number;
  percent: number;
  from: number;
  to: number;
  stickyBy?: string;
  chosen?: number;
}

export interface EventRecord {
  readonly id: string;
  readonly type: string;
  readonly tenant: string;
  readonly source: string;
  readonly subject: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly time: string;
}

/** The payloads of the run lifecycle's entries, by kind. */
export interface RunPayloads {
  'run.started': {
    tenant: string;
    workflowId: string;
    version: number;
    specHash: Digest;
    /** The version's status when the run started; guardrails read it from here. */
    status: string;
    event: EventRecord;
    engine: string;
    /** Set on a fork's root: the run it forks, the seq it forks at, and how it continues. */
    forkOf?: { runId: string; fromSeq: number; mode: 'replay' | 'branch' };
    /** Set on a diagnostic re-execution's root: the run it re-executes. */
    attemptOf?: string;
    /** With attemptOf: which re-execution this is (2 for the first; part of the run's id). */
    attempt?: number;
    /**
     * Set on a run started directly (`keel run`, `runs.start`, an OpenWOP create) rather than by
     * routing an event: its id is derived apart from the routed run of the same event.
     */
    direct?: true;
    /**
     * Set when the run executes under a writ: the writ's hash (its chain is stored by content).
     * Every proposal is checked against it; resume re-reads it here.
     */
    writ?: RunWrit;
    /**
     * Set when the tenant had a policy as the run started: that policy's hash. The run is judged by
     * this policy to its end (resume, approval, replay), whatever the tenant's policy becomes.
     */
    policy?: Digest;
    /** Set on a child run started by another run's `core.delegate` step (docs/governance.md). */
    delegatedBy?: DelegatedBy;
    /**
     * Set on a simulated run (docs/lifecycle.md): `test`, a run of `keel test` (see `test`), or
     * `shadow`, a SHADOW version run on the event of a live run (see `shadowOf`). Absent: a live run.
     * A simulated run never calls a `write` or `external` tool and never asks a person.
     */
    mode?: RunMode;
    /** With mode `shadow`: the live run whose event this run shadows (never changed by it). */
    shadowOf?: string;
    /** With mode `test`: the test (a `tests:` entry of the spec, or an event file) and its approvals. */
    test?: TestRef;
    /** Set on a routed run during a rollout: which version its bucket chose, and the weights. */
    split?: SplitEntry;
    /**
     * A simulated run's checks judge it as a version of this status would be judged (a shadow as
     * the live version it shadows, a test as LIVE): the destructive-tool guardrail and the
     * policy's `workflow.status` read it instead of `status`.
     */
    judgedAs?: 'LIVE' | 'AUTONOMOUS';
    /**
     * Set when the request that started the run carried a valid W3C `traceparent` (version 00,
     * lower-case, as received): the run's span is that caller's child (docs/observability.md).
     * Never part of the run's id; absent in every ledger recorded before it was.
     */
    traceparent?: string;
  };
  /** `code`: why, in a word, when the reason has one (`needs_simulation`). */
  'run.finished': {
    status: TerminalStatus;
    outputs: Record<string, unknown>;
    reason?: string;
    code?: string;
  };
  /**
   * `outcome_unknown`: a recovery found a non-idempotent step allowed (its effect started) without
   * an outcome: the run stops as outcome_unknown until the outcome is reconciled; nothing re-runs
   * the tool. `model_unavailable`: the model provider could not answer a step's slot (after its
   * retries): the run is held as paused, nothing of the step acted, and `resume` asks again.
   */
  'run.suspended':
    | {
        reason: 'outcome_unknown';
        step: string;
        tool: string;
        proposalId: Digest;
        idempotencyKey: Digest;
        message: string;
      }
    | { reason: 'model_unavailable'; step: string; tool: string; message: string };
  /**
   * A person paused the run: no step starts until `run.resumed`. Written at a step boundary (the
   * step in progress finishes first: the drain-current-node policy) or, when nobody walks the run
   * here, at its head. `immediate` also cuts the call in progress of an idempotent tool (its
   * outcome is not recorded; on resume it is called again with the same idempotency key). When a
   * call was in flight at the pause, `interruptedNodeId` and `interruptedAttempt` name it.
   */
  'run.paused': {
    by: string;
    reason?: string;
    drainPolicy: 'drain-current-node' | 'immediate';
    interruptedNodeId?: string;
    interruptedAttempt?: number;
  };
  /** A person resumed a paused run; the walk goes on from here. */
  'run.resumed': { by: string };
}

export const RUN_SHAPES: { readonly [K in keyof RunPayloads]: Shape } = {
  'run.started': {
    tenant: 'string',
    workflowId: 'string',
    version: 'number',
    specHash: 'digest',
    status: 'string',
    event: 'object',
    engine: 'string',
    forkOf: 'object?',
    attemptOf: 'string?',
    attempt: 'number?',
    direct: 'boolean?',
    writ: 'object?',
    policy: 'digest?',
    delegatedBy: 'object?',
    mode: { optional: RUN_MODES },
    shadowOf: 'digest?',
    test: 'object?',
    split: 'object?',
    judgedAs: { optional: ['LIVE', 'AUTONOMOUS'] },
    traceparent: 'string?',
  },
  'run.finished': {
    status: ['completed', 'refused', 'failed', 'cancelled'],
    outputs: 'object',
    reason: 'string?',
    code: 'string?',
  },
  // proposalId and idempotencyKey are required of outcome_unknown (suspensionProblem).
  'run.suspended': {
    reason: ['outcome_unknown', 'model_unavailable'],
    step: 'string',
    tool: 'string',
    proposalId: 'digest?',
    idempotencyKey: 'digest?',
    message: 'string',
  },
  'run.paused': {
    by: 'string',
    reason: 'string?',
    drainPolicy: ['drain-current-node', 'immediate'],
    interruptedNodeId: 'string?',
    interruptedAttempt: 'number?',
  },
  'run.resumed': { by: 'string' },
};
