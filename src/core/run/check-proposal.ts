/**
 * The checks every proposal passes before anything runs, in order: schema validation, the writ
 * (when the run has one), the policy (when there is one), then the guardrails: the step limit,
 * the spend cap, the destructive-tool guardrail and approval gates (tools whose every proposal
 * waits for a person). A policy deny refuses at once; an approval (policy, destructive or gate)
 * is asked only after every refusing check has passed (nobody is asked to approve what would be
 * refused anyway). The result is a value: allow, refuse (naming the check and why)
 * or require an approval, carrying the policy trace and writ hash for the ledger. This function
 * cannot execute a tool; the engine records its decision before it acts on it.
 */
import { type Digest, freezeCanonical } from '../canonical/index.ts';
import type { CheckName } from '../ledger/index.ts';
import { formatCents } from '../money.ts';
import {
  evaluatePolicy,
  type Policy,
  type PolicyDecision,
  type PolicyOutcome,
  type TraceStep,
} from '../policy/index.ts';
import { isSecretRef } from '../spec/index.ts';
import {
  type ArgProblem,
  callCost,
  costArgProblem,
  formatArgProblem,
  type ToolDescriptor,
  validateArgs,
} from '../tools/index.ts';
import { checkWrit, type WritBudget, type WritCheckInput } from '../writs/index.ts';

/**
 * The policy's part of a decision, as the ledger records it. `hash` names the policy only when the
 * run's root does not pin it (a run started before its tenant had a policy): otherwise the root
 * names it once for every decision of the run.
 */
export interface PolicyRecord {
  readonly hash?: Digest;
  readonly outcome: PolicyOutcome;
  /** The deciding rule, or null when the default applied. */
  readonly rule: string | null;
  readonly trace: readonly TraceStep[];
}

/**
 * The writ's part of a refusal by the writ check: the writ (null when its chain did not verify)
 * and the failure code. An allowed proposal records none: the run's root names its writ.
 */
export interface WritRecord {
  readonly hash: Digest | null;
  readonly code?: string;
  /** A refusal by the budget every run under the writ shares: what was used, the limit, what was asked. */
  readonly budget?: {
    readonly used: WritBudget;
    readonly limit: WritBudget;
    readonly asked: WritBudget;
  };
}

/** Present only when the proposal was checked against a policy. */
interface Governance {
  readonly policy?: PolicyRecord;
}

export type Decision =
  | ({ readonly outcome: 'allow'; readonly costCents: number } & Governance)
  | ({
      readonly outcome: 'refuse';
      readonly check: CheckName;
      readonly code: string;
      readonly message: string;
      readonly problems?: readonly ArgProblem[];
      /** Set when the writ check refused. */
      readonly writ?: WritRecord;
    } & Governance)
  | ({
      readonly outcome: 'require_approval';
      readonly costCents: number;
      readonly reason: string;
      readonly channel: string;
    } & Governance);

/** A policy to evaluate, with the facts the context does not already hold. */
export interface PolicyCheck {
  readonly policy: Policy;
  readonly tenant: string;
  readonly workflowId: string;
  /** The current time (ISO 8601), read by the caller through the clock source. */
  readonly clock: string;
  /** True when the run's root pins this policy (then the record does not repeat its hash). */
  readonly pinned: boolean;
}

/** The writ a run executes under, with what the caller computed: usage from the ledger, `now` from the clock. */
export type WritCheckContext = Omit<WritCheckInput, 'proposal'> & { readonly tenant: string };

export interface ProposalContext {
  readonly tool: ToolDescriptor;
  readonly args: Record<string, unknown>;
  readonly stepsTaken: number;
  readonly maxSteps: number;
  readonly spentCents: number;
  readonly capCents: number;
  /** Status of the pinned version: AUTONOMOUS versions run destructive tools without a person. */
  readonly versionStatus: string;
  /** True when a person already approved exactly this proposal. */
  readonly approved: boolean;
  /** Checked after the schema and before the policy; absent means no writ check. */
  readonly writ?: WritCheckContext;
  /** Evaluated after the writ and before the guardrails; absent means no policy check. */
  readonly policy?: PolicyCheck;
}

