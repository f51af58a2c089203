/**
 * Attenuation: deriving a child writ that is a subset of its parent on every dimension.
 *
 * Owns the subset rules, one refusal code per violated dimension: scopes (each child pattern is
 * covered by a parent pattern), budget (fits in the parent's REMAINING budget, which the caller
 * computes from the ledger), window (inside the parent's), effect ceiling (no higher, destructive
 * only if the parent allows it), delegation (subdividable, depth within maxDepth, no deeper
 * maxDepth), tenant (unchanged). Returns every violation at once; never signs, never throws.
 */

import { parseInstant } from '../instant.ts';
import { patternCovers } from '../tools/tool-pattern.ts';
import {
  EFFECT_RANK,
  type WritBody,
  type WritBudget,
  WritCode,
  type WritViolation,
  writHash,
} from './writ.ts';
import { writBodyProblems } from './writ-shape.ts';

/** What the delegator asks for; anything left out is inherited from the parent (budget: the remaining one). */
export interface ChildRequest {
  readonly id: string;
  readonly subject: string;
  /** Key id of the key that will sign the child. */
  readonly issuer: string;
  readonly tenant?: string;
  readonly scopes?: readonly string[];
  readonly budget?: Partial<WritBudget>;
  readonly window?: Partial<WritBody['window']>;
  readonly effectCeiling?: Partial<WritBody['effectCeiling']>;
  readonly delegation?: Partial<WritBody['delegation']>;
}

export type AttenuateResult =
  | { readonly ok: true; readonly body: WritBody }
  | { readonly ok: false; readonly violations: readonly WritViolation[] };

const BUDGET_KEYS = ['cents', 'steps', 'calls'] as const;

export function attenuate(parent: WritBody, request: ChildRequest, remaining: WritBudget): AttenuateResult {
  // What the parent can still give: its remaining budget, never more than its own budget.
  const avail = {} as Record<(typeof BUDGET_KEYS)[number], number>;
  for (const k of BUDGET_KEYS) avail[k] = Math.max(0, Math.min(remaining[k], parent.budget[k]));
  const body: WritBody = {
    v: 1,
    id: request.id,
    tenant: request.tenant ?? parent.tenant,
    subject: request.subject,
    issuer: request.issuer,
    parent: writHash(parent),
    scopes: request.scopes ?? parent.scopes,
    budget: { ...avail, ...request.budget },
    window: { ...parent.window, ...request.window },
    effectCeiling: { ...parent.effectCeiling, ...request.effectCeiling },
    delegation: { ...parent.delegation, ...request.delegation },
    depth: parent.depth + 1,
  };
  const shape = writBodyProblems(body);
  if (shape.length > 0)
    return {
      ok: false,
      violations: shape.map((p) => ({ code: WritCode.malformed, field: p.field, message: p.message })),
    };
  const violations = subsetViolations(parent, body, avail);
  return violations.length > 0 ? { ok: false, violations } : { ok: true, body };
}

/**
 * Every way `child` is not a subset of `parent`, given the budget the parent can still give.
 * Also used to re-check each link of a chain (with the parent's full budget as `avail`).
 */
export function subsetViolations(
  parent: WritBody,
  child: WritBody,
  avail: WritBudget = parent.budget,
): WritViolation[] {
  const out: WritViolation[] = [];
  const v = (code: WritCode, field: string, message: string) => out.push({ code, field, message });
  if (!parent.delegation.maySubdivide)
    v(WritCode.notSubdividable, 'delegation', `writ ${parent.id} may not be subdivided`);
  if (child.tenant !== parent.tenant)
    v(WritCode.tenantChanged, 'tenant', `a child writ stays in tenant ${parent.tenant}, not ${child.tenant}`);
  if (child.depth > parent.delegation.maxDepth)
    v(
      WritCode.depthExceeded,
      'depth',
      `depth ${child.depth} exceeds the parent's delegation limit of ${parent.delegation.maxDepth}`,
    );
  if (child.delegation.maxDepth > parent.delegation.maxDepth)
    v(
      WritCode.depthExceeded,
      'delegation.maxDepth',
      `maxDepth ${child.delegation.maxDepth} is deeper than the parent's ${parent.delegation.maxDepth}`,
    );
  if (child.delegation.maySubdivide && !parent.delegation.maySubdivide)
    v(
      WritCode.notSubdividable,
      'delegation.maySubdivide',
      'the parent may not be subdivided, so neither may the child',
    );
  child.scopes.forEach((s, i) => {
    if (!parent.scopes.some((p) => patternCovers(p, s)))
      v(
        WritCode.scopeWidened,
        `scopes[${i}]`,
        `${s} is not within the parent's scopes (${parent.scopes.join(', ') || 'none'})`,
      );
  });
  for (const k of BUDGET_KEYS)
    if (child.budget[k] > avail[k])
      v(
        WritCode.budgetRaised,
        `budget.${k}`,
        `${child.budget[k]} ${k} is more than the parent's remaining ${avail[k]}`,
      );
  const [pb, pa, cb, ca] = [
    parent.window.notBefore,
    parent.window.notAfter,
    child.window.notBefore,
    child.window.notAfter,
  ].map((s) => parseInstant(s) ?? Number.NaN) as [number, number, number, number];
  if (!(cb >= pb))
    v(
      WritCode.windowExtended,
      'window.notBefore',
      `${child.window.notBefore} is before the parent's ${parent.window.notBefore}`,
    );
  if (!(ca <= pa))
    v(
      WritCode.windowExtended,
      'window.notAfter',
      `${child.window.notAfter} is after the parent's ${parent.window.notAfter}`,
    );
  if (EFFECT_RANK[child.effectCeiling.max] > EFFECT_RANK[parent.effectCeiling.max])
    v(
      WritCode.effectRaised,
      'effectCeiling.max',
      `${child.effectCeiling.max} is above the parent's ceiling of ${parent.effectCeiling.max}`,
    );
  if (child.effectCeiling.destructive && !parent.effectCeiling.destructive)
    v(WritCode.effectRaised, 'effectCeiling.destructive', 'the parent does not allow destructive tools');
  return out;
}
