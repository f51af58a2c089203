/**
 * Evaluating a policy against one proposal: the decision and the trace of every rule consulted.
 *
 * Rules are consulted in order. Deny wins over require_approval, which wins over allow; so the
 * first matching deny ends the walk (nothing after it could change the outcome), and otherwise
 * every rule is consulted. The deciding rule is the first matching rule of the winning outcome.
 * No matching rule means the policy's default. Pure and total: never throws, reads no clock.
 *
 * A decision is a function of the tool's name and which rules matched, so decisions are kept per
 * policy by that key and returned frozen, the same object each time: every proposal of a run, and
 * every run, records the same trace without building or encoding it again (freezeCanonical).
 */
import { freezeCanonical } from '../canonical/index.ts';
import { evaluateCondition } from '../spec/index.ts';
import { patternMatches } from '../tools/index.ts';
import type { Policy, PolicyInput, PolicyOutcome, PolicyRule } from './policy.ts';
import { policyFacts } from './policy-facts.ts';

/**
 * One rule consulted: its id and, when it matched, its outcome (a rule that did not match has no
 * outcome). Short on purpose: every governed decision in the ledger carries one per rule consulted.
 */
export interface TraceStep {
  readonly rule: string;
  readonly outcome?: PolicyOutcome;
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

/** True when `list` is absent (no constraint) or holds a value `ok` accepts. No closures: this runs per rule per proposal. */
function anyOf<T, C>(list: readonly T[] | undefined, ok: (v: T, c: C) => boolean, c: C): boolean {
  if (list === undefined) return true;
  for (const v of list) if (ok(v, c)) return true;
  return false;
}

const toolIs = (p: string, name: string) => patternMatches(p, name);
const same = (a: string, b: string) => a === b;
const hasScope = (s: string, scopes: readonly string[]) => scopes.includes(s);

/** True when the rule's structural matchers (everything but `when`) hold. */
function structureMatches(rule: PolicyRule, input: PolicyInput): boolean {
  const m = rule.match;
  const t = input.tool;
  return (
    anyOf(m.tool, toolIs, t.name) &&
    (m.destructive === undefined || m.destructive === t.destructive) &&
    anyOf(m.effect, same, t.effect) &&
    anyOf(m.scopes, hasScope, t.scopes) &&
    anyOf(m.status, same, input.workflow.status) &&
    anyOf(m.tenant, same, input.tenant)
  );
}

/** Decisions by `tool name + matched flags`, per policy; bounded (cleared when full). */
const decided = new WeakMap<Policy, Map<string, PolicyDecision>>();
const DECIDED_MAX = 4096;

export function evaluatePolicy(policy: Policy, input: PolicyInput): PolicyDecision {
  // Facts are built only when a `when` clause is reached.
  let facts: Record<string, unknown> | undefined;
  // One character per rule consulted: 1 matched, 0 did not.
  let matches = '';
  let decider: PolicyRule | undefined;
  for (const rule of policy.rules) {
    let matched = structureMatches(rule, input);
    if (matched && rule.when !== undefined) {
      facts ??= policyFacts(input);
      matched = evaluateCondition(rule.when.condition, facts);
    }
    matches += matched ? '1' : '0';
    if (!matched) continue;
    if (decider === undefined || RANK[rule.outcome] > RANK[decider.outcome]) decider = rule;
    if (rule.outcome === 'deny') break;
  }
  let memo = decided.get(policy);
  if (!memo) {
    memo = new Map();
    decided.set(policy, memo);
  }
  const key = `${input.tool.name}\n${matches}`;
  const known = memo.get(key);
  if (known) return known;
  const trace: TraceStep[] = policy.rules
    .slice(0, matches.length)
    .map((rule, i) => (matches[i] === '1' ? { rule: rule.id, outcome: rule.outcome } : { rule: rule.id }));
  const decision = freezeCanonical(decide(policy, input.tool.name, decider, trace));
  if (memo.size >= DECIDED_MAX) memo.clear();
  memo.set(key, decision);
  return decision;
}

function decide(
  policy: Policy,
  tool: string,
  decider: PolicyRule | undefined,
  trace: TraceStep[],
): PolicyDecision {
  if (decider === undefined) {
    return {
      outcome: policy.default,
      rule: null,
      reason: `no policy rule matches ${tool}, so the default (${policy.default}) applies`,
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
    reason: `policy rule ${decider.id} ${verb} ${tool}${why ? `: ${why}` : ''}`,
    ...(decider.outcome === 'require_approval' ? { channel: decider.channel ?? 'cli' } : {}),
    trace,
  };
}
