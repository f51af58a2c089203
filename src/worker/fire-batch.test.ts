/**
 * A worker woken by its timer fires the due waits in a batch beyond its concurrency: with one walk
 * slot and that walk's tool held, every due wait's end is recorded anyway (one at a time, only
 * the first would be); then each run's rest is walked once, in the slot, nothing twice. With
 * `fireBatch: 0` the worker walks one run at a time as before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { deploy, spyTool } from '../testing/index.ts';
import { Worker } from './worker.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-fire-batch-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RUNS = 20;

const SPEC = `id: cool
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - name: cool_off
    wait: { until: "{{ event.payload.at }}" }
  - { name: act, tool: act, args: { n: "{{ event.payload.n }}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

async function due(fireBatch: number | undefined) {
  const path = join(dir, `f${fireBatch ?? 'default'}.db`);
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const act = spyTool('act', {
    effect: 'read',
    handler: async () => {
      await gate;
      return { ok: true };
    },
  });
  const keel = createKeel({ store: path, tools: [act] });
  await deploy(keel, 'acme', SPEC);
  const at = Date.now() + 1500;
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await keel.events.emit('acme', {
      id: `e${i}`,
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: { at: new Date(at).toISOString(), n: i },
    });
    assert.equal(r.runs[0]!.status, 'waiting');
    ids.push(r.runs[0]!.runId);
  }
  const worker = new Worker({
    engine: keel.engine,
    store: keel.store,
    id: 'w1',
    host: 'test',
    pid: process.pid,
    clock: { now: () => Date.now() },
    concurrency: 1,
    ...(fireBatch !== undefined ? { fireBatch } : {}),
  });
  await worker.start();
  const ended = async () => {
    let n = 0;
    for (const id of ids) if ((await keel.runs.entries('acme', id)).some((e) => e.kind === 'wait.ended')) n++;
    return n;
  };
  try {
    // Past the fire time, the one slot's tool is held: how many fires were recorded?
    await sleep(at - Date.now() + 700);
    const whileHeld = await ended();
    open();
    const deadline = Date.now() + 20_000;
    while ((await keel.runs.list('acme', { status: 'completed', limit: 100 })).runs.length < RUNS) {
      if (Date.now() > deadline) throw new Error('runs did not complete');
      await sleep(50);
    }
    return { whileHeld, calls: act.calls.length, stats: worker.stats };
  } finally {
    open();
    await worker.stop(100);
    await keel.close();
  }
}

test('every due wait is fired at once beyond the one walk slot; each run then walked once', async () => {
  const r = await due(undefined);
  assert.equal(r.whileHeld, RUNS);
  assert.equal(r.calls, RUNS);
  assert.equal(r.stats.completed, RUNS);
  assert.equal(r.stats.errors, 0);
});

test('fireBatch 0: one run at a time, as before', async () => {
  const r = await due(0);
  assert.equal(r.whileHeld, 1);
  assert.equal(r.calls, RUNS);
});
