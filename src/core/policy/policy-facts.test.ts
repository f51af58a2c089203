/**
 * Clock facts are derived by arithmetic on the instant (read by position when it is in Keel's own
 * format, `toISOString`); they must agree with what Date derives on every instant, and an impossible
 * one (a day past the end of its month, hour 24: not RFC 3339, core/instant.ts) gives no facts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { anyInstant, clockText } from '../../testing/clock-text.ts';
import { instantProblem } from '../instant.ts';
import { policyFacts } from './policy-facts.ts';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const input = (clock: string) => ({
  tool: { name: 't', destructive: false, effect: 'read' as const, scopes: [] },
  args: {},
  tenant: 'acme',
  workflow: { id: 'w', status: 'LIVE' },
  clock,
});
const clockOf = (clock: string) => policyFacts(input(clock)).clock;

function viaDate(clock: string): Record<string, unknown> {
  const ms = Date.parse(clock);
  if (!Number.isFinite(ms) || instantProblem(clock) !== undefined) return {};
  const d = new Date(ms);
  const time = d.toISOString();
  return {
    time,
    date: time.slice(0, 10),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    weekday: WEEKDAYS[d.getUTCDay()],
  };
}

describe('policy clock facts', () => {
  it('read by position from Keel instants, they equal what Date derives', () => {
    fc.assert(
      fc.property(anyInstant, (d) => {
        const clock = d.toISOString();
        assert.deepEqual(clockOf(clock), viaDate(clock));
      }),
    );
  });

  it('every field value in the clock format, possible or not, gives what Date derives', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        (y, mo, d, h, mi) => {
          const clock = clockText(y, mo, d, h, mi);
          assert.deepEqual(clockOf(clock), viaDate(clock), clock);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('an impossible date or time in that format is no instant: no facts', () => {
    for (const clock of ['2026-02-31T10:00:00.000Z', '2026-03-14T24:00:00.000Z', '2026-03-14T10:60:00.000Z'])
      assert.deepEqual(clockOf(clock), {}, clock);
  });
});
