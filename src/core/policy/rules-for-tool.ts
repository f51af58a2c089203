/**
 * A policy as one tool reads, before any call: which rules can decide its calls, and under what
 * condition. For explanations (`keel explain`), never for deciding a call (evaluatePolicy does that).
 *
 * A rule applies to the tool when its matchers on the tool (name, destructive, effect, scopes) and
 * on the tenant hold. Its status matcher and its `when` depend on the version and the call, so they
 * are given back as a condition in words rather than judged: the same reading holds at any status.
 */
import { toolMatches } from './evaluate-policy.ts';
import type { Policy, PolicyInput, PolicyRule } from './policy.ts';

export interface ApplicableRule {
  readonly rule: PolicyRule;
  /** Absent when the rule decides every call of the tool; else when it does, in words. */
  readonly condition?: string;
}

/** The rules of `policy` that can decide calls of `tool` in `tenant`, in the policy's order. */
export function rulesForTool(policy: Policy, tool: PolicyInput['tool'], tenant: string): ApplicableRule[] {
  const out: ApplicableRule[] = [];
  for (const rule of policy.rules) {
    if (!toolMatches(rule, tool)) continue;
    if (rule.match.tenant !== undefined && !rule.match.tenant.includes(tenant)) continue;
    const parts: string[] = [];
    if (rule.match.status !== undefined) parts.push(`while the version is ${rule.match.status.join(' or ')}`);
    if (rule.when !== undefined) parts.push(`if ${rule.when.source}`);
    out.push(parts.length ? { rule, condition: parts.join(' and ') } : { rule });
  }
  return out;
}