export function checkProposal(c: ProposalContext): Decision {
  const { tool, args } = c;
  // A secret is judged by its type here; its value, which only the tool call sees, there.
  const problems = validateArgs(tool, args, isSecretRef);
  // A call whose cost cannot be judged is refused, never counted as free.
  const costProblem = problems.length === 0 ? costArgProblem(tool, args) : undefined;
  if (costProblem) problems.push(costProblem);
  if (problems.length > 0) {
    return {
      outcome: 'refuse',
      check: 'validate',
      code: 'invalid_arguments',
      message: problems.map(formatArgProblem).join('; '),
      problems,
    };
  }
  const { totalCents: cost, fixedCents, argCents } = callCost(tool, args);
  if (c.writ) {
    const cw = c.writ;
    const w = checkWrit({
      chain: cw.chain,
      trusted: cw.trusted,
      revoked: cw.revoked,
      now: cw.now,
      usage: cw.usage,
      proposal: { tenant: cw.tenant, tool, costCents: cost },
    });
    if (!w.ok)
      return {
        outcome: 'refuse',
        check: 'writ',
        code: w.code,
        message: w.message,
        writ: { hash: w.hash, code: w.code },
      };
  }
  let policy: PolicyRecord | undefined;
  let approvalByPolicy: PolicyDecision | undefined;
  if (c.policy) {
    const p = c.policy;
    const d = evaluatePolicy(p.policy, {
      tool,
      args,
      tenant: p.tenant,
      workflow: { id: p.workflowId, status: c.versionStatus },
      clock: p.clock,
    });
    policy = policyRecord(d, p.pinned ? undefined : p.policy.hash);
    if (d.outcome === 'deny')
      return { outcome: 'refuse', check: 'policy', code: 'policy_denied', message: d.reason, policy };
    // Approving re-checks the policy except the approval rule itself.
    if (d.outcome === 'require_approval' && !c.approved) approvalByPolicy = d;
  }
  if (c.stepsTaken + 1 > c.maxSteps) {
    return withPolicy(
      {
        outcome: 'refuse',
        check: 'max_steps',
        code: 'max_steps_exceeded',
        message: `this would be step ${c.stepsTaken + 1}, over the limit of ${c.maxSteps} steps`,
      },
      policy,
    );
  }
  if (c.spentCents + cost > c.capCents) {
    const from = tool.cost?.fromArg;
    const arg =
      from !== undefined && typeof args[from] === 'number' ? `${from} ${formatCents(argCents)}` : undefined;
    const what =
      arg === undefined
        ? `cost ${formatCents(cost)}`
        : fixedCents === 0
          ? arg
          : `cost ${formatCents(cost)} (${arg} plus a fixed ${formatCents(fixedCents)})`;
    const already = c.spentCents > 0 ? ` plus ${formatCents(c.spentCents)} already spent` : '';
    return withPolicy(
      {
        outcome: 'refuse',
        check: 'spend_cap',
        code: 'spend_cap_exceeded',
        message: `${what}${already} exceeds the spend cap of ${formatCents(c.capCents)}`,
      },
      policy,
    );
  }
  if (approvalByPolicy)
    return withPolicy(
      {
        outcome: 'require_approval',
        costCents: cost,
        reason: approvalByPolicy.reason,
        channel: approvalByPolicy.channel ?? 'cli',
      },
      policy,
    );
  if (tool.destructive && c.versionStatus !== 'AUTONOMOUS' && !c.approved) {
    return withPolicy(
      {
        outcome: 'require_approval',
        costCents: cost,
        reason: `${tool.name} is destructive and this version is ${c.versionStatus}, not AUTONOMOUS`,
        channel: 'cli',
      },
      policy,
    );
  }
  if (tool.approval === 'always' && !c.approved) {
    return withPolicy(
      {
        outcome: 'require_approval',
        costCents: cost,
        reason: gateReason(tool.name),
        channel: 'openwop',
      },
      policy,
    );
  }
  return withPolicy({ outcome: 'allow', costCents: cost }, policy);
}

const gateReason = (tool: string) => `${tool} is an approval gate`;

/**
 * Why a proposal waits for a person: a policy rule required it (`policy`: the request's policy
 * record names the rule and its trace), the tool is destructive and the version not AUTONOMOUS
 * (`destructive`), or the tool asks a person every time (`gate`). Read from what the request
 * records (checkProposal's decision, as the ledger keeps it), the only three ways it asks.
 */
export type ApprovalCause = 'policy' | 'destructive' | 'gate';

export function approvalCause(r: {
  readonly tool: string;
  readonly reason: string;
  readonly policy?: { readonly outcome: PolicyOutcome };
}): ApprovalCause {
  if (r.policy?.outcome === 'require_approval') return 'policy';
  return r.reason === gateReason(r.tool) ? 'gate' : 'destructive';
}

/** `d` with the policy's record when a policy was checked (no `policy` key otherwise). */
function withPolicy<D extends Decision>(d: D, policy: PolicyRecord | undefined): D {
  if (policy) (d as { policy?: PolicyRecord }).policy = policy;
  return d;
}

/**
 * The record of a policy decision, the same frozen object for the same decision (decisions are
 * themselves memoized by evaluatePolicy), so its canonical form is encoded once.
 */
function policyRecord(d: PolicyDecision, hash: Digest | undefined): PolicyRecord {
  let known = records.get(d);
  if (!known) {
    known = {};
    records.set(d, known);
  }
  if (hash === undefined) {
    known.pinned ??= freezeCanonical({ outcome: d.outcome, rule: d.rule, trace: d.trace });
    return known.pinned;
  }
  if (known.unpinned?.hash !== hash)
    known.unpinned = freezeCanonical({ hash, outcome: d.outcome, rule: d.rule, trace: d.trace });
  return known.unpinned;
}

const records = new WeakMap<PolicyDecision, { pinned?: PolicyRecord; unpinned?: PolicyRecord }>();
