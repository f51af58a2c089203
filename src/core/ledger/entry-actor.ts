/**
 * Who acted, and with which refusal code, as a ledger entry says it: the one definition the audit
 * query's `actor` and `code` filters follow (the stores turn it into SQL; `namesActor` and
 * `hasCode` are its reference, which the store contract holds them to). Pure: payloads in,
 * answers out.
 *
 * An entry names X as its actor when it records X deciding or doing something to the run:
 * - `approval.resolved` `by` (approved or denied), `approval.simulated` `by` (who assumed the
 *   decision in a simulated run: `shadow`, or `test <name>`), `step.reconciled` `by` (the person,
 *   or with `via: tool` the tool whose check settled it), `run.paused` `by`, `run.resumed` `by`;
 * - `step.allowed` `approvedBy` (the approval the step ran on);
 * - `run.finished` with status `cancelled`: the `<by>` of its reason, which reads
 *   `cancelled by <by>` or `cancelled by <by>: <why>` (cancel-reason.ts).
 * No other entry names an actor: a run's root records the event (whose `source` and `subject` are
 * what the sender said, not an authenticated principal), and the engine's own entries act for no one.
 */
import type { EntryKind } from './entry-kinds.ts';

/** The payload field naming who acted, per kind that has one (run.finished aside: CANCELLED_BY). */
export const ACTOR_FIELDS = {
  'approval.resolved': 'by',
  'approval.simulated': 'by',
  'step.reconciled': 'by',
  'run.paused': 'by',
  'run.resumed': 'by',
  'step.allowed': 'approvedBy',
} as const satisfies Partial<Record<EntryKind, string>>;

/** How a cancelled run's `run.finished` reason starts; the actor follows, then `: <why>` or nothing. */
export const CANCELLED_BY = 'cancelled by ';

/** The kinds whose `code` is a refusal or ending code: `step.refused` (the check's code), `run.finished`. */
export const CODE_KINDS = ['step.refused', 'run.finished'] as const satisfies readonly EntryKind[];

const field = (payload: unknown, name: string): unknown =>
  typeof payload === 'object' && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)[name]
    : undefined;

/** Whether an entry of `kind` with this (decoded) payload names `actor` as who acted (see above). */
export function namesActor(kind: string, payload: unknown, actor: string): boolean {
  const name = (ACTOR_FIELDS as Readonly<Record<string, string>>)[kind];
  if (name !== undefined) return field(payload, name) === actor;
  if (kind !== 'run.finished' || field(payload, 'status') !== 'cancelled') return false;
  const reason = field(payload, 'reason');
  const exact = `${CANCELLED_BY}${actor}`;
  return typeof reason === 'string' && (reason === exact || reason.startsWith(`${exact}: `));
}

/** Whether an entry of `kind` with this (decoded) payload carries refusal code `code`. */
export function hasCode(kind: string, payload: unknown, code: string): boolean {
  return (CODE_KINDS as readonly string[]).includes(kind) && field(payload, 'code') === code;
}
