/**
 * The wait family of ledger entries: a run reaching a declared `wait` step (`wait.started`, with the
 * instant it fires at, computed from the recorded clock) and leaving it (`wait.ended`). Between
 * the two the run's status is `waiting`: it holds no process, and the store wakes it at `fireAt`.
 * Only timers today (`kind: 'timer'`, ended with `reason: 'timer'`); waits for events and
 * deadlines will join this family as further kinds and reasons.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Shape } from './entry-shape.ts';

/** The kinds of wait a `wait.started` records. */
export const WAIT_KINDS = ['timer'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** Why a wait ended. */
export const WAIT_END_REASONS = ['timer'] as const;
export type WaitEndReason = (typeof WAIT_END_REASONS)[number];

/** The payloads of the wait family's entries, by kind. */
export interface WaitPayloads {
  'wait.started': {
    /** The wait step. */
    step: string;
    kind: WaitKind;
    /** When the wait fires: an RFC 3339 instant (UTC, milliseconds), the entry's own time plus `for`, or `until`. */
    fireAt: string;
    /** Set for `wait: { for }`: the declared duration, as written (`15m`). */
    for?: string;
    /** Set for `wait: { until }`: the instant its template resolved to, as resolved. */
    until?: string;
  };
  'wait.ended': {
    step: string;
    reason: WaitEndReason;
    /** When the walk found the wait over: the clock as read then (at or after `fireAt`). */
    at: string;
  };
}

export const WAIT_SHAPES: { readonly [K in keyof WaitPayloads]: Shape } = {
  'wait.started': {
    step: 'string',
    kind: WAIT_KINDS,
    fireAt: 'string',
    for: 'string?',
    until: 'string?',
  },
  'wait.ended': { step: 'string', reason: WAIT_END_REASONS, at: 'string' },
};
