/**
 * A spec's triggers in its OpenWOP definition (`GET /workflows/{id}`): `manual` (an OpenWOP create
 * starts it directly), then each trigger as written — an event trigger with its type and
 * condition, a schedule with its cron, zone and missed-fire policy — so a graph client sees when
 * the workflow starts, schedules included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSpec } from '../core/spec/index.ts';
import { specAsDefinition } from './definition.ts';

test('event and schedule triggers show in the definition beside manual', () => {
  const spec = parseSpec(
    `id: desk
version: 1
status: LIVE
triggers:
  - { event: ticket.resolved, when: "payload.age_days > 7" }
  - schedule: { cron: "0 9 * * 1-5", timezone: Europe/Berlin, missed: skip }
  - schedule: { cron: "*/15 * * * *" }
steps:
  - { name: close, tool: close_tickets }
limits: { maxSteps: 1, maxCostUsd: 0 }
`,
    'desk.yaml',
  );
  assert.deepEqual((specAsDefinition(spec) as { triggers: unknown[] }).triggers, [
    { id: 'manual', type: 'manual' },
    { id: 'event-0', type: 'event', config: { event: 'ticket.resolved', when: 'payload.age_days > 7' } },
    {
      id: 'schedule-1',
      type: 'schedule',
      config: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'skip' },
    },
    { id: 'schedule-2', type: 'schedule', config: { cron: '*/15 * * * *', timezone: 'UTC', missed: 'once' } },
  ]);
});
