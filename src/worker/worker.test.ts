/**
 * The worker loop in process, on SQLite files shared by two store handles (as two processes
 * would share them): it drains enqueued runs, keeps a run whose step outlasts the lease by
 * renewing it, drops a run quietly when another writer appended first, and on stop finishes the
 * current step and releases the rest.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { createKeel, type Keel } from '../app/index.ts';
import { deploy, isCode, spyTool } from '../testing/index.ts';
import { Worker, type WorkerOptions } from './worker.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-worker-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

function spec(steps: string): string {
  return `id: w\nversion: 1\nstatus: AUTONOMOUS\ntriggers: [{ event: go }]\nsteps:\n${steps}\nlimits: { maxSteps: 5, maxCostUsd: 0 }\n`;
}

/** A store file, a Keel that enqueues on it, and a maker of workers with their own store handle. */
async function setup(steps: string, stepMs = 0) {
  const path = join(dir, `w${n++}.db`);
  const tools = () => [
    spyTool('step', {
      handler: async () => {
        await sleep(stepMs);
        return { ok: true };
      },
    }),
  ];
  const keel = createKeel({ store: path, tools: tools(), walk: 'enqueue' });
  await deploy(keel, 'acme', spec(steps));
  const made: { worker: Worker; keel: Keel; tool: ReturnType<typeof spyTool> }[] = [];
  const worker = (o: Partial<WorkerOptions> = {}) => {
    const t = tools();
    const k = createKeel({ store: path, tools: t });
    const w = new Worker({
      engine: k.engine,
      store: k.store,
      id: `w${made.length}`,
      host: 'test',
      pid: process.pid,
      clock: { now: () => Date.now() },
      pollMs: 50,
      ...o,
    });
    made.push({ worker: w, keel: k, tool: t[0]! as ReturnType<typeof spyTool> });
    return made.at(-1)!;
  };
  const close = async () => {
    for (const m of made) {
      await m.worker.stop(100);
      await m.keel.close();
    }
    await keel.close();
  };
  return { keel, worker, close, path };
}

async function until(what: string, done: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

const statuses = async (keel: Keel) =>
  (await keel.runs.list('acme', { limit: 1000 })).runs.map((r) => r.status);

test('two workers drain enqueued runs, each run walked by one of them', async () => {
  const { keel, worker, close } = await setup('  - { name: a, tool: step }\n  - { name: b, tool: step }', 5);
  try {
    const [a, b] = [worker({ concurrency: 3 }), worker({ concurrency: 3 })];
    await a.worker.start();
    await b.worker.start();
    await Promise.all(Array.from({ length: 30 }, (_, i) => keel.events.emit('acme', go(`e${i}`))));
    await until('all runs completed', async () => (await statuses(keel)).every((s) => s === 'completed'));
    assert.equal(a.worker.stats.completed + b.worker.stats.completed, 30);
    assert.equal(a.tool.calls.length + b.tool.calls.length, 60, 'every step ran exactly once');
    assert.equal(a.worker.stats.errors + b.worker.stats.errors, 0);
  } finally {
    await close();
  }
});

test('a step longer than the lease keeps its run: the heartbeat renews the lease', async () => {
  const { keel, worker, close } = await setup('  - { name: a, tool: step }', 700);
  try {
    const a = worker({ leaseMs: 150 });
    await a.worker.start();
    await keel.events.emit('acme', go('long'));
    await until('the step started', async () => a.tool.calls.length === 1);
    const b = worker({ leaseMs: 150 });
    await b.worker.start();
    await until('the run completed', async () => (await statuses(keel))[0] === 'completed');
    assert.equal(b.worker.stats.claimed, 0, 'the other worker never got the run');
    assert.equal(b.tool.calls.length, 0);
  } finally {
    await close();
  }
});

test('a run appended to by another walker is dropped quietly, never forked', async () => {
  const { keel, worker, close } = await setup(
    '  - { name: a, tool: step }\n  - { name: b, tool: step }',
    300,
  );
  try {
    const a = worker();
    await a.worker.start();
    const runId = (await keel.events.emit('acme', go('raced'))).runs[0]!.runId;
    await until('the worker is in step a', async () => a.tool.calls.length === 1);
    // Recovering it by hand is refused while the worker's lease is live...
    const other = createKeel({ store: keel.store, tools: [spyTool('step')] });
    await assert.rejects(other.runs.recover('acme', runId), isCode('run_state'));
    // ...but another walker may still append at its head (here an operator cancels it).
    assert.equal((await other.runs.cancel('acme', runId, { by: 'ops' })).status, 'cancelled');
    await until('the worker let go', async () => a.worker.walking === 0);
    assert.equal(a.worker.stats.dropped, 1);
    assert.equal(a.worker.stats.errors, 0);
    assert.equal((await keel.runs.verify('acme', runId)).ok, true);
  } finally {
    await close();
  }
});

test('stop finishes the current step, commits it and releases the run for the next worker', async () => {
  const { keel, worker, close } = await setup(
    '  - { name: a, tool: step }\n  - { name: b, tool: step }',
    300,
  );
  try {
    const a = worker();
    await a.worker.start();
    const runId = (await keel.events.emit('acme', go('stopped'))).runs[0]!.runId;
    await until('the worker is in step a', async () => a.tool.calls.length === 1);
    await a.worker.stop();
    assert.equal(a.worker.stats.released, 1);
    const kinds = (await keel.runs.entries('acme', runId)).map((e) => e.kind);
    assert.deepEqual(kinds, ['run.started', 'step.allowed', 'step.completed']);
    assert.equal((await keel.store.queue.workerStatus(Date.now())).queueDepth, 1);
    assert.deepEqual((await keel.store.queue.workerStatus(Date.now())).workers, []);
    const b = worker();
    await b.worker.start();
    await until('the run completed', async () => (await statuses(keel))[0] === 'completed');
    assert.deepEqual(
      b.tool.calls.map((c) => c.ctx.step),
      ['b'],
      'the next worker went on from the head',
    );
  } finally {
    await close();
  }
});

test('a run that fails verification is never walked, and held an hour instead of retried at every lease', async () => {
  const { keel, worker, close, path } = await setup('  - { name: a, tool: step }');
  try {
    const runId = (await keel.events.emit('acme', go('tampered'))).runs[0]!.runId;
    // Its root edited in the file: the chain no longer verifies.
    const db = new Database(path);
    db.prepare(
      `UPDATE entries SET payload = CAST(replace(CAST(payload AS TEXT), '"tampered"', '"forged"') AS BLOB)
        WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq = 0`,
    ).run(runId);
    db.close();
    const w = worker({ leaseMs: 100, pollMs: 20 });
    await w.worker.start();
    await until('the worker tried it', async () => w.worker.stats.errors > 0);
    await sleep(600); // six lease periods
    assert.equal(w.worker.stats.claimed, 1, 'claimed once, not at every lease');
    assert.equal(w.tool.calls.length, 0);
    const held = (await keel.store.queue.workerStatus(Date.now())).leases.find((l) => l.owner === 'w0');
    assert.equal(held?.runs, 1, 'the worker holds the run (quarantined)');
    assert.equal((await keel.runs.get('acme', runId)).status, 'running', 'nothing was appended');
  } finally {
    await close();
  }
});
