/**
 * The wait family of ledger entries: a run reaching a declared `wait` step (`wait.started`, with the
 * instant it fires at, computed from the recorded clock) and leaving it (`wait.ended`). Between
 * the two the run's status is `waiting`: it holds no process, and the store wakes it at `fireAt`.
 * A timer (`kind: 'timer'`) ends with `reason: 'timer'`; a wait for an event (`kind: 'event'`)
 * ends with `reason: 'event'`, carrying the matched event IN FULL (so replay and verify need no
 * store), or `reason: 'timeout'`. Deadlines will join this family as further kinds and reasons.
 *
 * Part of the ledger's schema (entry-kinds.ts): adding a required field changes what old ledgers
 * verify against; add optional fields instead.
 */
import type { Shape } from './entry-shape.ts';
import type { EventRecord } from './run-entries.ts';

/** The kinds of wait a `wait.started` records. */
export const WAIT_KINDS = ['timer', 'event'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** Why a wait ended. */
export const WAIT_END_REASONS = ['timer', 'event', 'timeout'] as const;
export type WaitEndReason = (typeof WAIT_END_REASONS)[number];

/** The payloads of the wait family's entries, by kind. */
export interface WaitPayloads {
  'wait.started': {
    /** The wait step. */
    step: string;
    kind: WaitKind;
    /**
     * When the wait fires: an RFC 3339 instant (UTC, milliseconds), the entry's own time plus
     * `for`, or `until`; for a wait for an event, its timeout (absent: none).
     */
    fireAt?: string;
    /** Set for `wait: { for }`: the declared duration, as written (`15m`). */
    for?: string;
    /** Set for `wait: { until }`: the instant its template resolved to, as resolved. */
    until?: string;
    /** A wait for an event: the event type waited for. */
    event?: string;
    /** A wait for an event: its match, as written (event.* the arriving event, run.event.* the run's own). */
    match?: string;
    /** A wait for an event: the declared timeout and lookback, as written. */
    timeout?: string;
    lookback?: string;
    /**
     * A wait for an event: the earliest arrival it takes (RFC 3339): the wait's start minus
     * `lookback`, never before the run started (absent lookback: the run's start).
     */
    since?: string;
  };
  'wait.ended': {
    step: string;
    reason: WaitEndReason;
    /** When the walk found the wait over: the clock as read then (at or after `fireAt`, for a timer or a timeout). */
    at: string;
    /** `reason: 'event'`: the matched event, in full, as delivered. */
    event?: EventRecord;
    /** `reason: 'event'`: when the event arrived (the store's delivery time, RFC 3339). */
    arrivedAt?: string;
    /** `reason: 'event'` with a match: each path the match read, with its value (missing as null). */
    reads?: Record<string, unknown>;
  };
}

export const WAIT_SHAPES: { readonly [K in keyof WaitPayloads]: Shape } = {
  'wait.started': {
    step: 'string',
    kind: WAIT_KINDS,
    fireAt: 'string?',
    for: 'string?',
    until: 'string?',
    event: 'string?',
    match: 'string?',
    timeout: 'string?',
    lookback: 'string?',
    since: 'string?',
  },
  'wait.ended': {
    step: 'string',
    reason: WAIT_END_REASONS,
    at: 'string',
    event: 'object?',
    arrivedAt: 'string?',
    reads: 'object?',
  },
};
