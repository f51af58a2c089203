/**
 * The one limit every run is held to, whatever its spec says (OpenWOP discovery advertises it as
 * `maxNodeExecutions`): the walk refuses step MAX_STEPS_PER_RUN + 1, so a run can never take more.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { payloadOf } from '../core/ledger/index.ts';
import { specHash, type WorkflowSpec } from '../core/spec/index.ts';
import { spyTool } from '../testing/index.ts';
import { MAX_STEPS_PER_RUN } from './walk.ts';

test(`a run whose spec allows more than ${MAX_STEPS_PER_RUN} steps is refused at step ${MAX_STEPS_PER_RUN + 1}; the tool never runs again`, async () => {
  const step = spyTool('step', { effect: 'read' });
  const keel = createKeel({ store: ':memory:', tools: [step] });
  const steps = Array.from({ length: MAX_STEPS_PER_RUN + 1 }, (_, i) => ({
    name: `s${i}`,
    tool: 'step',
    args: {},
  }));
  const spec = {
    id: 'long',
    version: 1,
    status: 'DRAFT',
    triggers: [],
    steps,
    limits: { maxSteps: 5000, maxCostUsd: 0 },
  } as unknown as WorkflowSpec;
  // Stored directly, as a spec published before the ceiling existed would be.
  await keel.store.registry.putVersion({
    tenant: 't',
    workflowId: 'long',
    version: 1,
    specHash: specHash(spec),
    spec,
    status: 'DRAFT',
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'test',
  });
  const run = await keel.runs.start('t', 'long', {
    id: 'e',
    type: 'go',
    time: '2026-01-01T00:00:00Z',
    payload: {},
  });
  assert.equal(run.status, 'refused');
  assert.equal(step.calls.length, MAX_STEPS_PER_RUN);
  const refused = (await keel.runs.entries('t', run.runId)).find((e) => e.kind === 'step.refused')!;
  assert.equal(payloadOf(refused, 'step.refused').check, 'max_steps');
  assert.equal(payloadOf(refused, 'step.refused').step, `s${MAX_STEPS_PER_RUN}`);
  assert.equal((await keel.runs.verify('t', run.runId)).ok, true);
  await keel.close();
});
