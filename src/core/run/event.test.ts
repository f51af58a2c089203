import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { type EventProblem, parseEvent } from './event.ts';

const TENANT = 'acme';

function raw(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'evt_1042',
    type: 'refund.requested',
    tenant: TENANT,
    source: 'support-desk',
    subject: 'order-1042',
    payload: { amount_usd: 42.5, reason: 'damaged' },
    time: '2026-03-01T11:59:58Z',
    ...over,
  };
}

function problems(value: unknown, tenant = TENANT): EventProblem[] {
  try {
    parseEvent(value, tenant);
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    assert.equal(e.code, ErrorCode.eventInvalid);
    const list = e.details.problems as EventProblem[];
    assert.ok(
      e.message.startsWith(`event: ${list[0]!.field === '(event)' ? '' : list[0]!.field}`),
      e.message,
    );
    return list;
  }
  return assert.fail('expected the event to be refused');
}

function onlyProblem(value: unknown, field: string, message: RegExp): void {
  const list = problems(value);
  assert.equal(list.length, 1, JSON.stringify(list));
  assert.equal(list[0]!.field, field);
  assert.match(list[0]!.message, message);
}

describe('parseEvent', () => {
  it('returns the canonical event for a valid one', () => {
    assert.deepEqual(parseEvent(raw(), TENANT), raw());
  });

  it('fills in the tenant it is emitted into, an empty source and subject, and an empty payload', () => {
    assert.deepEqual(parseEvent({ id: 'e1', type: 'ping', time: '2026-03-01T12:00:00.123+02:00' }, TENANT), {
      id: 'e1',
      type: 'ping',
      tenant: TENANT,
      source: '',
      subject: '',
      payload: {},
      time: '2026-03-01T12:00:00.123+02:00',
    });
  });

  it('refuses an event that names another tenant, naming both tenants', () => {
    onlyProblem(
      raw({ tenant: 'globex' }),
      'tenant',
      /names tenant "globex" but is emitted into tenant "acme"/,
    );
  });

  it('refuses a missing id, type or time, naming each', () => {
    const { id: _id, type: _type, time: _time, ...rest } = raw();
    assert.deepEqual(
      problems(rest).map((p) => [p.field, p.message]),
      [
        ['id', 'is missing'],
        ['type', 'is missing'],
        ['time', 'is missing'],
      ],
    );
  });

  it('refuses empty or non-string required fields', () => {
    onlyProblem(raw({ id: '' }), 'id', /expected a non-empty string, got ""/);
    onlyProblem(raw({ type: 42 }), 'type', /expected a non-empty string, got 42/);
  });

  it('refuses a non-string source or subject but accepts an empty one', () => {
    onlyProblem(raw({ subject: ['order-1042'] }), 'subject', /expected a non-empty string/);
    assert.equal(parseEvent(raw({ source: '' }), TENANT).source, '');
  });

  it('refuses a time that is not RFC 3339 with a zone', () => {
    onlyProblem(raw({ time: '2026-03-01 11:59:58' }), 'time', /expected an RFC 3339 instant/);
    onlyProblem(raw({ time: '2026-03-01T11:59:58' }), 'time', /no zone/);
    onlyProblem(raw({ time: 'yesterday' }), 'time', /got "yesterday"/);
  });

  it('refuses impossible times (issue 26): the calendar, the clock and the offset are checked', () => {
    for (const [time, why] of [
      ['2026-02-30T00:00:00Z', /got "2026-02-30T00:00:00Z": February 2026 has 28 days/],
      ['2026-13-45T00:00:00Z', /month 13/],
      ['2026-03-01T25:00:00Z', /hour 25/],
      ['2026-03-01T23:61:00Z', /minute 61/],
      ['2026-03-01T23:00:00+25:00', /offset \+25:00/],
      ['0000-00-00T00:00:00Z', /month 00/],
      ['2026-04-31T00:00:00Z', /April 2026 has 30 days/],
    ] as const)
      onlyProblem(raw({ time }), 'time', why);
    assert.equal(
      parseEvent(raw({ time: '2028-02-29T23:59:59.999999999-23:59' }), TENANT).time,
      '2028-02-29T23:59:59.999999999-23:59',
    );
  });

  it('refuses overlong fields', () => {
    onlyProblem(raw({ subject: 'x'.repeat(513) }), 'subject', /longer than 512 characters/);
    const long = problems(raw({ time: `2026-03-01T11:59:58.${'0'.repeat(60)}Z` }));
    assert.deepEqual(long[0], { field: 'time', message: 'longer than 64 characters' });
  });

  it('refuses an unknown field, listing the fields an event has', () => {
    onlyProblem(
      raw({ amount_usd: 42.5 }),
      'amount_usd',
      /unknown field; an event has id, type, tenant, source, subject, payload, time/,
    );
  });

  it('refuses a payload that is not a JSON object', () => {
    onlyProblem(raw({ payload: [1, 2] }), 'payload', /expected a JSON object/);
    onlyProblem(raw({ payload: null }), 'payload', /expected a JSON object/);
    onlyProblem(raw({ payload: 'text' }), 'payload', /expected a JSON object/);
  });

  it('refuses a payload that cannot be hashed, naming the offending path', () => {
    onlyProblem(raw({ payload: { amount_usd: Number.NaN } }), 'payload', /\$\.amount_usd/);
    onlyProblem(raw({ payload: { order: { id: 2 ** 60 } } }), 'payload', /\$\.order\.id.*safe integer/);
  });

  it('refuses something that is not an object at all', () => {
    for (const v of [null, 'evt', 42, [raw()]]) {
      assert.deepEqual(problems(v), [{ field: '(event)', message: 'expected a JSON object' }]);
    }
  });

  it('reports every problem, and counts the rest in the message', () => {
    try {
      parseEvent({ type: '', tenant: 'globex', time: 'now', color: 'red' }, TENANT);
      assert.fail('expected a refusal');
    } catch (e) {
      assert.ok(isKeelError(e));
      const list = e.details.problems as EventProblem[];
      assert.deepEqual(list.map((p) => p.field).sort(), ['color', 'id', 'tenant', 'time', 'type']);
      assert.match(e.message, /\(\+4 more\)$/);
    }
  });

  it('does not change the value it was given', () => {
    const value = raw({ tenant: undefined });
    delete value.tenant;
    const before = structuredClone(value);
    parseEvent(value, TENANT);
    assert.deepStrictEqual(value, before);
  });
});
