/**
 * Checking one proposal against the writ a run executes under, in a fixed order:
 * signature (the whole chain verifies) -> tenant -> revocation -> time -> scope -> effect ceiling
 * -> budget. The first failure is the answer, with its own code; nothing after it is consulted.
 *
 * Usage (cents, steps, calls already spent) is a value the caller computes from the ledger, so a
 * restart cannot reset it; `now` is read by the caller through the clock source. Pure.
 */
import type { Digest } from '../canonical/index.ts';
import { parseInstant } from '../instant.ts';
import { formatCents } from '../money.ts';
import type { ToolEffect } from '../tools/tool-descriptor.ts';
import { patternMatches } from '../tools/tool-pattern.ts';
import { type TrustedKey, verifyWritChain } from './verify-writ-chain.ts';
import { EFFECT_RANK, type SignedWrit, type WritBody, type WritBudget, WritCode } from './writ.ts';

export interface WritProposal {
  readonly tenant: string;
  readonly tool: { readonly name: string; readonly effect: ToolEffect; readonly destructive: boolean };
  readonly costCents: number;
}

export interface WritCheckInput {
  /** Root first; the writ the run executes under last. */
  readonly chain: readonly SignedWrit[];
  readonly trusted: readonly TrustedKey[];
  /** Hashes of revoked writs; revoking a writ revokes every writ derived from it. */
  readonly revoked: ReadonlySet<string>;
  /** ISO 8601 instant. */
  readonly now: string;
  readonly proposal: WritProposal;
  readonly usage: WritBudget;
}

export type WritCheck =
  | { readonly ok: true; readonly hash: Digest }
  | { readonly ok: false; readonly hash: Digest | null; readonly code: WritCode; readonly message: string };

/** A verified writ's window in epoch ms, parsed once per body (bodies are values, never mutated). */
const windows = new WeakMap<WritBody, { readonly notBefore: number; readonly notAfter: number }>();
function windowOf(w: WritBody): { readonly notBefore: number; readonly notAfter: number } {
  let ms = windows.get(w);
  if (!ms) {
    ms = { notBefore: parseInstant(w.window.notBefore)!, notAfter: parseInstant(w.window.notAfter)! };
    windows.set(w, ms);
  }
  return ms;
}

/**
 * What a writ says about one tool whatever the proposal: the scope and effect-ceiling checks,
 * worked out on the tool's first proposal and kept per writ body and tool descriptor (both values,
 * never changed). Null: the tool is within the writ.
 */
const toolVerdicts = new WeakMap<WritBody, WeakMap<object, { code: WritCode; message: string } | null>>();

function toolVerdict(w: WritBody, tool: WritProposal['tool']): { code: WritCode; message: string } | null {
  let byTool = toolVerdicts.get(w);
  if (!byTool) {
    byTool = new WeakMap();
    toolVerdicts.set(w, byTool);
  }
  let v = byTool.get(tool);
  if (v === undefined) {
    v = toolProblem(w, tool);
    byTool.set(tool, v);
  }
  return v;
}

/** The scope, then the effect-ceiling check of `tool` against writ `w`; null when both pass. */
function toolProblem(w: WritBody, tool: WritProposal['tool']): { code: WritCode; message: string } | null {
  if (!inScope(w.scopes, tool.name))
    return {
      code: WritCode.scopeDenied,
      message: `${tool.name} is not within writ ${w.id}'s scopes (${w.scopes.join(', ') || 'none'})`,
    };
  if (EFFECT_RANK[tool.effect] > EFFECT_RANK[w.effectCeiling.max])
    return {
      code: WritCode.effectDenied,
      message: `${tool.name} has effect ${tool.effect}, above writ ${w.id}'s ceiling of ${w.effectCeiling.max}`,
    };
  if (tool.destructive && !w.effectCeiling.destructive)
    return {
      code: WritCode.effectDenied,
      message: `${tool.name} is destructive and writ ${w.id} does not allow destructive tools`,
    };
  return null;
}

/** The answer for a writ that allows the proposal: one object per verified chain. */
const allowed = new WeakMap<object, WritCheck>();

export function checkWrit(c: WritCheckInput): WritCheck {
  const chain = verifyWritChain(c.chain, c.trusted);
  if (!chain.ok) {
    const v = chain.violations[0]!;
    return {
      ok: false,
      hash: null,
      code: v.code,
      message: `writ chain rejected at link ${chain.index}: ${v.message}`,
    };
  }
  const w = chain.leaf.body;
  const hash = chain.hashes[chain.hashes.length - 1]!;
  const { tool } = c.proposal;
  if (c.proposal.tenant !== w.tenant)
    return no(
      hash,
      WritCode.tenantDenied,
      `writ ${w.id} is for tenant ${w.tenant}, not ${c.proposal.tenant}`,
    );
  const revokedAt = c.revoked.size === 0 ? -1 : firstRevoked(chain.hashes, c.revoked);
  if (revokedAt >= 0)
    return no(
      hash,
      WritCode.revoked,
      revokedAt === chain.hashes.length - 1
        ? `writ ${w.id} was revoked`
        : `writ ${w.id} derives from revoked writ ${c.chain[revokedAt]!.body.id}`,
    );
  const now = parseInstant(c.now);
  if (now === undefined)
    return no(hash, WritCode.expired, `the time ${JSON.stringify(c.now)} is not an ISO 8601 instant`);
  const window = windowOf(w);
  if (now < window.notBefore)
    return no(hash, WritCode.notYetValid, `writ ${w.id} is not valid before ${w.window.notBefore}`);
  if (now >= window.notAfter)
    return no(hash, WritCode.expired, `writ ${w.id} expired at ${w.window.notAfter}`);
  const verdict = toolVerdict(w, tool);
  if (verdict) return no(hash, verdict.code, verdict.message);
  const { usage, proposal } = c;
  if (usage.steps + 1 > w.budget.steps)
    return no(
      hash,
      WritCode.budgetExhausted,
      `writ ${w.id} allows ${w.budget.steps} steps and ${usage.steps} were taken`,
    );
  if (usage.calls + 1 > w.budget.calls)
    return no(
      hash,
      WritCode.budgetExhausted,
      `writ ${w.id} allows ${w.budget.calls} tool calls and ${usage.calls} were made`,
    );
  if (usage.cents + proposal.costCents > w.budget.cents)
    return no(
      hash,
      WritCode.budgetExhausted,
      `cost $${formatCents(proposal.costCents)}${usage.cents > 0 ? ` plus $${formatCents(usage.cents)} already spent` : ''} exceeds writ ${w.id}'s budget of $${formatCents(w.budget.cents)}`,
    );
  let ok = allowed.get(chain);
  if (!ok) {
    ok = Object.freeze({ ok: true, hash });
    allowed.set(chain, ok);
  }
  return ok;
}

function no(hash: Digest, code: WritCode, message: string): WritCheck {
  return { ok: false, hash, code, message };
}

// Loops, not closures: these run for every proposal of every run under a writ.
function firstRevoked(hashes: readonly string[], revoked: ReadonlySet<string>): number {
  for (let i = 0; i < hashes.length; i++) if (revoked.has(hashes[i]!)) return i;
  return -1;
}

function inScope(scopes: readonly string[], tool: string): boolean {
  for (const s of scopes) if (patternMatches(s, tool)) return true;
  return false;
}
