/**
 * Crash safety of `keel worker` on SQLite (one file, the embedded default), with a real process:
 * one worker drains enqueued runs while it is killed with SIGKILL and restarted several times;
 * and a worker stopped with SIGTERM mid-step finishes that step, releases the run and exits 0
 * within its lease, so the next worker goes on from there without repeating the step.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { WorkerProcess, type WorkerProcessOptions } from '../../src/testing/worker-process.ts';
import { checkAfterCrashes } from './crash-check.ts';
import { crashTools, effectLog } from './crash-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-workers-sqlite-'));
const TOOLS = join(import.meta.dirname, 'crash-tools.ts');
const workers: WorkerProcess[] = [];
after(async () => {
  for (const w of workers) if (w.alive) await w.kill9();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

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

test('one worker on SQLite, killed with SIGKILL and restarted 4 times: nothing lost, nothing repeated', async (t) => {
  const RUNS = 120;
  const store = join(dir, 'crash.db');
  const effects = join(dir, 'crash-effects.db');
  const log = effectLog(effects);
  const keel = createKeel({ store, tools: crashTools(log), walk: 'enqueue' });
  try {
    await deploy(
      keel,
      'acme',
      `id: crash\nversion: 1\nstatus: AUTONOMOUS\ntriggers: [{ event: go }]\nsteps:\n  - { name: a, tool: note }\n  - { name: pay, tool: charge }\n  - { name: b, tool: note }\nlimits: { maxSteps: 3, maxCostUsd: 0 }\n`,
    );
    await Promise.all(Array.from({ length: RUNS }, (_, i) => keel.events.emit('acme', go(`e${i}`))));
    const opts = {
      store,
      tools: TOOLS,
      concurrency: 4,
      leaseMs: 1000,
      pollMs: 200,
      env: { CRASH_EFFECTS: effects },
    };
    let worker = spawnWorker(opts);
    let kills = 0;
    for (; kills < 4; kills++) {
      await worker.ready;
      await sleep(300 + Math.random() * 900);
      await worker.kill9();
      worker = spawnWorker(opts);
    }
    await waitUntil('no run is running', 60_000, async () => {
      return (await keel.runs.list('acme', { status: 'running', limit: 1 })).runs.length === 0;
    });
    assert.equal((await worker.terminate()).code, 0);
    const tally = await checkAfterCrashes(keel, 'acme', RUNS, await log.rows());
    t.diagnostic(`after ${kills} kills: ${JSON.stringify(tally)}`);
    assert.ok(tally.suspended + tally.retried > 0, 'the kills interrupted some runs mid-step');
  } finally {
    await log.close();
    await keel.close();
  }
});

test('SIGTERM mid-step: the worker finishes the step, releases the run, exits 0 within its lease', async (t) => {
  const store = join(dir, 'graceful.db');
  const effects = join(dir, 'graceful-effects.db');
  const log = effectLog(effects);
  const keel = createKeel({ store, tools: crashTools(log), walk: 'enqueue' });
  try {
    await deploy(
      keel,
      'acme',
      `id: slow\nversion: 1\nstatus: AUTONOMOUS\ntriggers: [{ event: go }]\nsteps:\n  - { name: a, tool: note }\n  - { name: s, tool: slow }\n  - { name: c, tool: note }\nlimits: { maxSteps: 3, maxCostUsd: 0 }\n`,
    );
    const opts = { store, tools: TOOLS, env: { CRASH_EFFECTS: effects, SLOW_MS: '1500' } };
    const first = spawnWorker(opts);
    await first.ready;
    const runId = (await keel.events.emit('acme', go('g1'))).runs[0]!.runId;
    await waitUntil('the slow step is running', 20_000, async () =>
      (await log.rows()).some((r) => r.tool === 'slow'),
    );
    const t0 = performance.now();
    const exit = await first.terminate();
    const stoppedIn = performance.now() - t0;
    t.diagnostic(`stopped ${Math.round(stoppedIn)} ms after SIGTERM`);
    assert.equal(exit.code, 0);
    assert.ok(stoppedIn < 5000, 'within the default lease of 5 s');
    const run = await keel.runs.get('acme', runId);
    assert.equal(run.status, 'running', 'the rest of the run is left for another worker');
    const kinds = (await keel.runs.entries('acme', runId)).map((e) => e.kind);
    assert.equal(kinds.at(-1), 'step.completed', 'the step in progress was finished and recorded');
    assert.equal((await keel.store.queue.workerStatus(Date.now())).queueDepth, 1, 'and the run was released');

    const second = spawnWorker(opts);
    await waitUntil(
      'the run completes',
      20_000,
      async () => (await keel.runs.get('acme', runId)).status === 'completed',
    );
    const allows = (await keel.runs.entries('acme', runId))
      .filter((e) => e.kind === 'step.allowed')
      .map((e) => payloadOf(e, 'step.allowed'));
    const calls = new Map((await log.rows()).map((r) => [r.key, r.calls]));
    assert.deepEqual(
      allows.map((a) => [a.step, calls.get(a.idempotencyKey)]),
      [
        ['a', 1],
        ['s', 1],
        ['c', 1],
      ],
      'no step ran twice',
    );
    assert.equal((await second.terminate()).code, 0);
  } finally {
    await log.close();
    await keel.close();
  }
});
