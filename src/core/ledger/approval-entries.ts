/**
 * The approval family of ledger entries: a proposal waiting for a person (`approval.requested`),
 * that person's decision (`approval.resolved`, once), and a simulated run's assumed decision where
 * a person would have been asked (`approval.simulated`). Pending and resolved approvals are derived
 * from these entries, so a restart loses none.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Digest } from '../canonical/index.ts';
import type { Shape } from './entry-shape.ts';
import type { PolicyEntry } from './step-entries.ts';

/** The payloads of the approval entries, by kind. */
export interface ApprovalPayloads {
  'approval.requested': {
    step: string;
    tool: string;
    proposalId: Digest;
    args: Record<string, unknown>;
    costCents: number;
    reason: string;
    channel: string;
    policy?: PolicyEntry;
  };
  'approval.resolved': { proposalId: Digest; decision: 'approved' | 'denied'; by: string; note?: string };
  /**
   * A simulated run reached a proposal that needs a person's approval: nobody is asked
   * (would_wait_approval). `assumed` is the decision the run goes on with — a shadow run assumes
   * approval, a test run what its test says — and `by` names who assumed it.
   */
  'approval.simulated': {
    step: string;
    tool: string;
    proposalId: Digest;
    args: Record<string, unknown>;
    costCents: number;
    reason: string;
    channel: string;
    policy?: PolicyEntry;
    assumed: 'approved' | 'denied';
    by: string;
  };
}

export const APPROVAL_SHAPES: { readonly [K in keyof ApprovalPayloads]: Shape } = {
  'approval.requested': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    args: 'object',
    costCents: 'number',
    reason: 'string',
    channel: 'string',
    policy: 'object?',
  },
  'approval.resolved': {
    proposalId: 'digest',
    decision: ['approved', 'denied'],
    by: 'string',
    note: 'string?',
  },
  'approval.simulated': {
    step: 'string',
    tool: 'string',
    proposalId: 'digest',
    args: 'object',
    costCents: 'number',
    reason: 'string',
    channel: 'string',
    policy: 'object?',
    assumed: ['approved', 'denied'],
    by: 'string',
  },
};
