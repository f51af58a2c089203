/**
 * Schedule triggers in a spec (issue 29 §3): `schedule: { cron, timezone, missed }` read strictly
 * with field paths; a trigger is either `event:` or `schedule:`; a schedule trigger takes only its
 * own workflow's fires; `keel explain` says it in words; `keel diff` reads a changed schedule as a
 * behaviour change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainSpec } from '../authoring/explain-spec.ts';
import { ErrorCode, isKeelError } from '../errors.ts';
import { startsOn } from '../lifecycle/compare-starts.ts';
import { diffSpecs } from '../lifecycle/diff-specs.ts';
import type { SpecProblem } from './spec-problem.ts';
import { triggerMatches } from './trigger-matches.ts';
import { validateSpec } from './validate-spec.ts';

function spec(trigger: unknown, version = 1): Record<string, unknown> {
  return {
    id: 'close-stale',
    version,
    status: 'DRAFT',
    triggers: [trigger],
    steps: [{ name: 'close', tool: 'close_tickets', args: {} }],
    limits: { maxSteps: 2, maxCostUsd: 0 },
  };
}

function problems(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, String(e));
    return e.details.problems as SpecProblem[];
  }
  return [];
}

function one(value: unknown, field: string, message: RegExp): void {
  const p = problems(value);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.equal(p[0]!.field, field);
  assert.match(p[0]!.message, message);
}

const fire = (source: string, type = 'schedule.fired') => ({
  id: 'f1',
  type,
  tenant: 't',
  source,
  subject: 'close-stale',
  payload: {},
  time: '2026-12-07T08:00:00.000Z',
});

describe('schedule triggers', () => {
  it('accepts a schedule, defaults the zone to UTC and missed to once, and sets the fire event type', () => {
    const s = validateSpec(
      spec({ schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'each' } }),
      'spec.json',
    );
    assert.deepEqual(s.triggers, [
      {
        event: 'schedule.fired',
        schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'each' },
      },
    ]);
    const d = validateSpec(spec({ schedule: { cron: '*/5 * * * *' } }), 'spec.json');
    assert.deepEqual(d.triggers[0]!.schedule, { cron: '*/5 * * * *', timezone: 'UTC', missed: 'once' });
  });

  it('refuses each bad part with its field path', () => {
    one(spec({ schedule: { cron: '0 9 * *' } }), 'triggers[0].schedule.cron', /five fields/);
    one(spec({ schedule: { cron: '0 25 * * *' } }), 'triggers[0].schedule.cron', /hour/);
    one(spec({ schedule: { cron: 5 } }), 'triggers[0].schedule.cron', /cron/);
    one(spec({ schedule: {} }), 'triggers[0].schedule.cron', /cron/);
    one(
      spec({ schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } }),
      'triggers[0].schedule.timezone',
      /IANA/,
    );
    one(
      spec({ schedule: { cron: '0 9 * * *', missed: 'all' } }),
      'triggers[0].schedule.missed',
      /once, each, skip/,
    );
    one(spec({ schedule: { cron: '0 9 * * *', every: 1 } }), 'triggers[0].schedule.every', /.+/);
    one(spec({ schedule: 'daily' }), 'triggers[0].schedule', /mapping/);
    one(
      spec({ event: 'x.happened', schedule: { cron: '0 9 * * *' } }),
      'triggers[0].event',
      /either event: or schedule:/,
    );
    one(spec({ when: 'payload.a > 1', schedule: { cron: '0 9 * * *' } }), 'triggers[0].when', /either/);
  });

  it('keeps event triggers as they were', () => {
    const s = validateSpec(spec({ event: 'ticket.resolved', when: 'payload.age > 7' }), 'spec.json');
    assert.deepEqual(s.triggers, [{ event: 'ticket.resolved', when: 'payload.age > 7' }]);
    one(spec({}), 'triggers[0].event', /event type/);
  });

  it('takes only its own workflow’s fires', () => {
    const s = validateSpec(spec({ schedule: { cron: '0 9 * * *' } }), 'spec.json');
    const t = s.triggers[0]!;
    assert.equal(triggerMatches(t, fire('schedule:close-stale'), 'close-stale'), true);
    assert.equal(triggerMatches(t, fire('schedule:other'), 'close-stale'), false);
    assert.equal(triggerMatches(t, fire('schedule:close-stale', 'schedule.missed'), 'close-stale'), false);
    assert.equal(triggerMatches(t, fire('schedule:close-stale')), false);
    assert.equal(startsOn(s, { ...fire('schedule:close-stale') } as never), true);
    assert.equal(startsOn(s, { ...fire('api') } as never), false);
    // An event trigger on schedule.fired is not fooled into a schedule trigger either way.
    assert.equal(
      triggerMatches({ event: 'ticket.resolved' }, fire('schedule:close-stale'), 'close-stale'),
      false,
    );
  });

  it('is explained in words', () => {
    const s = validateSpec(
      spec({ schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'skip' } }),
      'spec.json',
    );
    const r = explainSpec(s, []);
    const text = JSON.stringify(r);
    assert.match(text, /on the schedule \\"0 9 \* \* 1-5\\"/i);
    assert.match(text, /Europe\/Berlin time/);
    assert.match(text, /skipped/);
  });

  it('diffs a changed schedule as a behaviour change, an unchanged one as nothing', () => {
    const a = validateSpec(
      spec({ schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' } }),
      'spec.json',
    );
    const same = validateSpec(
      spec({ schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' } }, 2),
      'spec.json',
    );
    assert.equal(diffSpecs(a, same).sameBehaviour, true);
    for (const changed of [
      { cron: '0 10 * * 1-5', timezone: 'Europe/Berlin' },
      { cron: '0 9 * * 1-5', timezone: 'Europe/London' },
      { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'skip' },
    ]) {
      const b = validateSpec(spec({ schedule: changed }, 2), 'spec.json');
      const d = diffSpecs(a, b);
      assert.equal(d.sameBehaviour, false, JSON.stringify(changed));
      assert.ok(d.changes.some((c) => c.area === 'trigger' && /schedule/.test(c.text) && c.behaviour));
    }
  });
});
