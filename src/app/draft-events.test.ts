/**
 * `keel.workflows.draftEvents`: the event shapes a draft is compiled against gain the values the
 * tenant's reviewed workflows test (every version past DRAFT), read from the real store; a DRAFT
 * version (unreviewed, perhaps drafted itself) adds nothing, and another tenant's nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventShapesOf } from '../core/authoring/index.ts';
import { spyTool } from '../testing/index.ts';
import { createKeel } from './keel.ts';

const samples = eventShapesOf([
  { type: 'ticket.created', subject: 'T-1', payload: { plan: 'pro', priority: 'urgent' } },
  { type: 'ticket.created', subject: 'T-2', payload: { plan: 'free', priority: 'low' } },
]);
const spec = (id: string) =>
  `id: ${id}\nversion: 1\nstatus: DRAFT\ntriggers: [{event: ticket.created, when: 'payload.plan == "enterprise"'}]\nsteps: [{name: a, tool: tag_ticket}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n`;

test('values tested by reviewed versions join the samples; DRAFT versions and other tenants add none', async () => {
  const keel = createKeel({ store: ':memory:', tools: [spyTool('tag_ticket', { effect: 'write' })] });
  try {
    const plans = async (tenant: string) =>
      (await keel.workflows.draftEvents(tenant, samples))[0]!.values!.plan;
    await keel.workflows.publish('t1', spec('route'), 'route.yaml', 'dana');
    assert.deepEqual(await plans('t1'), ['free', 'pro'], 'a DRAFT is not reviewed');
    await keel.workflows.promote('t1', 'route', 'TESTING', 'dana');
    assert.deepEqual(await plans('t1'), ['enterprise', 'free', 'pro']);
    assert.deepEqual(await plans('t2'), ['free', 'pro'], "another tenant's workflows say nothing");
    assert.deepEqual(await keel.workflows.draftEvents('t1', []), [], 'no samples: no shapes made up');
  } finally {
    await keel.close();
  }
});
