/**
 * Cancelling runs: a run walked in this process right now is aborted between steps or inside its
 * tool call; any other unfinished run gets `run.finished` cancelled at its head. A finished run
 * cannot be cancelled, another tenant's run cannot be seen, and a cancelled ledger verifies,
 * replays identically (its cancellation too) and forks (a fork does not inherit the cancellation).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-cancel-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
const spec = (steps: string, status = 'LIVE') =>
  `id: w\nversion: 1\nstatus: ${status}\ntriggers: [{event: go}]\nsteps:\n${steps}\nlimits: {maxSteps: 4, maxCostUsd: 0}\n`;
const GATED = spec(
  '  - {name: a, tool: noop}\n  - {name: gate, tool: core.approvalGate}\n  - {name: b, tool: noop}',
);

async function emitOne(keel: Keel, tenant = 't1', id = 'e1') {
  const [run] = (await keel.events.emit(tenant, go(id))).runs;
  assert.ok(run);
  return run;
}

/**
 * The checks every cancelled ledger passes: verify, an identical replay (the cancellation too), and
 * replay forks. A fork of the whole ledger is cancelled like its source; a fork from an earlier
 * point is a new run: the source's cancellation is not its own, so it goes on, served from the
 * record and failing closed (`replay_source_missing`) where nothing was recorded — and it never
 * calls a tool (the spies here all write).
 */
async function assertSound(keel: Keel, runId: string, calls: () => number = () => 0) {
  assert.equal((await keel.runs.verify('t1', runId)).ok, true);
  const replay = await keel.runs.replay('t1', runId);
  assert.equal(replay.identical, true, JSON.stringify(replay));
  const entries = await keel.runs.entries('t1', runId);
  const before = calls();
  for (let fromSeq = 1; fromSeq <= entries.length; fromSeq++) {
    const fork = await keel.runs.fork('t1', runId, { fromSeq, mode: 'replay' });
    const forked = await keel.runs.entries('t1', fork.runId);
    const at = `replay fork from seq ${fromSeq}`;
    assert.deepEqual(kinds(forked).slice(0, fromSeq), kinds(entries).slice(0, fromSeq), at);
    if (fromSeq === entries.length) {
      assert.equal(fork.status, 'cancelled', at);
      assert.deepEqual(kinds(forked), kinds(entries), at);
      assert.deepEqual(await keel.approvals.list('t1', fork.runId), []);
    } else {
      assert.notEqual(fork.status, 'cancelled', `${at}: the source's cancellation is not the fork's`);
      for (const e of forked.slice(fromSeq))
        if (e.kind === 'step.failed')
          assert.equal(payloadOf(e, 'step.failed').error.code, 'replay_source_missing', at);
    }
    assert.equal((await keel.runs.verify('t1', fork.runId)).ok, true);
  }
  assert.equal(calls(), before, 'no replay fork called a tool');
}

