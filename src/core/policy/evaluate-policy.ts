/**
 * Evaluating a policy against one proposal: the decision and the trace of every rule consulted.
 *
 * Rules are consulted in order. Deny wins over require_approval, which wins over allow; so the
 * first matching deny ends the walk (nothing after it could change the outcome), and otherwise
 * every rule is consulted. The deciding rule is the first matching rule of the winning outcome.
 * No matching rule means the policy's default. Pure and total: never throws, reads no clock.
 *
 * A decision is a function of the tool and which rules matched, so decisions are kept per policy
 * and tool descriptor (see ToolView) and returned frozen, the same object each time: every
 * proposal of a run, and every run, records the same trace without building or encoding it again
 * (freezeCanonical). Rules that cannot match a tool are never looked at again for that tool.
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

/** How outcomes rank when several rules match: deny over require_approval over allow. */
export const RANK: Readonly<Record<PolicyOutcome, number>> = { allow: 0, require_approval: 1, deny: 2 };

/** True when `list` is absent (no constraint) or holds a value `ok` accepts. No closures: this runs per rule per proposal. */
function anyOf<T, C>(list: readonly T[] | undefined, ok: (v: T, c: C) => boolean, c: C): boolean {
  if (list === undefined) return true;
  for (const v of list) if (ok(v, c)) return true;
  return false;
}

const toolIs = (p: string, name: string) => patternMatches(p, name);
const same = (a: string, b: string) => a === b;
const hasScope = (s: string, scopes: readonly string[]) => scopes.includes(s);

/** True when the rule's matchers on the tool itself (name, destructive, effect, scopes) hold. */
export function toolMatches(rule: PolicyRule, t: PolicyInput['tool']): boolean {
  const m = rule.match;
  return (
    anyOf(m.tool, toolIs, t.name) &&
    (m.destructive === undefined || m.destructive === t.destructive) &&
    anyOf(m.effect, same, t.effect) &&
    anyOf(m.scopes, hasScope, t.scopes)
  );
}

/**
 * A policy as one tool sees it, worked out on the tool's first proposal: which rules can match it
 * at all (their tool matchers hold), and of those, which also depend on the proposal (a status or
 * tenant matcher, or a `when`). Only those are judged per proposal; with none, the decision is
 * the same for every proposal of the tool and is kept as `fixed`.
 */
interface ToolView {
  /** Per rule, in order: 0 cannot match this tool, 1 always matches it, 2 depends on the proposal. */
  readonly kinds: Uint8Array;
  fixed: PolicyDecision | undefined;
  /** Decisions by which proposal-dependent rules matched (bits, or a string past 30 of them). */
  readonly decided: Map<number | string, PolicyDecision>;
}

const FIXED = 1;
const DEPENDS = 2;

/**
 * Views per policy and tool descriptor (by identity: a registered tool is a value, never changed),
 * so judging a proposal costs a map lookup plus the rules that depend on it.
 */
const views = new WeakMap<Policy, WeakMap<object, ToolView>>();
const DECIDED_MAX = 4096;

function viewOf(policy: Policy, input: PolicyInput): ToolView {
  let byTool = views.get(policy);
  if (!byTool) {
    byTool = new WeakMap();
    views.set(policy, byTool);
  }
  let view = byTool.get(input.tool);
  if (view) return view;
  const { rules } = policy;
  const kinds = new Uint8Array(rules.length);
  let depends = false;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (!toolMatches(r, input.tool)) continue;
    const dynamic = r.when !== undefined || r.match.status !== undefined || r.match.tenant !== undefined;
    kinds[i] = dynamic ? DEPENDS : FIXED;
    depends ||= dynamic;
  }
  view = { kinds, fixed: undefined, decided: new Map() };
  if (!depends) view.fixed = judge(policy, input, view, undefined);
  byTool.set(input.tool, view);
  return view;
}

export function evaluatePolicy(policy: Policy, input: PolicyInput): PolicyDecision {
  const view = viewOf(policy, input);
  return view.fixed ?? judge(policy, input, view, view.decided);
}

/**
 * Consults the rules in order (up to the first matching deny) and returns the decision, from
 * `memo` when the same rules matched before. Facts are built only when a `when` is reached.
 */
function judge(
  policy: Policy,
  input: PolicyInput,
  view: ToolView,
  memo: Map<number | string, PolicyDecision> | undefined,
): PolicyDecision {
  const { rules } = policy;
  const { kinds } = view;
  let facts: Record<string, unknown> | undefined;
  // Which proposal-dependent rules matched, in order: one bit each (past 30 of them, a string).
  let bits = 0;
  let more = '';
  let d = 0;
  let consulted = rules.length;
  let decider: PolicyRule | undefined;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const kind = kinds[i]!;
    let matched = kind === FIXED;
    if (kind === DEPENDS) {
      const m = rule.match;
      matched = anyOf(m.status, same, input.workflow.status) && anyOf(m.tenant, same, input.tenant);
      if (matched && rule.when !== undefined) {
        facts ??= policyFacts(input);
        matched = evaluateCondition(rule.when.condition, facts);
      }
      if (d < 30) bits |= matched ? 1 << d : 0;
      else more += matched ? '1' : '0';
      d++;
    }
    if (!matched) continue;
    if (decider === undefined || RANK[rule.outcome] > RANK[decider.outcome]) decider = rule;
    if (rule.outcome === 'deny') {
      consulted = i + 1;
      break;
    }
  }
  const key = more === '' ? bits : `${bits}:${more}`;
  const known = memo?.get(key);
  if (known) return known;
  const trace: TraceStep[] = [];
  d = 0;
  for (let i = 0; i < consulted; i++) {
    const r = rules[i]!;
    let matched = kinds[i] === FIXED;
    if (kinds[i] === DEPENDS) {
      matched = d < 30 ? (bits & (1 << d)) !== 0 : more[d - 30] === '1';
      d++;
    }
    trace.push(matched ? { rule: r.id, outcome: r.outcome } : { rule: r.id });
  }
  const decision = freezeCanonical(decide(policy, input.tool.name, decider, trace));
  if (memo) {
    if (memo.size >= DECIDED_MAX) memo.clear();
    memo.set(key, decision);
  }
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
