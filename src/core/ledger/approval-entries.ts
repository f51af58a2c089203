/**
 * The approval family of ledger entries: a proposal waiting for a person (`approval.requested`),
 * that person's decision (`approval.resolved`, once), and a simulated run's assumed decision where
 * a person would have been asked (`approval.simulated`). Pending and resolved approvals are derived
 * from these entries, so a restart loses none. A step that declares an approval deadline
 * (core/spec/approval-deadline.ts) records what its deadline did: a reminder (`approval.reminded`),
 * the approval handed to another approver group (`approval.escalated`), or its expiry
 * (`approval.expired`, then the step refused with `approval_timeout`).
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
    /** When nobody's decision by then does what the step's `approval.then` says: the entry's time plus its timeout. */
    deadline?: string;
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
  /** A reminder of a pending approval was recorded (and sent, where a notifier is wired). */
  'approval.reminded': {
    proposalId: Digest;
    step: string;
    /** The approver group it waits for, once escalated; absent: the policy's approvers. */
    group?: string;
    /** The clock read then (the entry's own time): at or after the reminder fell due. */
    at: string;
  };
  /** The deadline passed with nobody's decision: the approval now waits for `to`. */
  'approval.escalated': {
    proposalId: Digest;
    step: string;
    to: string;
    /** The deadline that passed. */
    deadline: string;
    at: string;
    /** The new deadline (`at` plus the escalation's timeout), after which the approval is denied. */
    next?: string;
  };
  /** The deadline passed with nobody's decision and the step's approval says deny: the step is refused next. */
  'approval.expired': {
    proposalId: Digest;
    step: string;
    deadline: string;
    at: string;
    reason: 'approval_timeout';
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
    deadline: 'string?',
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
  'approval.reminded': { proposalId: 'digest', step: 'string', group: 'string?', at: 'string' },
  'approval.escalated': {
    proposalId: 'digest',
    step: 'string',
    to: 'string',
    deadline: 'string',
    at: 'string',
    next: 'string?',
  },
  'approval.expired': {
    proposalId: 'digest',
    step: 'string',
    deadline: 'string',
    at: 'string',
    reason: ['approval_timeout'],
  },
};
