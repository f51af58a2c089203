/**
 * Canonical inbound events: validated at the boundary, so nothing downstream sees a malformed one.
 * A delivered event is named by `(tenant, source, id)` and one delivered without a source takes
 * the channel's name (event-content.ts, `deliveredEvent`).
 */
import { canonicalize } from '../canonical/index.ts';
import { ErrorCode, KeelError } from '../errors.ts';
import { instantMessage } from '../instant.ts';
import type { EventRecord } from '../ledger/index.ts';
import { checkValueLimits, excerpt, JSON_LIMITS, quoteInput } from '../spec/index.ts';

const KNOWN = new Set(['id', 'type', 'tenant', 'source', 'subject', 'payload', 'time']);

export interface EventProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * Validates an event for `tenant`. An event that names another tenant is refused: a caller emits
 * only into the tenant it is authenticated for. An event past `JSON_LIMITS` (nesting, keys, string
 * length) is `payload_too_large`; messages echo excerpts of what was sent, never all of it.
 */
export function parseEvent(value: unknown, tenant: string): EventRecord {
  const problems: EventProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new KeelError(ErrorCode.eventInvalid, 'event: expected a JSON object', {
      field: '(event)',
      problems: [{ field: '(event)', message: 'expected a JSON object' }],
    });
  }
  checkValueLimits(value, JSON_LIMITS, 'event');
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v))
    if (!KNOWN.has(k)) add(excerpt(k, 60), `unknown field; an event has ${[...KNOWN].join(', ')}`);
  const str = (field: string, required: boolean, max = 512): string => {
    const x = v[field];
    if (x === undefined) {
      if (required) add(field, 'is missing');
      return '';
    }
    if (typeof x !== 'string' || (required && x.length === 0))
      add(field, `expected a non-empty string, got ${quoteInput(x)}`);
    else if (x.length > max) add(field, `longer than ${max} characters`);
    return typeof x === 'string' ? x : '';
  };
  const id = str('id', true);
  const type = str('type', true);
  const source = str('source', false);
  const subject = str('subject', false);
  const time = str('time', true, 64);
  // RFC 3339, the calendar included: 2026-02-30 or an hour of 25 is not a time (core/instant.ts).
  const badTime = time && time.length <= 64 ? instantMessage('time', time) : undefined;
  if (badTime) add('time', badTime.slice('time: '.length));
  if (v.tenant !== undefined && v.tenant !== tenant) {
    add(
      'tenant',
      `event names tenant ${quoteInput(v.tenant)} but is emitted into tenant ${quoteInput(tenant)}`,
    );
  }
  const payload = v.payload === undefined ? {} : v.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    add('payload', 'expected a JSON object');
  else {
    try {
      canonicalize(payload);
    } catch (e) {
      add('payload', excerpt((e as Error).message, 300));
    }
  }
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new KeelError(
      ErrorCode.eventInvalid,
      `event: ${first.field}: ${first.message}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`,
      { field: first.field, problems },
    );
  }
  // A copy: later changes to the caller's object never reach the recorded event.
  return {
    id,
    type,
    tenant,
    source,
    subject,
    payload: structuredClone(payload) as Record<string, unknown>,
    time,
  };
}
