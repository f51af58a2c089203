/**
 * Schedules across real processes and a crash, on PostgreSQL (issue 29 §3): a workflow fires every
 * minute with `missed: each`. Its last fire is 90 minutes old (one fire emitted by a scheduler whose
 * clock says so), as after downtime; then two real `keel worker` processes start, each with its
 * scheduler, and both catch up the same 90 missed fires at once. One is killed by SIGKILL in the
 * middle of the catch-up, and a replacement started. Every fire from the old one to the latest
 * runs exactly once — none twice, none lost — and every run completes and verifies.
 * No waiting for the wall clock: the downtime is made, not waited for.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import { createKeel } from '../../src/app/index.ts';
import { Scheduler } from '../../src/app/scheduler.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { WorkerProcess } from '../../src/testing/worker-process.ts';
import { Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_sched_crash');
const sandbox = new Sandbox('schedule-crash');
const workers: WorkerProcess[] = [];
const servers: KeelServer[] = [];
after(async () => {
  for (const w of workers) if (w.alive) await w.kill9();
  for (const s of servers) await s.kill9();
  await dropSchema(url, schema);
  sandbox.remove();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MIN = 60_000;
const DOWN_MINUTES = 90;

const SPEC = `id: minutely
version: 1
status: AUTONOMOUS
triggers: [{ schedule: { cron: "* * * * *", timezone: UTC, missed: each } }]
steps:
  - { name: a, tool: core.identity, args: { at: "{{event.payload.scheduledFor}}" } }
  - { name: b, tool: core.identity, args: { catchUp: "{{event.payload.catchUp}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

test('keel serve and keel worker catch up 90 missed fires, serve killed -9 mid catch-up: every fire runs exactly once', async (t) => {
  const store = await openScratchStore(url, schema);
  const keel = createKeel({ store, walk: 'enqueue' });
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  const opts = { store: u.toString(), pollMs: 200, leaseMs: 1500 };
  try {
    await deploy(keel, 'acme', SPEC);
    // The last fire handled, 90 minutes ago: a scheduler whose clock stood then.
    const first = Math.floor(Date.now() / MIN) * MIN - DOWN_MINUTES * MIN;
    await new Scheduler({
      store: keel.store,
      emit: (tenant, v) => keel.events.emit(tenant, v, { channel: 'schedule' }),
      tenants: async () => ['acme'],
      clock: () => first + 1_000,
    }).tick();
    const count = async () => (await keel.store.runs.listRuns('acme', { limit: 1000 })).runs.length;
    assert.equal(await count(), 1);

    const worker = new WorkerProcess(opts);
    workers.push(worker);
    const [server] = await Promise.all([KeelServer.start(sandbox, [], opts.store), worker.ready]);
    servers.push(server);
    // Kill the server in the middle of the catch-up: once some fires ran and most are still to come.
    let atKill = await count();
    while (atKill < 12) {
      await sleep(10);
      atKill = await count();
    }
    await server.kill9();
    t.diagnostic(`killed keel serve ${server.pid} with ${atKill} of ${DOWN_MINUTES + 1} fires started`);
    assert.ok(atKill < DOWN_MINUTES / 2, `the kill landed mid catch-up (${atKill} fires started)`);
    const restarted = await KeelServer.start(sandbox, [], opts.store);
    servers.push(restarted);

    // Until every fire up to now has its run and no run is left to walk.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const latest = Math.floor(Date.now() / MIN) * MIN;
      const expected = (latest - first) / MIN + 1;
      const { runs } = await keel.store.runs.listRuns('acme', { limit: 1000 });
      if (runs.length >= expected && runs.every((r) => r.status === 'completed')) break;
      if (Date.now() > deadline)
        assert.fail(
          `after 90 s: ${runs.length} runs of ${expected} fires, ${JSON.stringify(runs.map((r) => r.status))}`,
        );
      await sleep(200);
    }
    assert.equal((await worker.terminate()).code, 0);
    assert.equal(await restarted.stop(), 0);

    const { runs } = await keel.store.runs.listRuns('acme', { limit: 1000 });
    const fires: string[] = [];
    let catchUps = 0;
    for (const r of runs) {
      assert.equal((await keel.runs.verify('acme', r.runId)).ok, true, r.runId);
      const started = payloadOf((await keel.runs.entries('acme', r.runId))[0]!, 'run.started');
      fires.push(String(started.event.payload.scheduledFor));
      if (started.event.payload.catchUp === true) catchUps++;
    }
    fires.sort();
    const latest = Date.parse(fires.at(-1)!);
    const every = Array.from({ length: (latest - first) / MIN + 1 }, (_, i) =>
      new Date(first + i * MIN).toISOString(),
    );
    assert.deepEqual(fires, every, 'each minute since the old fire ran exactly once: none twice, none lost');
    assert.ok(fires.length >= DOWN_MINUTES + 1);
    assert.ok(catchUps >= DOWN_MINUTES - 1, `${catchUps} catch-ups`);
    t.diagnostic(`${fires.length} fires, ${catchUps} of them catch-ups, each one run`);
  } finally {
    await keel.close();
  }
});
