/**
 * Crash recovery of `keel serve` with its embedded walkers, with real processes: a client creates
 * runs over OpenWOP (each answered 201 as soon as it is acknowledged, and walked in the background)
 * while the server is killed with SIGKILL at random points and restarted on the same port. After
 * the last restart, with no `keel worker` anywhere, every run the store holds — each acknowledged
 * one among them — completes from its ledger head, verifies, and no non-idempotent effect happened
 * twice: the effects are counted on the tools' own side. Once on SQLite, once on PostgreSQL; and on
 * SQLite once more with the runs started by events (`POST /api/events`), which the server walks in
 * the background from each durable root under its own lease (no claim).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { createKeel, type Keel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import type { RunRecord } from '../../src/ports/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { createKey } from '../helpers/keel-server.ts';
import { type CrashSite, crashSites, effectCalls, sleep, until } from './crash-site.ts';
import { crashTools } from './crash-tools.ts';

const RUNS = 200;
const KILLS = 4;
const SPEC = `id: crash
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - { name: pay, tool: pay }
  - { name: b, tool: note }
limits: { maxSteps: 6, maxCostUsd: 0 }
`;

const sites = crashSites();

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

/** How the client starts runs: OpenWOP creates, or events (`POST /api/events`, each a new id). */
type Via = 'openwop' | 'events';

/**
 * Creates runs until `target` were acknowledged (201), `inFlight` at a time. A request the server
 * never answered (it was killed) is not retried: the client does not know whether it made a run.
 * `acked` grows as it goes, so kills can be placed during the work.
 */
