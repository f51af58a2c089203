/**
 * An `immediate` pause: the call in progress of an idempotent tool is cut (the tool sees its
 * signal abort), nothing is recorded for it, `run.paused` names it, and resume makes the call
 * again with the same idempotency key; a non-idempotent tool's call is let finish (repeating it
 * could repeat its effect). The ledger verifies and replays identically, the cut included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
const SPEC = `id: w
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: slow}
  - {name: b, tool: noop}
limits: {maxSteps: 2, maxCostUsd: 0}
`;

/** A tool that waits until released, or throws once its signal aborts. */
function slowTool(idempotent: boolean) {
  let release: () => void = () => {};
  const tool = spyTool('slow', {
    idempotent,
    handler: (_args, ctx) =>
      new Promise((resolve, reject) => {
        release = () => resolve({ slow: true });
        ctx.signal?.addEventListener('abort', () => reject(new Error('cut')));
      }),
  });
  return { tool, release: () => release() };
}

test('an immediate pause cuts an idempotent call, records no outcome for it, and resume makes it again with the same key', async () => {
  const slow = slowTool(true);
  const noop = spyTool('noop');
  const keel = createKeel({ store: ':memory:', tools: [slow.tool, noop], sources: fakeSources() });
  await deploy(keel, 't1', SPEC);
  const walking = keel.events.emit('t1', go('e1'));
  while (slow.tool.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  const runId = slow.tool.calls[0]!.ctx.runId;
  const paused = await keel.runs.pause('t1', runId, { by: 'dana', drainPolicy: 'immediate' });
  assert.equal(paused.status, 'paused', 'without waiting for the call');
  assert.equal(slow.tool.calls[0]!.ctx.signal?.aborted, true, 'the tool saw its call cut');
  await walking;
  const entries = await keel.runs.entries('t1', runId);
  assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'run.paused']);
  assert.deepEqual(payloadOf(entries[2]!, 'run.paused'), {
    by: 'dana',
    drainPolicy: 'immediate',
    interruptedNodeId: 'a',
    interruptedAttempt: 1,
  });
  assert.equal(noop.calls.length, 0, 'nothing started while paused');
  const resuming = keel.runs.resume('t1', runId, { by: 'dana' });
  while (slow.tool.calls.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.equal(
    slow.tool.calls[1]!.ctx.idempotencyKey,
    slow.tool.calls[0]!.ctx.idempotencyKey,
    'the same key',
  );
  slow.release();
  assert.equal((await resuming).status, 'completed');
  assert.deepEqual(kinds(await keel.runs.entries('t1', runId)), [
    'run.started',
    'step.allowed',
    'run.paused',
    'run.resumed',
    'step.completed',
    'step.allowed',
    'step.completed',
    'run.finished',
  ]);
  assert.equal((await keel.runs.verify('t1', runId)).ok, true);
  const replay = await keel.runs.replay('t1', runId);
  assert.equal(replay.identical, true, JSON.stringify(replay));
  assert.equal(slow.tool.calls.length, 2, 'replay called nothing');
  await keel.close();
});

test("an immediate pause lets a non-idempotent tool's call finish: its outcome is recorded before the pause", async () => {
  const slow = slowTool(false);
  const noop = spyTool('noop');
  const keel = createKeel({ store: ':memory:', tools: [slow.tool, noop], sources: fakeSources() });
  await deploy(keel, 't1', SPEC);
  const walking = keel.events.emit('t1', go('e2'));
  while (slow.tool.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  const runId = slow.tool.calls[0]!.ctx.runId;
  const pausing = keel.runs.pause('t1', runId, { by: 'dana', drainPolicy: 'immediate' });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(slow.tool.calls[0]!.ctx.signal?.aborted, false, 'its call is not cut');
  slow.release();
  assert.equal((await pausing).status, 'paused');
  await walking;
  const entries = await keel.runs.entries('t1', runId);
  assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'step.completed', 'run.paused']);
  assert.equal(payloadOf(entries[3]!, 'run.paused').interruptedNodeId, undefined);
  assert.equal((await keel.runs.resume('t1', runId, { by: 'dana' })).status, 'completed');
  assert.equal(slow.tool.calls.length, 1);
  assert.equal((await keel.runs.replay('t1', runId)).identical, true);
  await keel.close();
});