describe('cancel', () => {
  test('a run waiting for an approval ends cancelled, and its approval is no longer pending', async () => {
    const noop = spyTool('noop');
    const keel = createKeel({ store: ':memory:', tools: [noop], sources: fakeSources() });
    await deploy(keel, 't1', GATED);
    const run = await emitOne(keel);
    assert.equal(run.status, 'waiting_approval');
    assert.equal((await keel.approvals.list('t1')).length, 1);
    const done = await keel.runs.cancel('t1', run.runId, { by: 'dana', reason: 'duplicate ticket' });
    const { created: _created, ...summary } = run;
    assert.deepEqual(done, {
      ...summary,
      status: 'cancelled',
      reason: 'cancelled by dana: duplicate ticket',
    });
    assert.deepEqual(await keel.approvals.list('t1'), []);
    assert.equal((await keel.runs.get('t1', run.runId)).status, 'cancelled');
    const entries = await keel.runs.entries('t1', run.runId);
    assert.deepEqual(payloadOf(entries.at(-1)!, 'run.finished'), {
      status: 'cancelled',
      outputs: { a: { ok: true, echo: {} } },
      reason: 'cancelled by dana: duplicate ticket',
    });
    const history = await keel.runs.history('t1', run.runId);
    assert.equal(history.at(-1)?.text, 'Run cancelled by dana: duplicate ticket.');
    // Nothing runs afterwards: approving is refused, the rest of the plan never starts.
    await assert.rejects(keel.approvals.approve('t1', run.runId, 'erin'), isCode('run_state'));
    assert.equal((await keel.runs.recover('t1', run.runId)).status, 'cancelled');
    assert.equal(noop.calls.length, 1);
    await assertSound(keel, run.runId, () => noop.calls.length);
    await keel.close();
  });

  test('a finished run cannot be cancelled: run_terminal names the run and its status', async () => {
    const keel = createKeel({ store: ':memory:', tools: [spyTool('noop')], sources: fakeSources() });
    await deploy(keel, 't1', spec('  - {name: a, tool: noop}'));
    const run = await emitOne(keel);
    assert.equal(run.status, 'completed');
    await assert.rejects(keel.runs.cancel('t1', run.runId, { by: 'dana' }), (e: unknown) => {
      assert.ok(isKeelError(e));
      assert.equal(e.code, 'run_terminal');
      assert.deepEqual(e.details, { runId: run.runId, status: 'completed' });
      assert.match(e.message, new RegExp(`run ${run.runId} is completed`));
      return true;
    });
    assert.equal((await keel.runs.entries('t1', run.runId)).at(-1)?.kind, 'run.finished');
    assert.equal((await keel.runs.get('t1', run.runId)).status, 'completed');
    await keel.close();
  });

  test("is tenant-scoped: another tenant's run, like an unknown one, is not_found and unchanged", async () => {
    const keel = createKeel({ store: ':memory:', tools: [spyTool('noop')], sources: fakeSources() });
    await deploy(keel, 't1', GATED);
    const run = await emitOne(keel);
    await assert.rejects(keel.runs.cancel('t2', run.runId, { by: 'mallory' }), isCode('not_found'));
    await assert.rejects(keel.runs.cancel('t1', 'sha256:nope', { by: 'dana' }), isCode('not_found'));
    assert.equal((await keel.runs.get('t1', run.runId)).status, 'waiting_approval');
    assert.equal((await keel.approvals.list('t1')).length, 1);
    await keel.close();
  });

  test('needs to know who cancels', async () => {
    const keel = createKeel({ store: ':memory:', tools: [spyTool('noop')], sources: fakeSources() });
    await deploy(keel, 't1', GATED);
    const run = await emitOne(keel);
    await assert.rejects(keel.runs.cancel('t1', run.runId, { by: '' }), isCode('usage'));
    assert.equal((await keel.runs.get('t1', run.runId)).status, 'waiting_approval');
    await keel.close();
  });

  test('a running run nobody walks here (left for a worker) ends cancelled, and no worker walks it', async () => {
    const noop = spyTool('noop');
    const keel = createKeel({ store: ':memory:', tools: [noop], sources: fakeSources(), walk: 'enqueue' });
    await deploy(keel, 't1', spec('  - {name: a, tool: noop}'));
    const run = await emitOne(keel);
    assert.equal(run.status, 'running');
    const done = await keel.runs.cancel('t1', run.runId, { by: 'ops' });
    assert.equal(done.status, 'cancelled');
    assert.equal(done.reason, 'cancelled by ops');
    assert.deepEqual(kinds(await keel.runs.entries('t1', run.runId)), ['run.started', 'run.finished']);
    assert.equal((await keel.runs.recover('t1', run.runId)).status, 'cancelled');
    assert.equal(noop.calls.length, 0);
    await assertSound(keel, run.runId, () => noop.calls.length);
    await keel.close();
  });

  test('a walk between steps stops at the next step boundary; a tool that returns is recorded as it returned', async () => {
    let release!: () => void;
    const slow = spyTool('slow', { handler: () => new Promise((r) => (release = () => r({ done: true }))) });
    const noop = spyTool('noop');
    const keel = createKeel({ store: ':memory:', tools: [slow, noop], sources: fakeSources() });
    await deploy(keel, 't1', spec('  - {name: a, tool: slow}\n  - {name: b, tool: noop}'));
    const emitted = keel.events.emit('t1', go('e1'));
    while (slow.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
    const ctx = slow.calls[0]!.ctx;
    assert.ok(ctx.signal, 'the tool gets an abort signal');
    const runId = ctx.runId;
    const cancelling = keel.runs.cancel('t1', runId, { by: 'dana', reason: 'stop' });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(ctx.signal.aborted, true);
    release(); // the tool ignores the signal and returns: its effect happened, so it is recorded
    const done = await cancelling;
    assert.equal(done.status, 'cancelled');
    assert.equal((await emitted).runs[0]?.status, 'cancelled');
    assert.equal(noop.calls.length, 0);
    const entries = await keel.runs.entries('t1', runId);
    assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'step.completed', 'run.finished']);
    assert.deepEqual(payloadOf(entries[3]!, 'run.finished').outputs, { a: { done: true } });
    await assertSound(keel, runId, () => slow.calls.length + noop.calls.length);
    await keel.close();
  });

  test('a tool that throws once cancelled is recorded as step.failed with code cancelled', async () => {
    const stubborn = spyTool('stubborn', {
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal?.addEventListener('abort', () => reject(new Error('interrupted'))),
        ),
    });
    const keel = createKeel({ store: ':memory:', tools: [stubborn], sources: fakeSources() });
    await deploy(keel, 't1', spec('  - {name: a, tool: stubborn}'));
    const emitted = keel.events.emit('t1', go('e1'));
    while (stubborn.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
    const runId = stubborn.calls[0]!.ctx.runId;
    assert.equal((await keel.runs.cancel('t1', runId, { by: 'dana' })).status, 'cancelled');
    await emitted;
    const entries = await keel.runs.entries('t1', runId);
    assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'step.failed', 'run.finished']);
    assert.deepEqual(payloadOf(entries[2]!, 'step.failed').error, {
      code: 'cancelled',
      message: 'stubborn was stopped: cancelled by dana',
    });
    await assertSound(keel, runId, () => stubborn.calls.length);
    await keel.close();
  });

  test('a run suspended as outcome_unknown ends cancelled; nothing calls the tool again', async () => {
    const path = join(dir, `c${n++}.db`);
    let calls = 0;
    const charge = () =>
      spyTool('charge', {
        effect: 'external',
        idempotent: false,
        handler: () => {
          calls++;
          return new Promise(() => {}); // the first process "dies" inside the call
        },
      });
    const first = createKeel({ store: path, tools: [charge()] });
    await deploy(first, 't1', spec('  - {name: pay, tool: charge}', 'AUTONOMOUS'));
    void first.events.emit('t1', go('e1'));
    while (calls === 0) await new Promise((r) => setTimeout(r, 5));
    const [row] = (await first.runs.list('t1')).runs;
    const keel = createKeel({ store: path, tools: [charge()] });
    assert.equal((await keel.runs.recover('t1', row!.runId)).status, 'outcome_unknown');
    const done = await keel.runs.cancel('t1', row!.runId, { by: 'ops', reason: 'refunded by hand' });
    assert.equal(done.status, 'cancelled');
    assert.deepEqual(kinds(await keel.runs.entries('t1', row!.runId)), [
      'run.started',
      'step.allowed',
      'run.suspended',
      'run.finished',
    ]);
    await assert.rejects(
      keel.runs.reconcile('t1', row!.runId, { happened: true, by: 'ops' }),
      isCode('run_state'),
    );
    assert.equal(calls, 1);
    await assertSound(keel, row!.runId, () => calls);
    await keel.close();
  });

  test('a stale head is never overwritten: the run is read again and cancelled at its new head', async () => {
    const keel = createKeel({ store: ':memory:', tools: [spyTool('noop')], sources: fakeSources() });
    await deploy(keel, 't1', GATED);
    const run = await emitOne(keel);
    // Someone else appends first, between our read and our append.
    const store = keel.store;
    const append = store.ledger.append.bind(store.ledger);
    let raced = false;
    store.ledger.append = async (req) => {
      if (!raced && req.entries.some((e) => e.kind === 'run.finished')) {
        raced = true;
        await keel.runs.cancel('t1', run.runId, { by: 'erin' });
      }
      return append(req);
    };
    await assert.rejects(keel.runs.cancel('t1', run.runId, { by: 'dana' }), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'run_terminal', String(e));
      assert.equal(e.details.status, 'cancelled');
      return true;
    });
    const entries = await keel.runs.entries('t1', run.runId);
    assert.equal(entries.filter((e) => e.kind === 'run.finished').length, 1);
    assert.equal(payloadOf(entries.at(-1)!, 'run.finished').reason, 'cancelled by erin');
    assert.equal((await keel.runs.verify('t1', run.runId)).ok, true);
    store.ledger.append = append;
    await keel.close();
  });
});
