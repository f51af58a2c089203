/**
 * A step's approval deadline in words, for `keel explain`: `approval: { timeout: 24h, remind: 4h,
 * then: { escalate: finance-leads, timeout: 1d } }` reads "if nobody decides on its approval within
 * 24 hours, it goes to finance-leads, and is denied if nobody decides within 1 more day; a reminder
 * every 4 hours until then". Pure.
 */
import type { ApprovalDeadlineSpec } from '../spec/approval-deadline.ts';
import { durationWords } from './wait-words.ts';

export function approvalDeadlineWords(a: ApprovalDeadlineSpec): string {
  const then =
    a.then === 'deny'
      ? 'it is denied (approval_timeout)'
      : a.then.timeout
        ? `it goes to ${a.then.escalate}, and is denied if nobody decides within ${durationWords(a.then.timeout)} more`
        : `it goes to ${a.then.escalate}, with no further deadline`;
  const remind = a.remind ? `; a reminder every ${durationWords(a.remind)} until then` : '';
  return `if nobody decides on its approval within ${durationWords(a.timeout)}, ${then}${remind}`;
}
