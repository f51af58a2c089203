/**
 * The scheduler on PostgreSQL (issue 29 §3): two Keel handles on one schema — two processes, in
 * effect — each with its own scheduler, ticking at the same instants. Every fire starts exactly one
 * run: on time, minute after minute, and when both catch up the same downtime at once (`missed:
 * each`: every missed fire once, none twice, none lost; `once`: one catch-up). Time is an injected
 * clock; the store, the event index and the races are real.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeel, type Keel } from '../../app/index.ts';
import { Scheduler, type SchedulerEvent } from '../../app/scheduler.ts';
import { payloadOf } from '../../core/ledger/index.ts';
import { deploy, fakeSources } from '../../testing/index.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_scheduler');

const spec = (id: string, cron: string, missed: string) => `id: ${id}
version: 1
status: LIVE
triggers: [{ schedule: { cron: "${cron}", timezone: UTC, missed: ${missed} } }]
steps:
  - { name: a, tool: core.identity, args: { at: "{{event.payload.scheduledFor}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const at = (iso: string) => Date.parse(iso);
const MIN = 60_000;

describe('two schedulers on two PostgreSQL handles', () => {
  let a: Keel;
  let b: Keel;
  before(async () => {
    a = createKeel({ store: await openScratchStore(url, schema), sources: fakeSources() });
    b = createKeel({ store: await openScratchStore(url, schema), sources: fakeSources() });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dropSchema(url, schema);
  });

  const scheduler = (k: Keel, tenant: string, clock: { now: number }, log: SchedulerEvent[]) =>
    new Scheduler({
      store: k.store,
      emit: (t, v) => k.events.emit(t, v, { channel: 'schedule' }),
      tenants: async () => [tenant],
      clock: () => clock.now,
      log: (e) => log.push(e),
    });

  /** The fire instant of each run of a workflow, in run order as listed (sorted here). */
  const firesRun = async (k: Keel, tenant: string, workflowId: string) => {
    const { runs } = await k.store.runs.listRuns(tenant, { workflowId, limit: 1000 });
    const out: string[] = [];
    for (const r of runs) {
      const root = (await k.runs.entries(tenant, r.runId))[0]!;
      out.push(String(payloadOf(root, 'run.started').event.payload.scheduledFor));
    }
    return out.sort();
  };
  const minutes = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => new Date(from + i * MIN).toISOString());

  test('on time, minute after minute: each fire starts one run, whichever scheduler wins', async () => {
    const tenant = 'pg-on-time';
    await deploy(a, tenant, spec('minutely', '* * * * *', 'each'));
    const t0 = at('2026-12-07T09:00:00Z');
    const la: SchedulerEvent[] = [];
    const lb: SchedulerEvent[] = [];
    for (let m = 0; m < 6; m++) {
      const clock = { now: t0 + m * MIN + 2_000 };
      await Promise.all([scheduler(a, tenant, clock, la).tick(), scheduler(b, tenant, clock, lb).tick()]);
    }
    assert.deepEqual(await firesRun(b, tenant, 'minutely'), minutes(t0, 6));
    const fired = [...la, ...lb].filter((e) => e.kind === 'fired');
    assert.equal(fired.filter((e) => e.kind === 'fired' && !e.redelivery && e.runs === 1).length, 6);
    assert.deepEqual(
      [...la, ...lb].filter((e) => e.kind === 'error'),
      [],
    );
  });

  test('both catch up the same downtime at once: every missed fire runs once (each), one catch-up (once)', async () => {
    const tenant = 'pg-catch-up';
    await deploy(a, tenant, spec('each', '* * * * *', 'each'));
    await deploy(a, tenant, spec('once', '* * * * *', 'once'));
    const t0 = at('2026-12-07T09:00:00Z');
    await scheduler(a, tenant, { now: t0 + 1_000 }, []).tick();
    // Down for 40 minutes; both come back in the same second.
    const clock = { now: t0 + 40 * MIN + 10_000 };
    const la: SchedulerEvent[] = [];
    const lb: SchedulerEvent[] = [];
    await Promise.all([scheduler(a, tenant, clock, la).tick(), scheduler(b, tenant, clock, lb).tick()]);
    assert.deepEqual(await firesRun(a, tenant, 'each'), minutes(t0, 41), 'each fire once, none lost');
    // once: the latest missed fire (09:39) as the one catch-up, and 09:40, on time.
    assert.deepEqual(await firesRun(a, tenant, 'once'), [...minutes(t0, 1), ...minutes(t0 + 39 * MIN, 2)]);
    assert.deepEqual(
      [...la, ...lb].filter((e) => e.kind === 'error'),
      [],
    );
    // A third look, later in the same minute, adds nothing.
    await scheduler(b, tenant, { now: clock.now + 20_000 }, lb).tick();
    assert.equal((await firesRun(a, tenant, 'each')).length, 41);
  });
});