function client(url: () => string, key: string, target: number, inFlight: number, via: Via) {
  const acked = new Set<string>();
  let sent = 0;
  const one = async (): Promise<void> => {
    while (acked.size < target) {
      try {
        const body =
          via === 'openwop'
            ? { workflowId: 'crash', inputs: {} }
            : { id: `go-${sent++}`, type: 'go', time: '2026-12-05T00:00:00Z', payload: {} };
        const res = await fetch(`${url()}/${via === 'openwop' ? 'v1/runs' : 'api/events'}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as { runId?: string; runs?: { runId: string }[] };
        const runId = via === 'openwop' ? answer.runId : answer.runs?.[0]?.runId;
        if (res.status === 201 && runId) acked.add(runId);
        else await sleep(50);
      } catch {
        await sleep(50); // the server is down: wait for it to come back
      }
    }
  };
  return { acked, done: Promise.all(Array.from({ length: inFlight }, one)).then(() => acked) };
}

/**
 * ms from `t0` until the first of `runs` moved past its head (an entry appended, or no longer
 * running), read in one listing per poll; undefined when none did within 30 s.
 */
async function firstResumed(keel: Keel, runs: readonly RunRecord[], t0: number): Promise<number | undefined> {
  if (runs.length === 0) return undefined;
  const deadline = t0 + 30_000;
  while (performance.now() < deadline) {
    const now = new Map(
      (await keel.runs.list('acme', { status: 'running', limit: 1000 })).runs.map((r) => [
        r.runId,
        r.head.seq,
      ]),
    );
    if (runs.some((r) => (now.get(r.runId) ?? Number.POSITIVE_INFINITY) > r.head.seq))
      return Math.round(performance.now() - t0);
    await sleep(10);
  }
  return undefined;
}

async function crashAndRecover(
  t: { diagnostic(s: string): void },
  o: CrashSite,
  via: Via = 'openwop',
): Promise<void> {
  const keel: Keel = createKeel({ store: o.keelStore, tools: crashTools(o.log), walk: 'enqueue' });
  try {
    await deploy(keel, 'acme', SPEC);
    const key = createKey(o.sandbox, 'acme', o.store);
    const port = await freePort();
    const start = () => o.serve(['--port', String(port)]);
    let server = await start();
    const load = client(() => server.url, key, RUNS, 8, via);
    const interrupted: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      // Each kill lands at a random point of its share of the 200 runs, while runs are being walked.
      const at = Math.floor((RUNS * (k + Math.random())) / (KILLS + 1)) + 10;
      await until(`${at} runs were acknowledged`, 60_000, async () => load.acked.size >= at, 5);
      await server.kill9();
      // Read after the kill: nothing appends until the next server, so any head that moves was resumed.
      const running = (await keel.runs.list('acme', { status: 'running', limit: 1000 })).runs;
      interrupted.push(running.length);
      const t0 = performance.now();
      const resumed = firstResumed(keel, running, t0);
      server = await start();
      const listening = Math.round(performance.now() - t0);
      const first = await resumed;
      t.diagnostic(
        `restart ${k + 1}: listening after ${listening} ms; first resumed step ${first === undefined ? 'none (no run was interrupted mid-walk)' : `after ${first} ms`} (from the restart, process start-up included)`,
      );
    }
    const ackedIds = await load.done;
    assert.ok(
      interrupted.some((n) => n > 0),
      `a kill landed while runs were being walked (running at each kill: ${interrupted.join(', ')})`,
    );
    await until('no run is running', 60_000, async () => {
      return (await keel.runs.list('acme', { status: 'running', limit: 1 })).runs.length === 0;
    });
    const runs = [];
    for (let cursor: string | undefined; ; ) {
      const page = await keel.runs.list('acme', { limit: 1000, ...(cursor ? { cursor } : {}) });
      runs.push(...page.runs);
      if (!page.next) break;
      cursor = page.next;
    }
    assert.ok(runs.length >= RUNS, `every acknowledged run is in the store (${runs.length})`);
    const rows = await o.log.rows();
    const calls = await effectCalls(o.log);
    const allowed = new Set<string>();
    let reconciled = 0;
    for (const run of runs) {
      // (A run that did not complete names its ledger's entries, so a failure says why.)
      const why =
        run.status === 'completed'
          ? ''
          : `: ${(await keel.runs.entries('acme', run.runId)).map((e) => (e.kind.startsWith('step.') ? `${e.kind} ${JSON.stringify(payloadOf(e, e.kind as 'step.allowed'))}` : e.kind)).join('; ')}`;
      assert.equal(run.status, 'completed', `run ${run.runId} completed${why}`);
      assert.ok((await keel.runs.verify('acme', run.runId)).ok, `run ${run.runId} verifies`);
      const entries = await keel.runs.entries('acme', run.runId);
      const pays = entries
        .filter((e) => e.kind === 'step.allowed')
        .map((e) => payloadOf(e, 'step.allowed'))
        .filter((a) => {
          allowed.add(`${a.tool} ${a.idempotencyKey}`);
          return a.tool === 'pay';
        });
      const paid = pays.reduce((n, a) => n + (calls.get(`pay ${a.idempotencyKey}`) ?? 0), 0);
      assert.equal(paid, 1, `run ${run.runId}: the payment happened exactly once over its attempts`);
      reconciled += entries.filter((e) => e.kind === 'step.reconciled').length;
    }
    for (const r of rows)
      assert.ok(allowed.has(`${r.tool} ${r.key}`), `effect ${r.tool} ${r.key} was allowed`);
    const first = [...ackedIds][0];
    const res = await server.api<{ status: string }>(
      'GET',
      `/${via === 'openwop' ? 'v1' : 'api'}/runs/${first}`,
      {
        key,
      },
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'completed');
    await sleep(200); // let the last lines of its stderr pipe be read
    const recovered = (server.stderr.match(/"kind":"walked"/g) ?? []).length;
    t.diagnostic(
      `${runs.length} runs (${ackedIds.size} acknowledged) after ${KILLS} kills (running at each kill: ${interrupted.join(', ')}): all completed; ${reconciled} payments settled by their reconcile check; the last server recovered ${recovered}`,
    );
    assert.equal(await server.stop(), 0);
  } finally {
    await keel.close();
  }
}

test('keel serve on SQLite, killed with SIGKILL 4 times under load: every run completes, nothing repeated', async (t) => {
  await crashAndRecover(t, sites.sqlite('serve-crash'));
});

test('keel serve on SQLite, its runs started by events (walked in the background), killed with SIGKILL 4 times: every run completes, nothing repeated', async (t) => {
  await crashAndRecover(t, sites.sqlite('serve-crash-events'), 'events');
});

test('keel serve on PostgreSQL, killed with SIGKILL 4 times under load: every run completes, nothing repeated', async (t) => {
  await crashAndRecover(t, await sites.postgres('serve-crash'));
});
