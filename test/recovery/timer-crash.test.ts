/**
 * Durable timers survive crashes, with real processes: runs wait on a timer while the `keel serve`
 * walking them (embedded walkers) is killed with SIGKILL — once while every run waits, once right
 * around the fire time, with timers firing — and restarted. Afterwards every run has completed,
 * each with exactly one `wait.started` and one `wait.ended` (its timer fired once), its payment
 * (a non-idempotent tool after the wait) happened exactly once, counted on the tool's own side,
 * and no wait ended before its fire time. On SQLite (one server), and on PostgreSQL with two
 * servers sharing the schema (two embedded workers: a timer fires on one of them only).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import {
  type CrashSite,
  countRuns,
  crashSites,
  effectCalls,
  paymentsMade,
  sleep,
  until,
} from './crash-site.ts';
import { crashTools } from './crash-tools.ts';

const RUNS = 60;
const WAIT_S = 4;
const SPEC = `id: timers
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - name: cool_off
    wait: { for: ${WAIT_S}s }
  - { name: pay, tool: pay }
  - { name: b, tool: note }
limits: { maxSteps: 6, maxCostUsd: 0 }
`;

const sites = crashSites();

async function crashWhileWaiting(
  t: { diagnostic(s: string): void },
  o: CrashSite,
  servers: number,
): Promise<void> {
  // Runs are committed with no lease and left to the servers' embedded workers.
  const keel = createKeel({ store: o.keelStore, tools: crashTools(o.log), walk: 'enqueue' });
  try {
    await deploy(keel, 'acme', SPEC);
    const start = () => o.serve();
    let fleet = await Promise.all(Array.from({ length: servers }, start));
    // Three batches half a second apart: the fire times spread over a second and a half.
    for (let b = 0; b < 3; b++) {
      for (let i = 0; i < RUNS / 3; i++) {
        const id = `e${b}-${i}`;
        await keel.events.emit('acme', { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
      }
      await sleep(500);
    }
    // Every run has reached its wait (the earliest may have fired already, with slow start-ups).
    await until(
      'every run waits',
      60_000,
      async () => (await countRuns(keel, 'waiting')) + (await countRuns(keel, 'completed')) === RUNS,
    );
    // Kill 1: every run waits; nothing is walking them. Restart.
    for (const s of fleet) await s.kill9();
    fleet = await Promise.all(Array.from({ length: servers }, start));
    // Kill 2: right around the first fire times, while timers fire.
    const runs = (await keel.runs.list('acme', { limit: 1000 })).runs;
    const fires: number[] = [];
    for (const r of runs) {
      const started = (await keel.runs.entries('acme', r.runId)).find((e) => e.kind === 'wait.started')!;
      fires.push(Date.parse(payloadOf(started, 'wait.started').fireAt!));
    }
    fires.sort((a, b) => a - b);
    await sleep(Math.max(0, fires[Math.floor(fires.length / 3)]! - Date.now()));
    const firedBeforeKill = RUNS - (await countRuns(keel, 'waiting'));
    // Lateness here includes the servers' downtime and start-up (seconds on a loaded machine);
    // the timers bench (bench/timers.ts) measures it with nothing killed.
    await fleet[0]!.kill9();
    await sleep(300);
    fleet[0] = await start();
    await until('every run completed', 60_000, async () => (await countRuns(keel, 'completed')) === RUNS);
    const calls = await effectCalls(o.log);
    const lateness: number[] = [];
    for (const r of runs) {
      const entries = await keel.runs.entries('acme', r.runId);
      assert.equal(entries.filter((e) => e.kind === 'wait.started').length, 1, `${r.runId}: one wait`);
      const ended = entries.filter((e) => e.kind === 'wait.ended');
      assert.equal(ended.length, 1, `${r.runId}: its timer fired once`);
      const started = payloadOf(entries.find((e) => e.kind === 'wait.started')!, 'wait.started');
      const late = Date.parse(ended[0]!.at) - Date.parse(started.fireAt!);
      assert.ok(late >= 0, `${r.runId}: never before its fire time`);
      lateness.push(late);
      assert.equal(
        paymentsMade(entries, calls),
        1,
        `run ${r.runId}: the payment after the wait happened exactly once`,
      );
      assert.ok((await keel.runs.verify('acme', r.runId)).ok, `run ${r.runId} verifies`);
    }
    lateness.sort((a, b) => a - b);
    t.diagnostic(
      `${RUNS} runs waited ${WAIT_S}s on ${servers} server(s), killed twice (all waiting; then with ${firedBeforeKill} of ${RUNS} fired): all completed, each timer fired once; lateness p50 ${lateness[Math.floor(RUNS / 2)]} ms, max ${lateness.at(-1)} ms (restarts included)`,
    );
    for (const s of fleet) assert.equal(await s.stop(), 0);
  } finally {
    await keel.close();
  }
}

test('timers on SQLite: keel serve SIGKILLed while runs wait and while timers fire; each fires once', async (t) => {
  await crashWhileWaiting(t, sites.sqlite('timer-crash'), 1);
});

test('timers on PostgreSQL, two servers: SIGKILL while runs wait and while timers fire; each fires once, on one server', async (t) => {
  await crashWhileWaiting(t, await sites.postgres('timer-crash'), 2);
});
