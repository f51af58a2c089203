import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isKeelError } from '../core/errors.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import { validateArgs } from '../core/tools/index.ts';
import type { ToolContext, ToolDefinition } from '../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
import { CORE_TOOLS, MAX_DELAY_MS } from './core-tools.ts';
import { createKeel } from './keel.ts';

const tool = (name: string): ToolDefinition => {
  const t = CORE_TOOLS.find((x) => x.name === name);
  assert.ok(t, `core tool ${name}`);
  return t;
};
const ctx = (signal?: AbortSignal): ToolContext => ({
  tenant: 't1',
  runId: 'r',
  step: 's',
  idempotencyKey: 'k',
  attempt: 1,
  ...(signal ? { signal } : {}),
});
const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
const spec = (id: string, steps: string) =>
  `id: ${id}\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps:\n${steps}\nlimits: {maxSteps: 4, maxCostUsd: 0}\n`;

describe('core.approvalGate', () => {
  test('is an idempotent read that always asks a person, and accepts once it runs', async () => {
    const gate = tool('core.approvalGate');
    assert.equal(gate.approval, 'always');
    assert.equal(gate.effect, 'read');
    assert.equal(gate.idempotent, true);
    assert.deepEqual(validateArgs(gate, { title: 'Ship it?', actions: ['accept', 'reject'] }), []);
    assert.deepEqual(await gate.handler({ title: 'Ship it?' }, ctx()), { action: 'accept' });
  });

  test('a run waits at the gate (its tool never called) and completes after approval', async () => {
    const after = spyTool('after');
    const keel = createKeel({ store: ':memory:', tools: [after], sources: fakeSources() });
    // AUTONOMOUS: no destructive guardrail or policy would ask; only the gate does.
    await deploy(
      keel,
      't1',
      spec(
        'gated',
        '  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}\n  - {name: next, tool: after}',
      ).replace('status: LIVE', 'status: AUTONOMOUS'),
    );
    const [run] = (await keel.events.emit('t1', go('e1'))).runs;
    assert.equal(run!.status, 'waiting_approval');
    assert.equal(after.calls.length, 0);
    const [pending] = await keel.approvals.list('t1', run!.runId);
    assert.equal(pending?.tool, 'core.approvalGate');
    assert.equal(pending?.reason, 'core.approvalGate is an approval gate');
    assert.equal(pending?.channel, 'openwop');
    const done = await keel.approvals.approve('t1', run!.runId, 'dana');
    assert.equal(done.status, 'completed');
    assert.equal(after.calls.length, 1);
    const entries = await keel.runs.entries('t1', run!.runId);
    const gate = entries.find((e) => e.kind === 'step.completed');
    assert.deepEqual(gate && payloadOf(gate, 'step.completed').output, { action: 'accept' });
    assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    await keel.close();
  });
});

