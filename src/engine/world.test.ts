import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { chainEntry, payloadOf } from '../core/ledger/index.ts';
import { withDeltas } from '../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const SPEC = `
id: world
version: 1
status: AUTONOMOUS
triggers: [{event: go}]
steps:
  - {name: open, tool: open_case}
  - {name: update, tool: update_case}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

function keelWith(updateVersion: number, extra: Partial<Parameters<typeof spyTool>[1]> = {}) {
  const open = spyTool('open_case', {
    handler: () => withDeltas({ case: 'c:1' }, [{ op: 'create', id: 'case:1', value: { state: 'open' } }]),
  });
  const update = spyTool('update_case', {
    handler: () =>
      withDeltas({ ok: true }, [
        { op: 'replace', id: 'case:1', expectedVersion: updateVersion, value: { state: 'closed' } },
      ]),
    ...extra,
  });
  return {
    keel: createKeel({ store: ':memory:', tools: [open, update], sources: fakeSources() }),
    open,
    update,
  };
}

test('deltas a step reports are recorded with it and fold into the run world', async () => {
  const { keel } = keelWith(1);
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('w1'))).runs;
  assert.equal(run!.status, 'completed');
  const { state } = await keel.engine.load('t1', run!.runId);
  assert.deepEqual(state.world.get('case:1'), { id: 'case:1', version: 2, value: { state: 'closed' } });
  const completed = (await keel.runs.entries('t1', run!.runId)).filter((e) => e.kind === 'step.completed');
  assert.deepEqual(payloadOf(completed[0]!, 'step.completed').deltas, [
    { op: 'create', id: 'case:1', value: { state: 'open' } },
  ]);
  assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
  assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
  const history = await keel.runs.history('t1', run!.runId);
  assert.ok(
    history.some((h) => /created case:1/.test(h.text)),
    JSON.stringify(history),
  );
  await keel.close();
});

test('a stale replace fails the step with its code and leaves the world as it was', async () => {
  const { keel } = keelWith(7);
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('w2'))).runs;
  assert.equal(run!.status, 'failed');
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(payloadOf(failed, 'step.failed').error.code, 'delta_stale_version');
  const { state } = await keel.engine.load('t1', run!.runId);
  assert.deepEqual(state.world.get('case:1'), { id: 'case:1', version: 1, value: { state: 'open' } });
  await keel.close();
});

test('an output that breaks the tool result schema fails the step as postcondition_failed', async () => {
  const { keel } = keelWith(1, {
    result: { type: 'object', required: ['receipt'], properties: { receipt: { type: 'string' } } },
  });
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('w3'))).runs;
  assert.equal(run!.status, 'failed');
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(payloadOf(failed, 'step.failed').error.code, 'postcondition_failed');
  assert.match(payloadOf(failed, 'step.failed').error.message, /receipt is missing/);
  const { state } = await keel.engine.load('t1', run!.runId);
  assert.equal(state.world.get('case:1')?.version, 1, 'the failed step changed nothing');
  await keel.close();
});

test('malformed deltas from a tool fail the step as invalid_deltas', async () => {
  const bad = spyTool('open_case', {
    handler: () => withDeltas({}, [{ op: 'upsert', id: 'x:1', value: 1 } as never]),
  });
  const keel = createKeel({
    store: ':memory:',
    tools: [bad, spyTool('update_case')],
    sources: fakeSources(),
  });
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('w4'))).runs;
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(payloadOf(failed, 'step.failed').error.code, 'invalid_deltas');
  await keel.close();
});

test('verify folds the deltas of a stored ledger and names the seq of a stale one', async () => {
  const { keel } = keelWith(1);
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('w5'))).runs;
  const stored = await keel.runs.storedEntries('t1', run!.runId);
  const entries = await keel.runs.entries('t1', run!.runId);
  // Rewrite the ledger consistently (valid hashes) with the second step's replace made stale.
  const forgedAt = entries.findIndex(
    (e) => e.kind === 'step.completed' && payloadOf(e, 'step.completed').step === 'update',
  );
  let head = { seq: stored[forgedAt - 1]!.seq, hash: stored[forgedAt - 1]!.hash };
  const rewritten = stored.slice(0, forgedAt);
  for (const e of entries.slice(forgedAt)) {
    const payload =
      e.seq === forgedAt
        ? {
            ...payloadOf(e, 'step.completed'),
            deltas: [{ op: 'replace', id: 'case:1', expectedVersion: 5, value: 1 }],
          }
        : e.payload;
    const { stored: s } = chainEntry(run!.runId, head, e.kind, payload as never, e.at);
    rewritten.push(s);
    head = { seq: s.seq, hash: s.hash };
  }
  const other = createKeel({ store: ':memory:', tools: [spyTool('open_case'), spyTool('update_case')] });
  const v = await deploy(other, 't1', SPEC);
  await other.store.ledger.append({
    tenant: 't1',
    runId: run!.runId,
    expectedHead: null,
    entries: rewritten,
    status: 'completed',
    create: {
      workflowId: v.workflowId,
      version: v.version,
      specHash: v.specHash,
      eventId: 'w5',
      eventType: 'go',
    },
  });
  const r = await other.runs.verify('t1', run!.runId);
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.failure.code, 'delta_stale_version');
    assert.equal(r.failure.seq, forgedAt);
  }
  await other.close();
  await keel.close();
});
