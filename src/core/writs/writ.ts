/**
 * The writ model: a signed capability token bounding what a run may do, and the codes of every
 * way a writ can fail.
 *
 * Owns the body's types, its content address (`writHash`, over the canonical body: the signature
 * covers exactly those bytes), the effect order (read < write < external) and the refusal codes.
 * Inert data: signing and checks live in their own modules; nothing here reads a clock or a key.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { ToolEffect } from '../tools/index.ts';

export interface WritBudget {
  /** Spend, in integer US cents. */
  readonly cents: number;
  /** Steps of the run (each proposal judged is one step). */
  readonly steps: number;
  /** Tool calls. */
  readonly calls: number;
}

export interface WritBody {
  readonly v: 1;
  readonly id: string;
  readonly tenant: string;
  /** Who or what holds the writ: a run, a workflow, an agent. */
  readonly subject: string;
  /** Key id of the key that signed this body (`keyIdOf(publicKey)`). */
  readonly issuer: string;
  /** `writHash` of the parent writ; null for a root writ. */
  readonly parent: Digest | null;
  /** Exact tool names or prefix patterns (`helpdesk.*`, `*`). */
  readonly scopes: readonly string[];
  readonly budget: WritBudget;
  /** ISO 8601 instants; valid from notBefore (inclusive) until notAfter (exclusive). */
  readonly window: { readonly notBefore: string; readonly notAfter: string };
  readonly effectCeiling: { readonly max: ToolEffect; readonly destructive: boolean };
  /** maxDepth bounds the depth of every descendant; maySubdivide allows children at all. */
  readonly delegation: { readonly maxDepth: number; readonly maySubdivide: boolean };
  /** 0 for a root writ, parent depth + 1 for a child. */
  readonly depth: number;
}

export interface SignedWrit {
  readonly body: WritBody;
  /** Ed25519 signature over the canonical body, base64url. */
  readonly signature: string;
}

export const EFFECT_RANK: Readonly<Record<ToolEffect, number>> = { read: 0, write: 1, external: 2 };

/** Every way a writ is refused; each is recorded as is in the ledger. */
export const WritCode = {
  // Attenuation (and the subset re-check of every link in a chain).
  scopeWidened: 'writ_scope_widened',
  budgetRaised: 'writ_budget_raised',
  windowExtended: 'writ_window_extended',
  effectRaised: 'writ_effect_raised',
  depthExceeded: 'writ_depth_exceeded',
  tenantChanged: 'writ_tenant_changed',
  notSubdividable: 'writ_not_subdividable',
  // Chain verification.
  malformed: 'writ_malformed',
  chainUntrusted: 'writ_chain_untrusted',
  parentMismatch: 'writ_parent_mismatch',
  signatureInvalid: 'writ_signature_invalid',
  // Checking a proposal, in this order (after the chain verifies).
  tenantDenied: 'writ_tenant_denied',
  revoked: 'writ_revoked',
  notYetValid: 'writ_not_yet_valid',
  expired: 'writ_expired',
  scopeDenied: 'writ_scope_denied',
  effectDenied: 'writ_effect_denied',
  budgetExhausted: 'writ_budget_exhausted',
} as const;
export type WritCode = (typeof WritCode)[keyof typeof WritCode];

/** One reason a writ was refused: the code, the field it concerns, and a sentence. */
export interface WritViolation {
  readonly code: WritCode;
  readonly field: string;
  readonly message: string;
}

/** The content address of a writ: SHA-256 of its canonical body. Children name parents by it. */
export function writHash(w: WritBody | SignedWrit): Digest {
  return hashOf('body' in w ? w.body : w);
}
