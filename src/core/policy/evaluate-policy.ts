/**
 * Evaluating a policy against one proposal: the decision and the trace of every rule consulted.
 *
 * Rules are consulted in order. Deny wins over require_approval, which wins over allow; so the
 * first matching deny ends the walk (nothing after it could change the outcome), and otherwise
 * every rule is consulted. The deciding rule is the first matching rule of the winning outcome.
 * No matching rule means the policy's default. Pure and total: never throws, reads no clock.
 */
import { evaluateCondition } from '../spec/index.ts';
import { patternMatches } from '../tools/index.ts';
import type { Policy, PolicyInput, PolicyOutcome, PolicyRule } from './policy.ts';
import { policyFacts } from './policy-facts.ts';

export interface TraceStep {
  readonly rule: string;
  readonly matched: boolean;
  /** The rule's outcome (what it decides when it matches). */
  readonly outcome: PolicyOutcome;
}

export interface PolicyDecision {
  readonly outcome: PolicyOutcome;
  /** The rule that decided, or null when no rule matched and the default applied. */
  readonly rule: string | null;
  readonly reason: string;
  /** For require_approval: where to ask. */
  readonly channel?: string;
  readonly trace: readonly TraceStep[];
}

const RANK: Readonly<Record<PolicyOutcome, number>> = { allow: 0, require_approval: 1, deny: 2 };

const anyOf = <T>(list: readonly T[] | undefined, ok: (v: T) => boolean): boolean =>
  list === undefined || list.some(ok);

/** True when the rule's structural matchers and its `when` clause all hold. */
export function ruleMatches(rule: PolicyRule, input: PolicyInput, facts: Record<string, unknown>): boolean {
  const m = rule.match;
  const t = input.tool;
  return (
    anyOf(m.tool, (p) => patternMatches(p, t.name)) &&
    (m.destructive === undefined || m.destructive === t.destructive) &&
    anyOf(m.effect, (e) => e === t.effect) &&
    anyOf(m.scopes, (s) => t.scopes.includes(s)) &&
    anyOf(m.status, (s) => s === input.workflow.status) &&
    anyOf(m.tenant, (s) => s === input.tenant) &&
    (rule.when === undefined || evaluateCondition(rule.when.condition, facts))
  );
}

export function evaluatePolicy(policy: Policy, input: PolicyInput): PolicyDecision {
  const facts = policyFacts(input);
  const trace: TraceStep[] = [];
  let decider: PolicyRule | undefined;
  for (const rule of policy.rules) {
    const matched = ruleMatches(rule, input, facts);
    trace.push({ rule: rule.id, matched, outcome: rule.outcome });
    if (!matched) continue;
    if (decider === undefined || RANK[rule.outcome] > RANK[decider.outcome]) decider = rule;
    if (rule.outcome === 'deny') break;
  }
  if (decider === undefined) {
    return {
      outcome: policy.default,
      rule: null,
      reason: `no policy rule matches ${input.tool.name}, so the default (${policy.default}) applies`,
      trace,
    };
  }
  const verb = { allow: 'allows', deny: 'denies', require_approval: 'requires approval for' }[
    decider.outcome
  ];
  const why = decider.reason ?? decider.description;
  return {
    outcome: decider.outcome,
    rule: decider.id,
    reason: `policy rule ${decider.id} ${verb} ${input.tool.name}${why ? `: ${why}` : ''}`,
    ...(decider.outcome === 'require_approval' ? { channel: decider.channel ?? 'cli' } : {}),
    trace,
  };
}
