/**
 * Every end decided while a parallel branch's call is in flight waits for that call: an approval
 * denied in one branch while the other branch's call is still out ends the run only once that
 * call's outcome is recorded (the `run.finished` comes last), and the ledger replays identically
 * (on SQLite and a scratch PostgreSQL schema of KEEL_TEST_DATABASE_URL);
 * an end decided in a round (a step whose arguments cannot be built) is never lost when an
 * immediate pause cuts the other branch's call: that call is recorded, the run ends, and no later
 * step of the other branch is ever called.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../adapters/postgres/index.ts';
import { createKeel } from '../app/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const SPEC = `
id: asks
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - name: both
    parallel:
      join: all
      branches:
        slow: [{name: look, tool: slow_read, args: {n: 1}}]
        ask: [{name: x, tool: wipe, args: {target: disk}}]
  - {name: after, tool: slow_read, args: {n: 2}}
limits: {maxSteps: 10, maxCostUsd: 0}
`;

const step = (e: { payload: unknown }) => (e.payload as { step?: string }).step;

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_parallel_ends');
after(() => dropSchema(url, schema));
const BACKENDS: readonly { name: string; store: () => Promise<Store> | string }[] = [
  { name: 'SQLite', store: () => ':memory:' },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema) },
];

for (const backend of BACKENDS)
  test(`${backend.name}: an approval denied while another branch call is in flight: the run ends only after that call is recorded`, async () => {
    let answer!: () => void;
    const told = new Promise<void>((r) => {
      answer = r;
    });
    const slow = spyTool('slow_read', {
      effect: 'read',
      handler: async () => {
        await told;
        return { ok: true };
      },
    });
    const wipe = spyTool('wipe', { destructive: true, idempotent: false });
    const keel = createKeel({ store: await backend.store(), tools: [slow, wipe], sources: fakeSources() });
    try {
      await deploy(keel, 't1', SPEC);
      const walking = keel.events.emit('t1', {
        id: 'e1',
        type: 'go',
        subject: 's',
        time: '2026-01-01T00:00:00Z',
        payload: {},
      });
      let runId: string | undefined;
      for (let i = 0; i < 200 && !runId; i++) {
        await new Promise((r) => setTimeout(r, 10));
        const page = await keel.runs.list('t1');
        const r = page.runs?.[0] ?? (page as unknown as { items?: { runId: string }[] }).items?.[0];
        if (r && (await keel.runs.entries('t1', r.runId)).some((e) => e.kind === 'approval.requested'))
          runId = r.runId;
      }
      assert.ok(runId, 'the approval was requested while the slow call is out');
      assert.equal(slow.calls.length, 1);
      const denied = keel.approvals.deny('t1', runId, 'dana').catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 50));
      answer();
      await walking;
      await denied;
      const entries = await keel.runs.entries('t1', runId);
      const kinds = entries.map((e) => (step(e) ? `${e.kind}:${step(e)}` : e.kind));
      assert.equal(kinds.filter((k) => k === 'run.finished').length, 1, kinds.join(' '));
      assert.equal(kinds.at(-1), 'run.finished', kinds.join(' '));
      assert.ok(kinds.indexOf('step.completed:look') >= 0, kinds.join(' '));
      assert.equal(wipe.calls.length, 0);
      assert.equal(slow.calls.length, 1, `the slow call is not repeated: ${kinds.join(' ')}`);
      const end = entries.at(-1)!.payload as { status: string };
      assert.equal(end.status, 'refused');
      assert.equal((await keel.runs.replay('t1', runId)).identical, true);
      assert.equal((await keel.runs.verify('t1', runId)).ok, true);
    } finally {
      await keel.close();
    }
  });

const UNBUILT = `
id: unbuilt
version: 1
status: LIVE
triggers: [{event: go2}]
steps:
  - name: both
    parallel:
      join: all
      branches:
        a:
          - {name: a1, tool: slow, args: {n: 1}}
          - {name: a2, tool: note2, args: {n: 2}}
        c:
          - {name: c1, tool: note2, args: {v: "{{ random.float }}"}}
limits: {maxSteps: 10, maxCostUsd: 0}
`;

test('an end decided in a round (arguments that cannot be built) survives an immediate pause cutting the other call: the run ends and walks no further', async () => {
  const slow = spyTool('slow', {
    effect: 'read',
    handler: (_args, ctx) =>
      slow.calls.length > 1
        ? { ok: true }
        : new Promise((_resolve, reject) => {
            ctx.signal?.addEventListener('abort', () => reject(new Error('cut')));
          }),
  });
  const note2 = spyTool('note2');
  // A random source with no canonical value: step c1's arguments cannot be built.
  const base = fakeSources();
  const sources = { ...base, random: { ...base.random, float: () => Number.NaN } };
  const keel = createKeel({ store: ':memory:', tools: [slow, note2], sources });
  try {
    await deploy(keel, 't1', UNBUILT);
    const walking = keel.events.emit('t1', {
      id: 'e2',
      type: 'go2',
      subject: 's',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    while (slow.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const runId = slow.calls[0]!.ctx.runId;
    const paused = await keel.runs
      .pause('t1', runId, { by: 'dana', drainPolicy: 'immediate' })
      .catch((e) => e);
    await walking;
    const run = await keel.runs.get('t1', runId);
    if (run.status === 'paused') await keel.runs.resume('t1', runId, { by: 'dana' });
    const entries = await keel.runs.entries('t1', runId);
    const kinds = entries.map((e) => (step(e) ? `${e.kind}:${step(e)}` : e.kind));
    assert.equal(
      note2.calls.length,
      0,
      `no later step of branch a is called: ${kinds.join(' ')} (${JSON.stringify(paused)})`,
    );
    assert.equal(kinds.at(-1), 'run.finished', kinds.join(' '));
    assert.equal((entries.at(-1)!.payload as { status: string }).status, 'failed');
    assert.match((entries.at(-1)!.payload as { reason: string }).reason, /step c1: could not build/);
    assert.ok(kinds.includes('step.failed:a1'), `the cut call is recorded: ${kinds.join(' ')}`);
    assert.ok(!kinds.includes('step.allowed:a2'), kinds.join(' '));
    // Not replayed: a draw with no canonical value is recorded nowhere (as without branches).
    assert.equal((await keel.runs.verify('t1', runId)).ok, true);
  } finally {
    await keel.close();
  }
});
