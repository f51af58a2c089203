/**
 * The scheduler (issue 29 §3) on a real SQLite file: two Keel instances sharing the file, each with
 * its own scheduler, fire a due schedule exactly once (one run, one delivered event; the other
 * answers the redelivery); a fire starts only its own workflow; and a restart after downtime
 * applies each `missed` policy — once: one catch-up, each: every missed fire, skip: none — marked
 * catchUp in the fire event. Time is an injected clock: no waiting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import { deploy, fakeSources, withStoreFile } from '../testing/index.ts';
import { createKeel, type Keel } from './keel.ts';
import { Scheduler, type SchedulerEvent, scheduledWorkflows } from './scheduler.ts';

const spec = (id: string, cron: string, missed = 'once') => `id: ${id}
version: 1
status: LIVE
triggers: [{ schedule: { cron: "${cron}", timezone: UTC, missed: ${missed} } }]
steps:
  - { name: a, tool: core.identity, args: { at: "{{event.payload.scheduledFor}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const at = (iso: string) => Date.parse(iso);

describe('the scheduler, on SQLite shared by two instances', () => {
  let a: Keel;
  let b: Keel;
  let done: () => void = () => {};
  let closed: Promise<void> = Promise.resolve();
  before(async () => {
    const path = await new Promise<string>((resolve) => {
      closed = withStoreFile('keel-scheduler', async (p) => {
        resolve(p);
        await new Promise<void>((r) => {
          done = r;
        });
      });
    });
    a = createKeel({ store: path, sources: fakeSources() });
    b = createKeel({ store: path, sources: fakeSources() });
  });
  after(async () => {
    await a.close();
    await b.close();
    done();
    await closed;
  });

  const scheduler = (k: Keel, tenant: string, clock: { now: number }, log: SchedulerEvent[]) =>
    new Scheduler({
      store: k.store,
      emit: (t, v) => k.events.emit(t, v, { channel: 'schedule' }),
      tenants: async () => [tenant],
      clock: () => clock.now,
      log: (e) => log.push(e),
    });

  const runsOf = async (k: Keel, tenant: string, workflowId: string) =>
    (await k.store.runs.listRuns(tenant, { workflowId })).runs.length;

  test('two schedulers fire a due schedule exactly once, and a fire starts only its own workflow', async () => {
    const tenant = 'sched-twice';
    await deploy(a, tenant, spec('daily', '0 9 * * *'));
    await deploy(a, tenant, spec('other', '30 9 * * *'));
    const clock = { now: at('2026-12-07T09:00:05Z') };
    const la: SchedulerEvent[] = [];
    const lb: SchedulerEvent[] = [];
    const [na] = await Promise.all([
      scheduler(a, tenant, clock, la).tick(),
      scheduler(b, tenant, clock, lb).tick(),
    ]);
    assert.equal(na, at('2026-12-07T09:30:00Z'));
    const fired = [...la, ...lb].filter((e) => e.kind === 'fired');
    assert.equal(fired.length, 2, JSON.stringify([...la, ...lb]));
    assert.equal(fired.filter((e) => e.kind === 'fired' && !e.redelivery).length, 1);
    assert.equal(await runsOf(a, tenant, 'daily'), 1);
    assert.equal(await runsOf(a, tenant, 'other'), 0);
    // Ticking again in the same minute fires nothing new.
    await scheduler(b, tenant, clock, lb).tick();
    assert.equal(await runsOf(b, tenant, 'daily'), 1);
    // The other workflow's fire starts it, not `daily`.
    clock.now = at('2026-12-07T09:30:01Z');
    await Promise.all([scheduler(a, tenant, clock, la).tick(), scheduler(b, tenant, clock, lb).tick()]);
    assert.equal(await runsOf(a, tenant, 'daily'), 1);
    assert.equal(await runsOf(a, tenant, 'other'), 1);
    // Nobody but the scheduler names a fire: an emitted event with a schedule source is refused.
    await assert.rejects(
      a.events.emit(tenant, {
        id: 'x',
        type: 'schedule.fired',
        source: 'schedule:daily',
        subject: 'daily',
        time: '2026-12-07T10:00:00Z',
        payload: {},
      }),
      (e: unknown) => isKeelError(e) && e.code === ErrorCode.eventInvalid,
    );
    assert.equal(await runsOf(a, tenant, 'daily'), 1);
    // The tenants a scheduler serves: those with a LIVE or AUTONOMOUS version, not a DRAFT-only one.
    await a.workflows.publish(
      'sched-draft-only',
      spec('draft', '0 9 * * *').replace('LIVE', 'DRAFT'),
      'd.yaml',
      't',
    );
    const served = await b.store.registry.routableTenants();
    assert.ok(served.includes(tenant) && !served.includes('sched-draft-only'), JSON.stringify(served));
    const listed = await scheduledWorkflows(a.store, tenant, clock.now);
    assert.deepEqual(
      listed.map((w) => [w.workflowId, w.lastFire, w.nextFire]),
      [
        ['daily', '2026-12-07T09:00:00.000Z', '2026-12-08T09:00:00.000Z'],
        ['other', '2026-12-07T09:30:00.000Z', '2026-12-08T09:30:00.000Z'],
      ],
    );
  });

  test('a restart after downtime applies each missed policy, recorded as catchUp', async () => {
    const tenant = 'sched-missed';
    for (const m of ['once', 'each', 'skip']) await deploy(a, tenant, spec(`hourly-${m}`, '0 * * * *', m));
    const clock = { now: at('2026-12-07T10:00:10Z') };
    const log: SchedulerEvent[] = [];
    await scheduler(a, tenant, clock, log).tick();
    for (const m of ['once', 'each', 'skip']) assert.equal(await runsOf(a, tenant, `hourly-${m}`), 1, m);
    // Down from 10:00 to 15:30: 11:00 .. 15:00 were missed. A new scheduler on the other instance.
    clock.now = at('2026-12-07T15:30:00Z');
    log.length = 0;
    await scheduler(b, tenant, clock, log).tick();
    const fires = (id: string) =>
      log.flatMap((e) => (e.kind === 'fired' && e.workflowId === id ? [[e.scheduledFor, e.catchUp]] : []));
    assert.deepEqual(fires('hourly-once'), [['2026-12-07T15:00:00.000Z', true]]);
    assert.deepEqual(
      fires('hourly-each'),
      [11, 12, 13, 14, 15].map((h) => [`2026-12-07T${h}:00:00.000Z`, true]),
    );
    assert.deepEqual(fires('hourly-skip'), []);
    assert.equal(await runsOf(a, tenant, 'hourly-once'), 2);
    assert.equal(await runsOf(a, tenant, 'hourly-each'), 6);
    assert.equal(await runsOf(a, tenant, 'hourly-skip'), 1);
    // Back on time: every policy fires the 16:00 fire, not a catch-up; skip's missed stay skipped.
    clock.now = at('2026-12-07T16:00:02Z');
    log.length = 0;
    await scheduler(a, tenant, clock, log).tick();
    for (const m of ['once', 'each', 'skip'])
      assert.deepEqual(fires(`hourly-${m}`), [['2026-12-07T16:00:00.000Z', false]], m);
  });

  test('missed: each catches up at most 100 fires, the latest', async () => {
    const tenant = 'sched-many';
    await deploy(a, tenant, spec('minutely', '* * * * *', 'each'));
    const clock = { now: at('2026-12-07T00:00:30Z') };
    const log: SchedulerEvent[] = [];
    await scheduler(a, tenant, clock, log).tick();
    clock.now = at('2026-12-08T00:00:30Z');
    log.length = 0;
    await scheduler(a, tenant, clock, log).tick();
    const f = log.filter((e) => e.kind === 'fired');
    assert.equal(f.length, 101, 'the latest 100 missed and the one on time');
    assert.equal(f.filter((e) => e.kind === 'fired' && e.catchUp).length, 100);
    assert.equal(f.at(-1)?.kind === 'fired' && f.at(-1)?.scheduledFor, '2026-12-08T00:00:00.000Z');
  });
});
