/**
 * The kinds of ledger entry and the shape of each payload.
 *
 * This table is the ledger's schema: verification checks every stored payload against its kind, so
 * an entry whose bytes hash correctly but say something malformed is still rejected. Adding a kind
 * or a required field changes what old ledgers verify against: add optional fields instead.
 */
import type { Digest } from '../canonical/index.ts';
import type { Delta } from '../world/index.ts';

export type RunStatus =
  | 'running'
  | 'waiting_approval'
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
  'outcome_unknown',
  'paused',
  'completed',
  'refused',
  'failed',
  'cancelled',
] as const satisfies readonly RunStatus[];

/** The checks a proposal passes, in order; a refusal names the one that stopped it. */
export type CheckName = 'resolve' | 'validate' | 'writ' | 'policy' | 'max_steps' | 'spend_cap' | 'approval';

/**
 * A policy decision as ledgered: its outcome, the deciding rule and the trace (every rule
 * consulted, in order, with its outcome if it matched). The policy's hash is here only
 * when the run's root does not pin the policy; otherwise the root names it once.
 */
export interface PolicyEntry {
  hash?: Digest;
  outcome: 'allow' | 'deny' | 'require_approval';
  rule: string | null;
  trace: readonly { rule: string; outcome?: 'allow' | 'deny' | 'require_approval' }[];
}

/**
 * On a refusal by the writ check: the writ (null when its chain did not verify) and the failure
 * code. Allowed proposals record none: the run's root names the writ every proposal is checked under.
 */
export interface WritEntry {
  hash: Digest | null;
  code?: string;
  /**
   * Set when the store refused to reserve from a writ's budget shared by every run under it
   * (writ_budget_exhausted): the writ that ran out is `hash`; what its runs had used or reserved,
   * its limit, and what this step asked for. A replay serves this refusal as recorded.
   */
  budget?: { used: BudgetEntry; limit: BudgetEntry; asked: BudgetEntry };
}

/** Steps, tool calls and cents of a writ's budget, as the ledger records a reservation. */
export interface BudgetEntry {
  steps: number;
  calls: number;
  cents: number;
}

/**
 * The writ a run executes under, as its root records it: the leaf's hash. The chain (root first)
 * is stored by content under that hash (Store.putWritChain); the hash pins every body in it.
 */
export interface RunWrit {
  hash: Digest;
}

/**
 * The child run a `core.delegate` step starts, as its `step.allowed` records it: the child's run id
 * (derived from parent run, step and attempt), the workflow version it runs, and the child writ
 * minted for it (its hash and the signed leaf; the rest of the chain is the parent's root writ).
 */
