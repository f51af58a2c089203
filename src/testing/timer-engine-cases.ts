/**
 * Durable timers end to end, on any store (bound by the SQLite and PostgreSQL engine tests): a run
 * reaching `wait: { for }` is `waiting` with its wake time in the store and nothing walking it; a
 * worker does not wake it before its time, wakes it once when due, and the run goes on; the ledger
 * verifies and replays byte for byte without sleeping or calling anything; a bad `until` fails the
 * run naming the step; cancel ends a waiting run. Real time, short waits (a second or two).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy } from './deploy.ts';
import { spyTool } from './spy-tools.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = (entries: readonly Entry[]) => entries.map((e) => e.kind);

export function timerSpec(wait: string, id = 'cool'): string {
  return `id: ${id}
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: grant, tool: grant }
  - name: cool_off
    wait: ${wait}
  - { name: revoke, tool: revoke }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;
}

async function until(what: string, f: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

export function timerEngineCases(open: () => Promise<Store | string>): void {
  const tools = (expiresAt = '') => ({
    grant: spyTool('grant', { handler: async () => ({ expiresAt }) }),
    revoke: spyTool('revoke'),
  });
  const keelOn = async (t: ReturnType<typeof tools>): Promise<Keel> =>
    createKeel({ store: await open(), tools: [t.grant, t.revoke] });

  test('a timer: the run waits holding nothing, is not woken early, fires once on time', async () => {
    const t = tools();
    const keel = await keelOn(t);
    try {
      await deploy(keel, 'acme', timerSpec('{ for: 2s }'));
      const [run] = (
        await keel.events.emit('acme', { id: 'e1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
      ).runs;
      assert.equal(run?.status, 'waiting');
      const runId = run!.runId;
      const entries = await keel.runs.entries('acme', runId);
      assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'step.completed', 'wait.started']);
      const started = payloadOf(entries[3]!, 'wait.started');
      assert.equal(started.for, '2s');
      const fireAt = Date.parse(started.fireAt!);
      assert.equal(fireAt, Date.parse(entries[3]!.at) + 2000, 'the fire time is the recorded clock plus 2s');
      assert.equal(await keel.store.queue.nextWakeAt(fireAt - 1), fireAt, 'the row has its wake time');
      const status = await keel.store.queue.workerStatus(Date.now());
      assert.deepEqual(
        status.leases.filter((l) => l.runs > 0 && l.owner.startsWith('inline')),
        [],
      );
      assert.ok((status.timers?.waiting ?? 0) >= 1);
      const worker = keel.worker({ concurrency: 4 });
      await worker.start();
      try {
        await sleep(Math.max(0, fireAt - Date.now() - 400));
        assert.equal((await keel.runs.get('acme', runId)).status, 'waiting', 'not before its time');
        assert.equal(t.revoke.calls.length, 0);
        await until(
          'the timer fired',
          async () => (await keel.runs.get('acme', runId)).status === 'completed',
        );
      } finally {
        await worker.stop();
      }
      const after = await keel.runs.entries('acme', runId);
      assert.deepEqual(kinds(after).slice(3), [
        'wait.started',
        'wait.ended',
        'step.allowed',
        'step.completed',
        'run.finished',
      ]);
      const ended = payloadOf(after[4]!, 'wait.ended');
      assert.equal(ended.reason, 'timer');
      assert.ok(Date.parse(ended.at) >= fireAt, 'ended at or after the fire time');
      assert.equal(ended.at, after[4]!.at);
      assert.ok(Date.parse(ended.at) - fireAt < 1000, `lateness ${Date.parse(ended.at) - fireAt} ms`);
      assert.equal(t.revoke.calls.length, 1, 'the step after the wait ran once');
      assert.equal((await keel.runs.verify('acme', runId)).ok, true);
      const t0 = Date.now();
      const replay = await keel.runs.replay('acme', runId);
      assert.equal(replay.identical, true, JSON.stringify(replay));
      assert.ok(Date.now() - t0 < 1000, 'replay never sleeps');
      assert.equal(t.revoke.calls.length, 1, 'replay called nothing');
      // Forks from inside the wait and after it: a replay fork serves the wait from the record.
      const fork = await keel.runs.fork('acme', runId, { fromSeq: 5, mode: 'replay' });
      assert.equal(fork.status, 'completed');
      assert.equal((await keel.runs.verify('acme', fork.runId)).ok, true);
    } finally {
      await keel.close();
    }
  });

  test('wait until an instant from an earlier step; a value that is no instant fails the run naming the step', async () => {
    const soon = new Date(Date.now() - 1000).toISOString();
    const t = tools(soon);
    const keel = await keelOn(t);
    try {
      await deploy(keel, 'acme', timerSpec('{ until: "{{ steps.grant.output.expiresAt }}" }'));
      const [run] = (
        await keel.events.emit('acme', { id: 'u1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
      ).runs;
      // An instant already past: the wait starts and ends at once.
      assert.equal(run?.status, 'completed');
      const entries = await keel.runs.entries('acme', run!.runId);
      assert.equal(payloadOf(entries[3]!, 'wait.started').until, soon);
      assert.equal(entries[4]!.kind, 'wait.ended');
    } finally {
      await keel.close();
    }
    const bad = tools('next tuesday');
    const keel2 = await keelOn(bad);
    try {
      await deploy(keel2, 'acme', timerSpec('{ until: "{{ steps.grant.output.expiresAt }}" }', 'cool2'));
      const [run] = (
        await keel2.events.emit('acme', { id: 'u2', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
      ).runs;
      assert.equal(run?.status, 'failed');
      const last = (await keel2.runs.entries('acme', run!.runId)).at(-1)!;
      assert.match(
        payloadOf(last, 'run.finished').reason ?? '',
        /^step cool_off: wait\.until: expected an RFC 3339 instant/,
      );
      assert.equal(bad.revoke.calls.length, 0);
    } finally {
      await keel2.close();
    }
  });

  test('a waiting run can be cancelled, and its timer then wakes nothing', async () => {
    const t = tools();
    const keel = await keelOn(t);
    try {
      await deploy(keel, 'acme', timerSpec('{ for: 1s }', 'cool3'));
      const [run] = (
        await keel.events.emit('acme', { id: 'c1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
      ).runs;
      assert.equal(run?.status, 'waiting');
      const done = await keel.runs.cancel('acme', run!.runId, { by: 'dana', reason: 'not needed' });
      assert.equal(done.status, 'cancelled');
      const worker = keel.worker({});
      await worker.start();
      await sleep(1500);
      await worker.stop();
      assert.equal(t.revoke.calls.length, 0);
      assert.equal((await keel.runs.get('acme', run!.runId)).status, 'cancelled');
      assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    } finally {
      await keel.close();
    }
  });
}
