import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/keel.ts';
import { fakeSources } from '../testing/index.ts';
import { compileDefinition } from './definition.ts';
import { fixtureDefinitions } from './fixtures.ts';
import { projectEvents } from './project-events.ts';

async function ledgerOf(workflowId: string, approve = false) {
  const keel = createKeel({
    store: ':memory:',
    sources: fakeSources({ seed: 1, env: { KEEL_REGION: 'eu' } }),
    exposeEnv: { t: ['KEEL_REGION'] },
  });
  await keel.workflows.publishObject('t', compileDefinition(fixtureDefinitions().get(workflowId)!), 'test');
  const event = {
    id: `e-${workflowId}`,
    type: 'openwop.run.requested',
    time: '2026-11-30T00:00:00Z',
    payload: { inputs: {} },
  };
  const run = await keel.runs.start('t', workflowId, event, { live: true });
  if (approve) await keel.approvals.approve('t', run.runId, 'alice');
  const entries = await keel.runs.entries('t', run.runId);
  await keel.close();
  return entries;
}

test('a projection of a ledger prefix is a prefix of the projection: sequences never renumber', async () => {
  const entries = await ledgerOf('conformance-approval', true);
  const whole = projectEvents('r', entries);
  assert.deepEqual(
    whole.map((e) => e.event.sequence),
    whole.map((_, i) => i),
  );
  for (let n = 0; n <= entries.length; n++) {
    const part = projectEvents('r', entries.slice(0, n));
    assert.deepEqual(part, whole.slice(0, part.length), `prefix of ${n} entries`);
    for (const p of part) assert.ok(p.ledgerSeq < n);
  }
  assert.deepEqual(
    whole.map((e) => e.event.type),
    [
      'run.started',
      'node.suspended',
      'interrupt.requested',
      'approval.requested',
      'interrupt.resolved',
      'node.started',
      'node.completed',
      'node.started',
      'node.completed',
      'run.completed',
    ],
  );
  const resolved = whole.find((e) => e.event.type === 'interrupt.resolved')!.event;
  assert.equal(resolved.nodeId, 'gate');
  assert.equal((resolved.payload as { decidedBy: string }).decidedBy, 'alice');
  assert.equal(new Set(whole.map((e) => e.event.eventId)).size, whole.length, 'event ids are unique');
});

test('run.completed carries the last node output: the nondeterminism fixture lists one string per source', async () => {
  const whole = projectEvents('r', await ledgerOf('conformance-nondeterminism'));
  const done = whole.at(-1)!.event;
  assert.equal(done.type, 'run.completed');
  const outputs = done.payload.outputs as Record<string, unknown>;
  assert.deepEqual(Object.keys(outputs).sort(), ['clock', 'env', 'id', 'random']);
  for (const v of Object.values(outputs)) assert.equal(typeof v, 'string');
  assert.equal(outputs.env, 'eu');
});
