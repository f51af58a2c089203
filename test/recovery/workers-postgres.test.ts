/**
 * Crash safety of `keel worker` on PostgreSQL, with real processes killed by SIGKILL: three
 * workers drain a few hundred enqueued runs while random workers are killed and replaced; and a
 * worker killed inside a step has its run finished by another from the ledger head within 10 s.
 * Uses KEEL_TEST_DATABASE_URL (default the local server) in a fresh schema; never skips.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import { createKeel, type Keel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { startWorkers, WorkerProcess, type WorkerProcessOptions } from '../../src/testing/worker-process.ts';
import { checkAfterCrashes } from './crash-check.ts';
import { crashTools, EFFECTS_TABLE, effectLog } from './crash-tools.ts';

const url = testDatabaseUrl();
const TOOLS = join(import.meta.dirname, 'crash-tools.ts');
const schemas: string[] = [];
const workers: WorkerProcess[] = [];
after(async () => {
  for (const w of workers) if (w.alive) await w.kill9();
  for (const s of schemas) await dropSchema(url, s);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

/** A fresh schema with the effects table, and a Keel on it that only enqueues. */
async function setup(
  label: string,
  spec: string,
): Promise<{ keel: Keel; storeUrl: string; close(): Promise<void> }> {
  const schema = scratchSchemaName(`keel_test_${label}`);
  schemas.push(schema);
  const store = await openScratchStore(url, schema);
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  const storeUrl = u.toString();
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await c.connect();
  await c.query(EFFECTS_TABLE);
  await c.end();
  const log = effectLog(storeUrl);
  const keel = createKeel({ store, tools: crashTools(log), walk: 'enqueue' });
  await deploy(keel, 'acme', spec);
  const close = async () => {
    await log.close();
    await keel.close();
  };
  return { keel, storeUrl, close };
}

function spawnWorker(o: WorkerProcessOptions): WorkerProcess {
  const w = new WorkerProcess(o);
  workers.push(w);
  return w;
}

async function waitUntil(what: string, ms: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(100);
  }
}

const CRASH_SPEC = `
id: crash
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - { name: pay, tool: charge, args: { amount: 5 } }
  - { name: b, tool: note }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;

test('3 workers, 240 runs, 5 kill -9s: no run lost, every ledger intact, no effect repeated', async (t) => {
  const RUNS = 240;
  const { keel, storeUrl, close } = await setup('crash', CRASH_SPEC);
  const opts = {
    store: storeUrl,
    tools: TOOLS,
    concurrency: 2,
    leaseMs: 1500,
    pollMs: 250,
    env: { CRASH_EFFECTS: storeUrl },
  };
  try {
    const first = await startWorkers(3, opts);
    workers.push(...first);
    const live = [...first];
    await Promise.all(Array.from({ length: RUNS }, (_, i) => keel.events.emit('acme', go(`e${i}`))));
    const t0 = performance.now();
    let kills = 0;
    for (; kills < 5; kills++) {
      await sleep(400 + Math.random() * 1100);
      const victim = live.splice(Math.floor(Math.random() * live.length), 1)[0]!;
      await victim.kill9();
      live.push(spawnWorker(opts));
    }
    await waitUntil('no run is running', 60_000, async () => {
      return (await keel.runs.list('acme', { status: 'running', limit: 1 })).runs.length === 0;
    });
    const exits = await Promise.all(live.map((w) => w.terminate()));
    assert.deepEqual(
      exits.map((e) => e.code),
      live.map(() => 0),
      'SIGTERM stops a worker gracefully',
    );
    const rows = await effectLog(storeUrl).rows();
    const tally = await checkAfterCrashes(keel, 'acme', RUNS, rows);
    t.diagnostic(
      `after ${kills} kills, quiet in ${Math.round(performance.now() - t0)} ms: ${JSON.stringify(tally)}`,
    );
    assert.equal(tally.completed + tally.suspended, RUNS);
    assert.ok(tally.suspended + tally.retried > 0, 'the kills interrupted some runs mid-step');
  } finally {
    await close();
  }
});

const SLOW_SPEC = `
id: slow
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - { name: b, tool: note, args: { at: "{{clock.now}}" } }
  - { name: s, tool: slow }
  - { name: c, tool: note }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;

test('a worker killed mid-run: another finishes the run from the ledger head within 10 s', async (t) => {
  const { keel, storeUrl, close } = await setup('takeover', SLOW_SPEC);
  // Default lease (5 s) and poll (1 s): the bar holds without tuning.
  const opts = { store: storeUrl, tools: TOOLS, env: { CRASH_EFFECTS: storeUrl } };
  const log = effectLog(storeUrl);
  try {
    const pair = await startWorkers(2, opts);
    workers.push(...pair);
    const { runs } = await keel.events.emit('acme', go('slow-1'));
    const runId = runs[0]!.runId;
    let slowRow: { pids: string } | undefined;
    await waitUntil('the slow step is running', 20_000, async () => {
      slowRow = (await log.rows()).find((r) => r.tool === 'slow');
      return slowRow !== undefined;
    });
    const before = await keel.runs.storedEntries('acme', runId);
    const victim = pair.find((w) => w.pid === Number(slowRow!.pids))!;
    assert.ok(victim, `the slow call was made by one of the workers (pid ${slowRow!.pids})`);
    const t0 = performance.now();
    await victim.kill9();
    await waitUntil(
      'the run completes',
      20_000,
      async () => (await keel.runs.get('acme', runId)).status === 'completed',
    );
    const elapsed = performance.now() - t0;
    t.diagnostic(`another worker finished the run ${Math.round(elapsed)} ms after the kill`);
    assert.ok(elapsed < 10_000, `finished ${Math.round(elapsed)} ms after the kill`);

    const afterKill = await keel.runs.storedEntries('acme', runId);
    assert.ok(before.length >= 5, 'the head had moved past the first steps before the kill');
    assert.deepEqual(
      afterKill.slice(0, before.length).map((e) => e.hash),
      before.map((e) => e.hash),
      'the ledger continued from its head: nothing before it was rewritten',
    );
    const entries = await keel.runs.entries('acme', runId);
    const allows = entries.filter((e) => e.kind === 'step.allowed').map((e) => payloadOf(e, 'step.allowed'));
    assert.deepEqual(
      allows.map((a) => a.step),
      ['a', 'b', 's', 'c'],
    );
    assert.equal(entries.filter((e) => e.kind === 'source.drawn').length, 1, 'the clock was read once');
    const rows = new Map((await log.rows()).map((r) => [r.key, r]));
    assert.equal(
      rows.get(allows[0]!.idempotencyKey)?.calls,
      1,
      'step a, committed before the kill, never re-ran',
    );
    const slow = rows.get(allows[2]!.idempotencyKey)!;
    assert.equal(slow.calls, 2, 'the interrupted idempotent call was repeated with the same key');
    const survivor = pair.find((w) => w !== victim)!;
    assert.deepEqual(slow.pids.split(',').map(Number), [victim.pid, survivor.pid]);
    assert.equal((await keel.runs.verify('acme', runId)).ok, true);
    assert.equal((await survivor.terminate()).code, 0);
  } finally {
    await log.close();
    await close();
  }
});
