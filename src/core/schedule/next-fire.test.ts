/**
 * Cron parsing and next fires (issue 29 §3): strict fields named when wrong; next fires in a zone
 * across daylight saving — a nonexistent local time fires once at the transition, a repeated one
 * once at its first occurrence — and, for all crons, zones and instants (fast-check): the next fire
 * is after the instant, matches the fields (or is a gap's transition), and a run of fires never
 * fires one local minute twice, nor skips a matching instant between two fires.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Cron, dayMatches, isTimeZone, nextFire, parseCron, wallTime } from './index.ts';

const cron = (text: string): Cron => {
  const r = parseCron(text);
  assert.ok(r.ok, `parses ${text}`);
  return r.cron;
};
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

test('cron fields: lists, ranges, steps and names; anything else refused with the field named', () => {
  const c = cron('*/15 9-17/4 1,15 jan-mar MON-fri');
  assert.deepEqual(c.minutes, [0, 15, 30, 45]);
  assert.deepEqual(c.hours, [9, 13, 17]);
  assert.deepEqual(c.days, [1, 15]);
  assert.deepEqual(c.months, [1, 2, 3]);
  assert.deepEqual(c.weekdays, [1, 2, 3, 4, 5]);
  assert.deepEqual(cron('0 0 * * 7').weekdays, [0]);
  assert.deepEqual(cron('5/20 * * * *').minutes, [5, 25, 45]);
  for (const [text, field] of [
    ['0 9 * *', 'cron'],
    ['60 * * * *', 'minute'],
    ['* 24 * * *', 'hour'],
    ['* * 0 * *', 'day-of-month'],
    ['* * * 13 *', 'month'],
    ['* * * * 8', 'day-of-week'],
    ['* * * foo *', 'month'],
    ['*/0 * * * *', 'minute'],
    ['5-1 * * * *', 'minute'],
    ['1,,2 * * * *', 'minute'],
    ['? * * * *', 'minute'],
  ] as const) {
    const r = parseCron(text);
    assert.equal(r.ok, false, text);
    assert.equal(!r.ok && r.field, field, text);
  }
  assert.ok(isTimeZone('Europe/Berlin'));
  assert.ok(!isTimeZone('Mars/Olympus'));
});

test('weekdays at 9:00 in Berlin, across a weekend and in summer time', () => {
  const c = cron('0 9 * * 1-5');
  // Friday 2026-12-04 10:00 Berlin (09:00 UTC) -> Monday 2026-12-07 09:00 Berlin = 08:00 UTC.
  assert.equal(
    iso(nextFire(c, 'Europe/Berlin', Date.parse('2026-12-04T09:00:00Z'))),
    '2026-12-07T08:00:00.000Z',
  );
  assert.equal(
    iso(nextFire(c, 'Europe/Berlin', Date.parse('2026-07-01T06:00:00Z'))),
    '2026-07-01T07:00:00.000Z',
  );
});

test('spring forward: a nonexistent local time fires once, at the transition', () => {
  // Berlin, 2026-03-29: 02:00 local jumps to 03:00 (01:00 UTC).
  const c = cron('30 2 * * *');
  const at = nextFire(c, 'Europe/Berlin', Date.parse('2026-03-28T12:00:00Z'));
  assert.equal(iso(at), '2026-03-29T01:00:00.000Z');
  assert.equal(
    iso(nextFire(c, 'Europe/Berlin', at!)),
    '2026-03-30T00:30:00.000Z',
    'then 02:30 CEST the next day',
  );
  // Every 10 minutes in the missing hour: one fire at the transition, then 03:00 is the same instant, once.
  const every = cron('*/10 2-3 * * *');
  const fires: string[] = [];
  let t = Date.parse('2026-03-29T00:55:00Z');
  for (let i = 0; i < 3; i++) {
    t = nextFire(every, 'Europe/Berlin', t)!;
    fires.push(iso(t)!);
  }
  assert.deepEqual(fires, [
    '2026-03-29T01:00:00.000Z',
    '2026-03-29T01:10:00.000Z',
    '2026-03-29T01:20:00.000Z',
  ]);
});

test('fall back: a repeated local time fires once, at its first occurrence', () => {
  // Berlin, 2026-10-25: 03:00 CEST goes back to 02:00 CET (01:00 UTC); 02:30 happens at 00:30 and 01:30 UTC.
  const c = cron('30 2 * * *');
  const at = nextFire(c, 'Europe/Berlin', Date.parse('2026-10-24T12:00:00Z'));
  assert.equal(iso(at), '2026-10-25T00:30:00.000Z');
  assert.equal(iso(nextFire(c, 'Europe/Berlin', at!)), '2026-10-26T01:30:00.000Z', 'not again at 01:30 UTC');
});

test('a cron no day matches has no next fire', () => {
  assert.equal(nextFire(cron('0 0 30 2 *'), 'UTC', Date.parse('2026-01-01T00:00:00Z')), undefined);
});

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'America/Sao_Paulo',
];
const field = (min: number, max: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min: 1, max: 30 })).map(([a, s]) => `${a}/${s}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
  );
const crons = fc
  .tuple(field(0, 59), field(0, 23), fc.oneof(fc.constant('*'), field(1, 28)), fc.constant('*'), field(0, 6))
  .map((xs) => xs.join(' '));
const instants = fc
  .integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') })
  .map((t) => t - (t % 1000));

test('property: the next fire is after the instant, matches the fields or is a transition, and a run of fires never repeats a local minute', () => {
  fc.assert(
    fc.property(crons, fc.constantFrom(...ZONES), instants, (text, zone, t0) => {
      const c = cron(text);
      const seen = new Set<number>();
      let t = t0;
      for (let i = 0; i < 6; i++) {
        const next = nextFire(c, zone, t);
        if (next === undefined) return;
        assert.ok(next > t, 'monotonic');
        assert.equal(next % 60_000, 0, 'on a whole minute');
        const w = wallTime(next, zone);
        const d = new Date(w);
        const matches =
          dayMatches(c, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCDay()) &&
          c.hours.includes(d.getUTCHours()) &&
          c.minutes.includes(d.getUTCMinutes());
        const transition = wallTime(next - 60_000, zone) !== w - 60_000;
        assert.ok(matches || transition, `${text} in ${zone}: ${iso(next)} matches the fields`);
        assert.ok(!seen.has(w), `${text} in ${zone}: local ${iso(w)} fired twice`);
        seen.add(w);
        t = next;
      }
    }),
    { numRuns: 200 },
  );
});