export interface DelegationEntry {
  runId: Digest;
  workflowId: string;
  version: number;
  writ: { hash: Digest; leaf: unknown };
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

/** How a step's tool call is carried out (see `step.allowed` `mode`). */
export type StepMode = 'live' | 'simulated' | 'recorded';

/** A test run's test: its name and the decision it assumes where a person would be asked. */
export interface TestRef {
  name: string;
  approvals: 'approve' | 'deny';
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

/**
 * What an `x-model` draw cost and how it went (docs/models.md): the provider and model asked, the
 * tokens of every attempt together, the price in integer micro-dollars (counted against the
 * spec's `maxCostUsd`), and how many attempts it took. `invalid` is set when no attempt fit the
 * slot schema: the last raw answer (bounded) and why; the step is then refused.
 */
export interface ModelCallEntry {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  attempts: number;
  invalid?: { raw: string; problem: string };
}

/** The declared sources a `source.drawn` entry may name. Widen only: old ledgers must still verify. */
export const DRAWN_SOURCES = ['clock', 'random', 'id', 'env', 'x-model'] as const;
export type DrawnSource = (typeof DRAWN_SOURCES)[number];

export interface Payloads {
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
  /** `x-model`: a model's value for the open argument slot `name` (see docs/planner.md). */
  'source.drawn': { source: DrawnSource; name?: string; value: unknown; model?: ModelCallEntry };
  'step.allowed': {
    step: string;
    tool: string;
    proposalId: Digest;
    args: Record<string, unknown>;
    idempotencyKey: Digest;
    attempt: number;
    costCents: number;
    approvedBy?: string;
    policy?: PolicyEntry;
    /** A `core.delegate` step: the child run and the child writ minted for it. */
    delegation?: DelegationEntry;
    /**
     * How the step's tool call is carried out: `simulated` (a write or external tool in a simulated
     * run: its `simulate` answers, or it is suppressed), `live` (a read tool called for real in a
     * simulated run), `recorded` (a replay fork: served from its source's record). Absent: live.
     */
    mode?: StepMode;
    /**
     * Budget this allow reserved from every writ of the run's chain, in the same store transaction
     * that recorded it (this step's own share included): the writ's budget is shared by every run
     * under it. Later steps draw on the reservation; what is left returns when the run finishes.
     */
    reserves?: BudgetEntry;
  };
  'step.refused': {
    step: string;
    tool: string;
    proposalId: Digest | null;
    check: CheckName;
    code: string;
    message: string;
    problems?: readonly unknown[];
    policy?: PolicyEntry;
    writ?: WritEntry;
  };
  'approval.requested': {
    step: string;
    tool: string;
    proposalId: Digest;
    args: Record<string, unknown>;
    costCents: number;
    reason: string;
    channel: string;
    policy?: PolicyEntry;
  };
  'approval.resolved': { proposalId: Digest; decision: 'approved' | 'denied'; by: string; note?: string };
  'step.completed': {
    step: string;
    tool: string;
    proposalId: Digest;
    output: unknown;
    costCents: number;
    /** Changes the step made to the run's world; applied on a trial copy before this entry was written. */
    deltas?: readonly Delta[];
  };
  'step.failed': { step: string; tool: string; proposalId: Digest; error: { code: string; message: string } };
  /**
   * A simulated run's step whose tool may not act and has no `simulate`: nothing was called and
   * the step has no output. The run goes on unless a later step reads that output.
   */
  'step.suppressed': { step: string; tool: string; proposalId: Digest; reason: string };
  /**
   * A simulated run reached a proposal that needs a person's approval: nobody is asked
   * (would_wait_approval). `assumed` is the decision the run goes on with — a shadow run assumes
   * approval, a test run what its test says — and `by` names who assumed it.
   */
  'approval.simulated': {
    step: string;
    tool: string;
    proposalId: Digest;
    args: Record<string, unknown>;
    costCents: number;
    reason: string;
    channel: string;
    policy?: PolicyEntry;
    assumed: 'approved' | 'denied';
    by: string;
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
   * The outcome of a step whose effect started and was never recorded, as established afterwards:
   * by the tool's own `reconcile` check (`via: 'tool'`) or by a person (`via: 'operator'`).
   * `happened: true` completes the step with `output`; `false` voids the allow, and the step is
   * proposed again as a new attempt (a new idempotency key).
   */
  'step.reconciled': {
    step: string;
    tool: string;
    proposalId: Digest;
    happened: boolean;
    via: 'tool' | 'operator';
    by: string;
    output?: unknown;
    note?: string;
  };
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

export type EntryKind = keyof Payloads;
export type PayloadOf<K extends EntryKind> = Payloads[K];
/** A run suspended because a call's outcome is unknown (it waits to be reconciled). */
export type OutcomeUnknownSuspension = Extract<PayloadOf<'run.suspended'>, { reason: 'outcome_unknown' }>;
/** A run held because its model provider could not answer (it waits to be resumed). */
export type ModelOutageSuspension = Extract<PayloadOf<'run.suspended'>, { reason: 'model_unavailable' }>;

type FieldType = 'string' | 'number' | 'boolean' | 'digest' | 'object' | 'array' | 'any' | 'digest|null';
/**
 * A field type, optional with a trailing `?`; or a closed set of string values, required (the
 * list) or optional (`{ optional: list }`).
 */
type Shape = Readonly<
  Record<string, FieldType | `${FieldType}?` | readonly string[] | { readonly optional: readonly string[] }>
>;

const SHAPES: { readonly [K in EntryKind]: Shape } = {
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
  'source.drawn': { source: DRAWN_SOURCES, name: 'string?', value: 'any', model: 'object?' },
  'step.allowed': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    args: 'object',
    idempotencyKey: 'digest',
    attempt: 'number',
    costCents: 'number',
    approvedBy: 'string?',
    policy: 'object?',
    delegation: 'object?',
    mode: { optional: ['live', 'simulated', 'recorded'] },
    reserves: 'object?',
  },
  'step.refused': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest|null',
    check: ['resolve', 'validate', 'writ', 'policy', 'max_steps', 'spend_cap', 'approval'],
    code: 'string',
    message: 'string',
    problems: 'array?',
    policy: 'object?',
    writ: 'object?',
  },
  'approval.requested': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    args: 'object',
    costCents: 'number',
    reason: 'string',
    channel: 'string',
    policy: 'object?',
  },
  'approval.resolved': {
    proposalId: 'digest',
    decision: ['approved', 'denied'],
    by: 'string',
    note: 'string?',
  },
  'step.completed': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    output: 'any',
    costCents: 'number',
    deltas: 'array?',
  },
  'step.failed': { step: 'string', tool: 'string', proposalId: 'digest', error: 'object' },
  'step.suppressed': { step: 'string', tool: 'string', proposalId: 'digest', reason: 'string' },
  'approval.simulated': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    args: 'object',
    costCents: 'number',
    reason: 'string',
    channel: 'string',
    policy: 'object?',
    assumed: ['approved', 'denied'],
    by: 'string',
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
  'step.reconciled': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    happened: 'boolean',
    via: ['tool', 'operator'],
    by: 'string',
    output: 'any?',
    note: 'string?',
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

export const ROOT_KINDS: readonly EntryKind[] = ['run.started'];

/** Every kind of entry, in the table's order: for filters and validation at the edges. */
export const ENTRY_KINDS = Object.keys(SHAPES) as readonly EntryKind[];

export function isEntryKind(k: unknown): k is EntryKind {
  return typeof k === 'string' && Object.hasOwn(SHAPES, k);
}

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

function fits(t: FieldType, v: unknown): boolean {
  switch (t) {
    case 'any':
      return v !== undefined;
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'digest':
      return typeof v === 'string' && DIGEST_RE.test(v);
    case 'digest|null':
      return v === null || (typeof v === 'string' && DIGEST_RE.test(v));
    default:
      return typeof v === t;
  }
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
  const shaped = fieldsProblem(kind, p);
  if (shaped !== undefined || kind !== 'run.suspended') return shaped;
  return suspensionProblem(p);
}

function fieldsProblem(kind: EntryKind, p: Record<string, unknown>): string | undefined {
  for (const [field, spec] of Object.entries(SHAPES[kind])) {
    if (typeof spec === 'object' && 'optional' in spec) {
      if (p[field] !== undefined && !spec.optional.includes(p[field] as string))
        return `${field} is ${JSON.stringify(p[field])}, not one of ${spec.optional.join(', ')}`;
      continue;
    }
    if (typeof spec !== 'string') {
      if (!spec.includes(p[field] as string)) {
        return `${field} is ${JSON.stringify(p[field]) ?? 'missing'}, not one of ${spec.join(', ')}`;
      }
      continue;
    }
    const optional = spec.endsWith('?');
    const type = (optional ? spec.slice(0, -1) : spec) as FieldType;
    const v = p[field];
    if (v === undefined) {
      if (!optional) return `${field} is missing`;
    } else if (!fits(type, v)) {
      return `${field} is not ${type === 'digest' ? 'a sha256 digest' : `a ${type}`}`;
    }
  }
  return undefined;
}
