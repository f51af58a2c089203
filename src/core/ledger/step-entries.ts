/**
 * The step family of ledger entries: a step's proposal allowed (`step.allowed`, with the policy
 * decision, the budget it reserved, a delegation) or refused (`step.refused`, naming the check that
 * stopped it), and how its call ended: `step.completed` (output and world deltas), `step.failed`,
 * `step.suppressed` (a simulated run's call that may not act), `step.reconciled` (an unknown outcome
 * established afterwards).
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Digest } from '../canonical/index.ts';
import type { Delta } from '../world/index.ts';
import type { Shape } from './entry-shape.ts';

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

/** How a step's tool call is carried out (see `step.allowed` `mode`). */
export type StepMode = 'live' | 'simulated' | 'recorded';

/** The payloads of the step entries, by kind. */
export interface StepPayloads {
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
}

export const STEP_SHAPES: { readonly [K in keyof StepPayloads]: Shape } = {
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
};
