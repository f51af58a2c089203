/**
 * `GET /api/runs/{runId}?waitMs=`: a long poll answered when the run stops running (woken by the
 * store's append notification, not by the slow poll), or when the wait has passed; without
 * `waitMs` the run is answered at once; a wait out of range is bad input naming the field. The same
 * wait on `POST /api/events?waitMs=` answers the runs the event started once they stopped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inProcessServer } from '../../test/helpers/in-process-server.ts';
import { deploy, spyTool } from '../testing/index.ts';

let release: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
const slow = spyTool('slow', {
  handler: async () => {
    await gate;
    return { slow: true };
  },
});
// Not idempotent: each call's allow and outcome are committed on their own (the durability rule).
const once = spyTool('once', { idempotent: false });
const t = inProcessServer({ tools: [slow, once] });

const SPEC = `id: held
version: 1
status: LIVE
triggers: [{event: hold}]
steps:
  - {name: a, tool: slow}
  - {name: b, tool: core.noop}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
let n = 0;
async function started(): Promise<string> {
  const r = await t.api('POST', '/api/events', {
    body: { id: `h-${++n}`, type: 'hold', time: '2026-01-31T12:00:00Z' },
  });
  assert.equal(r.status, 201, r.text);
  return (r.body.runs as { runId: string }[])[0]!.runId;
}

test('a long poll answers when the run stops, well before its wait has passed', async () => {
  await deploy(t.keel, 'acme', SPEC);
  gate = new Promise<void>((r) => {
    release = r;
  });
  const runId = await started();
  const now = await t.api('GET', `/api/runs/${runId}`);
  assert.equal(now.body.status, 'running', 'without waitMs the run is answered as it is');
  const t0 = performance.now();
  const waited = t.api('GET', `/api/runs/${runId}?waitMs=20000`);
  setTimeout(() => release(), 150);
  const r = await waited;
  const ms = performance.now() - t0;
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.status, 'completed');
  assert.ok(ms >= 140, `answered after ${ms} ms, before the run could finish`);
  // Woken by the append, not by the 1 s slow poll.
  assert.ok(ms < 900, `answered after ${ms} ms`);
});

test('a waiter reads the run again when it stops, not at each append that leaves it running', async () => {
  await deploy(
    t.keel,
    'acme',
    `id: many
version: 1
status: LIVE
triggers: [{event: many}]
steps:
  - {name: a, tool: slow}
  - {name: b, tool: once}
  - {name: c, tool: once}
  - {name: d, tool: once}
limits: {maxSteps: 4, maxCostUsd: 0}
`,
  );
  gate = new Promise<void>((r) => {
    release = r;
  });
  const r = await t.api('POST', '/api/events', {
    body: { id: `m-${++n}`, type: 'many', time: '2026-01-31T12:00:00Z' },
  });
  const runId = (r.body.runs as { runId: string }[])[0]!.runId;
  const appends: string[] = [];
  const stop = await t.keel.store.ledger.onAppended((id) => {
    if (id === runId) appends.push(id);
  });
  const get = t.keel.runs.get;
  let reads = 0;
  t.keel.runs.get = (tenant, id) => {
    if (id === runId) reads++;
    return get.call(t.keel.runs, tenant, id);
  };
  try {
    const waited = t.api('GET', `/api/runs/${runId}?waitMs=20000`);
    setTimeout(() => release(), 100);
    assert.equal((await waited).body.status, 'completed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Three calls committed one by one after the gate: the waiter heard each append.
    assert.ok(appends.length >= 3, `${appends.length} appends announced`);
    // Read when the wait began and once the run stopped (the route's own read aside).
    assert.ok(reads <= 3, `the run was read ${reads} times over ${appends.length} appends`);
  } finally {
    t.keel.runs.get = get;
    await stop();
  }
});

test('a long poll answers the running run when its wait has passed', async () => {
  gate = new Promise<void>((r) => {
    release = r;
  });
  const runId = await started();
  const t0 = performance.now();
  const r = await t.api('GET', `/api/runs/${runId}?waitMs=200`);
  assert.ok(performance.now() - t0 >= 190);
  assert.equal(r.body.status, 'running');
  release();
  assert.equal((await t.api('GET', `/api/runs/${runId}?waitMs=5000`)).body.status, 'completed');
});

test('a wait out of range is bad input naming waitMs; a missing run is not_found', async () => {
  const r = await t.api('GET', `/api/runs/sha256:${'0'.repeat(64)}?waitMs=30001`);
  assert.equal(r.status, 400, r.text);
  assert.match(r.text, /waitMs/);
  const missing = await t.api('GET', `/api/runs/sha256:${'0'.repeat(64)}?waitMs=100`);
  assert.equal(missing.status, 404, missing.text);
});

test('POST /api/events?waitMs answers once the run it started stopped: one request for a run and its outcome', async () => {
  gate = new Promise<void>((r) => {
    release = r;
  });
  const t0 = performance.now();
  const posted = t.api('POST', '/api/events?waitMs=20000', {
    body: { id: `h-${++n}`, type: 'hold', time: '2026-01-31T12:00:00Z' },
  });
  setTimeout(() => release(), 150);
  const r = await posted;
  const ms = performance.now() - t0;
  assert.equal(r.status, 201, r.text);
  const [run] = r.body.runs as { runId: string; status: string; created: boolean; workflowId: string }[];
  assert.equal(run!.status, 'completed');
  assert.equal(run!.created, true);
  assert.equal(run!.workflowId, 'held');
  assert.ok(ms >= 140 && ms < 900, `answered after ${ms} ms`);
  assert.equal((await t.api('GET', `/api/runs/${run!.runId}`)).body.status, 'completed');
});

test('POST /api/events?waitMs: a run still running when the wait has passed is answered running; a redelivery waits for the same run', async () => {
  gate = new Promise<void>((r) => {
    release = r;
  });
  const body = { id: `h-${++n}`, type: 'hold', time: '2026-01-31T12:00:00Z' };
  const t0 = performance.now();
  const r = await t.api('POST', '/api/events?waitMs=200', { body });
  assert.ok(performance.now() - t0 >= 190);
  assert.equal(r.status, 201, r.text);
  type Runs = { runId: string; status: string }[];
  const first = (r.body.runs as Runs)[0]!;
  assert.equal(first.status, 'running');
  release();
  const again = await t.api('POST', '/api/events?waitMs=5000', { body });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.redelivery, true);
  const redelivered = (again.body.runs as Runs)[0]!;
  assert.equal(redelivered.runId, first.runId);
  assert.equal(redelivered.status, 'completed');
});

test('POST /api/events with a wait out of range is bad input naming waitMs, and starts nothing', async () => {
  const id = `h-${++n}`;
  for (const w of ['30001', '-1', 'soon']) {
    const r = await t.api('POST', `/api/events?waitMs=${w}`, {
      body: { id, type: 'hold', time: '2026-01-31T12:00:00Z' },
    });
    assert.equal(r.status, 400, r.text);
    assert.match(r.text, /waitMs/);
  }
  const d = await t.api('GET', `/api/events/delivery?source=http&id=${id}`);
  assert.equal(d.status, 404, 'the refused event was never delivered');
});

test('POST /api/events?waitMs awaits the walk it started and reads its run once, when the walk stopped', async () => {
  gate = new Promise<void>((r) => {
    release = r;
  });
  const get = t.keel.runs.get;
  const reads: string[] = [];
  t.keel.runs.get = (tenant, id) => {
    reads.push(id);
    return get.call(t.keel.runs, tenant, id);
  };
  try {
    const posted = t.api('POST', '/api/events?waitMs=20000', {
      body: { id: `h-${++n}`, type: 'hold', time: '2026-01-31T12:00:00Z' },
    });
    setTimeout(() => release(), 100);
    const r = await posted;
    assert.equal(r.status, 201, r.text);
    const [run] = r.body.runs as { runId: string; status: string }[];
    assert.equal(run!.status, 'completed');
    // Not read while it ran, nor again at its appends: once, after the walk settled.
    assert.deepEqual(reads, [run!.runId]);
  } finally {
    t.keel.runs.get = get;
  }
});
