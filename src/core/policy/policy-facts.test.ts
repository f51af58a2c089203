/**
 * Clock facts are read by position from instants in Keel's own format (`toISOString`) and through
 * Date otherwise; both ways must agree on every instant, impossible ones included (which take the
 * Date path, as they always did).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
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
  if (!Number.isFinite(ms)) return {};
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
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z') }),
        (d) => {
          if (Number.isNaN(d.getTime())) return;
          const clock = d.toISOString();
          assert.deepEqual(clockOf(clock), viaDate(clock));
        },
      ),
    );
  });

  it('an impossible date or time in that format is not read by position', () => {
    for (const clock of ['2026-02-31T10:00:00.000Z', '2026-03-14T24:00:00.000Z', '2026-03-14T10:60:00.000Z'])
      assert.deepEqual(clockOf(clock), viaDate(clock), clock);
    assert.equal((clockOf('2026-02-31T10:00:00.000Z') as { date?: string }).date !== '2026-02-31', true);
  });
});