describe('core.delay', () => {
  test('accepts an integer delayMs from 0 to the maximum, and other fields beside it', () => {
    const delay = tool('core.delay');
    assert.deepEqual(validateArgs(delay, { delayMs: 0 }), []);
    assert.deepEqual(validateArgs(delay, { delayMs: MAX_DELAY_MS, note: 'x' }), []);
    for (const bad of [
      {},
      { delayMs: -1 },
      { delayMs: MAX_DELAY_MS + 1 },
      { delayMs: 1.5 },
      { delayMs: '5' },
    ])
      assert.notDeepEqual(validateArgs(delay, bad), [], JSON.stringify(bad));
  });

  test('waits, then returns how long it waited', async () => {
    const started = performance.now();
    assert.deepEqual(await tool('core.delay').handler({ delayMs: 20 }, ctx()), { delayedMs: 20 });
    assert.ok(performance.now() - started >= 15);
  });

  test('stops early when its signal aborts, throwing an error with code cancelled', async () => {
    const c = new AbortController();
    const started = performance.now();
    const p = tool('core.delay').handler({ delayMs: 60_000 }, ctx(c.signal));
    setTimeout(() => c.abort(), 10);
    await assert.rejects(
      p as Promise<unknown>,
      (e: unknown) => (e as { code?: string }).code === 'cancelled',
    );
    assert.ok(performance.now() - started < 5_000);
    const aborted = AbortSignal.abort();
    await assert.rejects(
      tool('core.delay').handler({ delayMs: 60_000 }, ctx(aborted)) as Promise<unknown>,
      (e: unknown) => (e as { code?: string }).code === 'cancelled',
    );
  });

  test('a run cancelled mid-sleep ends cancelled at once, its step failed as cancelled, and verifies', async () => {
    const keel = createKeel({ store: ':memory:', sources: fakeSources() });
    await deploy(
      keel,
      't1',
      spec(
        'wait',
        '  - {name: pause, tool: core.delay, args: {delayMs: 60000}}\n  - {name: next, tool: core.noop}',
      ),
    );
    const started = performance.now();
    const emitted = keel.events.emit('t1', go('e1'));
    let runId: string | undefined;
    while (!runId) {
      await new Promise((r) => setTimeout(r, 5));
      const [r] = (await keel.runs.list('t1')).runs;
      if (r && kinds(await keel.runs.entries('t1', r.runId)).includes('step.allowed')) runId = r.runId;
    }
    const cancelled = await keel.runs.cancel('t1', runId, { by: 'dana', reason: 'too slow' });
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.reason, 'cancelled by dana: too slow');
    assert.equal((await emitted).runs[0]!.status, 'cancelled');
    assert.ok(performance.now() - started < 5_000, 'well under the 60 s delay');
    const entries = await keel.runs.entries('t1', runId);
    assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'step.failed', 'run.finished']);
    const failed = payloadOf(entries[2]!, 'step.failed');
    assert.equal(failed.tool, 'core.delay');
    assert.equal(failed.error.code, 'cancelled');
    assert.deepEqual(payloadOf(entries[3]!, 'run.finished'), {
      status: 'cancelled',
      outputs: {},
      reason: 'cancelled by dana: too slow',
    });
    assert.equal((await keel.runs.get('t1', runId)).status, 'cancelled');
    assert.equal((await keel.runs.verify('t1', runId)).ok, true);
    assert.equal((await keel.runs.replay('t1', runId)).identical, true);
    await assert.rejects(
      keel.runs.cancel('t1', runId, { by: 'dana' }),
      (e: unknown) => isKeelError(e) && e.code === 'run_terminal',
    );
    await keel.close();
  });
});

describe('core.conformance.fail', () => {
  test('throws an error with code conformance_failure and the given message', async () => {
    const fail = tool('core.conformance.fail');
    assert.throws(
      () => fail.handler({ message: 'as planned' }, ctx()),
      (e: unknown) =>
        (e as { code?: string }).code === 'conformance_failure' && (e as Error).message === 'as planned',
    );
    assert.throws(
      () => fail.handler({}, ctx()),
      (e: unknown) => (e as { code?: string }).code === 'conformance_failure',
    );
  });

  test('a run ends failed, its step.failed carrying conformance_failure', async () => {
    const keel = createKeel({ store: ':memory:', sources: fakeSources() });
    await deploy(
      keel,
      't1',
      spec('boom', '  - {name: fail, tool: core.conformance.fail, args: {message: "on purpose"}}'),
    );
    const [run] = (await keel.events.emit('t1', go('e1'))).runs;
    assert.equal(run!.status, 'failed');
    const entries = await keel.runs.entries('t1', run!.runId);
    const failed = entries.find((e) => e.kind === 'step.failed');
    assert.deepEqual(failed && payloadOf(failed, 'step.failed').error, {
      code: 'conformance_failure',
      message: 'on purpose',
    });
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    await keel.close();
  });
});
