/**
 * `GET /api/schedules` through the real server app: the caller's tenant's scheduled workflows (a
 * LIVE version's schedule trigger, not a DRAFT's), each with its cron, zone, missed policy and the
 * next fire after now; another tenant's schedules are not there; no key is 401; the route is in
 * the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { inProcessServer } from '../../test/helpers/in-process-server.ts';
import { deploy } from '../testing/index.ts';

const spec = (id: string, status: string, cron: string) => `id: ${id}
version: 1
status: ${status}
triggers: [{ schedule: { cron: "${cron}", timezone: Europe/Berlin, missed: skip } }]
steps:
  - { name: a, tool: core.identity, args: { at: "{{event.payload.scheduledFor}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

const t = inProcessServer();
let acme = '';
let globex = '';
before(async () => {
  acme = (await t.keel.keys.create('acme', 'dana')).key;
  globex = (await t.keel.keys.create('globex', 'gus')).key;
  await deploy(t.keel, 'acme', spec('weekday-close', 'LIVE', '0 9 * * 1-5'));
  await deploy(t.keel, 'acme', spec('drafted', 'DRAFT', '*/5 * * * *'));
  await deploy(t.keel, 'globex', spec('globex-nightly', 'LIVE', '0 2 * * *'));
});

describe('GET /api/schedules', () => {
  test("lists the caller's tenant's scheduled LIVE workflows with their next fire", async () => {
    const before = Date.now();
    const res = await t.api('GET', '/api/schedules', { key: acme });
    assert.equal(res.status, 200);
    const schedules = res.body.schedules as {
      workflowId: string;
      version: number;
      schedule: { cron: string; timezone: string; missed: string };
      nextFire?: string;
      lastFire?: string;
      tenant?: string;
    }[];
    assert.deepEqual(
      schedules.map((s) => [
        s.workflowId,
        s.version,
        s.schedule.cron,
        s.schedule.timezone,
        s.schedule.missed,
      ]),
      [['weekday-close', 1, '0 9 * * 1-5', 'Europe/Berlin', 'skip']],
    );
    const s = schedules[0]!;
    assert.equal(s.tenant, undefined, 'the tenant is the caller’s; not repeated');
    assert.equal(s.lastFire, undefined, 'never fired');
    const next = new Date(s.nextFire!);
    assert.ok(next.getTime() > before, `${s.nextFire} is after now`);
    // 09:00 in Berlin on a weekday: 07:00 or 08:00 UTC (summer or winter time).
    assert.ok([7, 8].includes(next.getUTCHours()) && next.getUTCMinutes() === 0, s.nextFire);
    const weekday = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', weekday: 'short' }).format(
      next,
    );
    assert.ok(!['Sat', 'Sun'].includes(weekday), `${s.nextFire} falls on ${weekday}`);
  });

  test('another tenant sees only its own; no key is 401; the route is documented', async () => {
    const other = await t.api('GET', '/api/schedules', { key: globex });
    assert.deepEqual(
      (other.body.schedules as { workflowId: string }[]).map((s) => s.workflowId),
      ['globex-nightly'],
    );
    assert.equal((await t.api('GET', '/api/schedules', { key: '' })).status, 401);
    const doc = await t.api('GET', '/openapi.json');
    assert.ok((doc.body.paths as Record<string, unknown>)['/api/schedules'], 'in the OpenAPI document');
  });
});
