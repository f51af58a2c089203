/**
 * The policy model: ordered rules that decide allow / deny / require_approval for a proposal.
 *
 * Owns the types, the facts a rule may read, and the policy's content address (`policyHash`, over
 * the normalised document, so `tool: x` and `tool: [x]` are one policy). A policy is inert data:
 * nothing here reads a clock, a file or the environment; the caller passes the time in.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { Condition } from '../spec/index.ts';
import type { ToolEffect } from '../tools/index.ts';

export const POLICY_OUTCOMES = ['allow', 'deny', 'require_approval'] as const;
export type PolicyOutcome = (typeof POLICY_OUTCOMES)[number];

/** Structural matchers: each present field must match; lists mean "any of". */
export interface RuleMatch {
  /** Exact tool names or prefix patterns (`payments.*`). */
  readonly tool?: readonly string[];
  readonly destructive?: boolean;
  readonly effect?: readonly ToolEffect[];
  /** Matches when the tool declares at least one of these scopes. */
  readonly scopes?: readonly string[];
  /** Status of the run's pinned version (DRAFT, TESTING, SHADOW, LIVE, AUTONOMOUS). */
  readonly status?: readonly string[];
  readonly tenant?: readonly string[];
}

export interface PolicyRule {
  readonly id: string;
  readonly description?: string;
  readonly match: RuleMatch;
  /** A condition over the facts (`args.amount_usd > 20 and clock.hour >= 18`), source and parsed. */
  readonly when?: { readonly source: string; readonly condition: Condition };
  readonly outcome: PolicyOutcome;
  /** For require_approval: where the approval is asked for (default `cli`). */
  readonly channel?: string;
  readonly reason?: string;
}

export interface Policy {
  /** What happens when no rule matches: deny unless the document says `default: allow`. */
  readonly default: 'allow' | 'deny';
  readonly rules: readonly PolicyRule[];
  readonly hash: Digest;
}

/** What a policy is evaluated against; every field is a value the caller read (the clock included). */
export interface PolicyInput {
  readonly tool: {
    readonly name: string;
    readonly destructive: boolean;
    readonly effect: ToolEffect;
    readonly scopes: readonly string[];
  };
  readonly args: Readonly<Record<string, unknown>>;
  readonly tenant: string;
  readonly workflow: { readonly id: string; readonly status: string };
  /** The current time as an ISO 8601 instant, read through the run's clock source. */
  readonly clock: string;
}

/** The document form of a policy: what is hashed and what `keel policy check --json` prints. */
export function policyDocument(p: Omit<Policy, 'hash'>): Record<string, unknown> {
  return {
    default: p.default,
    rules: p.rules.map((r) => {
      const match: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r.match)) if (v !== undefined) match[k] = v;
      const out: Record<string, unknown> = { id: r.id, match, outcome: r.outcome };
      if (r.description !== undefined) out.description = r.description;
      if (r.when !== undefined) out.when = r.when.source;
      if (r.channel !== undefined) out.channel = r.channel;
      if (r.reason !== undefined) out.reason = r.reason;
      return out;
    }),
  };
}

export function policyHash(p: Omit<Policy, 'hash'>): Digest {
  return hashOf(policyDocument(p));
}
