import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { payloadOf } from '../core/ledger/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-costs-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const spec = (steps: string, cap: number) => `
id: costs
version: 1
status: LIVE
triggers: [{ event: pay.requested }]
steps:
${steps}
limits: { maxSteps: 4, maxCostUsd: ${cap} }
`;

const event = (id: string, payload: Record<string, unknown>) => ({
  id,
  type: 'pay.requested',
  source: 'test',
  subject: 'P-1',
  time: '2026-01-01T00:00:00Z',
  payload,
});

async function run(tools: ToolDefinition[], steps: string, cap: number, payload: Record<string, unknown>) {
  const keel = createKeel({ store: join(dir, `c${n++}.db`), tools, sources: fakeSources() });
  await deploy(keel, 't1', spec(steps, cap));
  const r = await keel.events.emit('t1', event(`e${n}`, payload));
  const entries = await keel.runs.entries('t1', r.runs[0]!.runId);
  await keel.close();
  return { run: r.runs[0]!, entries };
}

describe('declared costs are always judged, never free', () => {
  test('a call whose cost argument is missing or not a number is refused before the tool runs', async () => {
    // Arguments declared free-form: the argument schema alone would let anything through.
    const pay = spyTool('pay', { effect: 'external', cost: { fromArg: 'amount_usd' } });
    const step = '  - { name: pay, tool: pay, args: { amount_usd: "{{event.payload.amount}}" } }';
    for (const payload of [{}, { amount: '500' }]) {
      const { run: r, entries } = await run([pay], step, 50, payload);
      assert.equal(r.status, 'refused', JSON.stringify(payload));
      const refused = payloadOf(entries.find((e) => e.kind === 'step.refused')!, 'step.refused');
      assert.equal(refused.code, 'invalid_arguments');
      assert.match(refused.message, /amount_usd/);
    }
    assert.equal(pay.calls.length, 0);
  });

  test('a result cost is a postcondition: a result without it fails the step; with it, it counts', async () => {
    const metered = (name: string, output: unknown) =>
      spyTool(name, { effect: 'external', cost: { fromResult: 'usage.cost_usd' }, handler: () => output });
    const after = spyTool('after', { effect: 'external', cost: { fixedUsd: 0.04 } });
    const steps = '  - { name: ask, tool: ask, args: {} }\n  - { name: then, tool: after, args: {} }';

    const missing = await run([metered('ask', { usage: { costUsd: 0.07 } }), after], steps, 1, {});
    assert.equal(missing.run.status, 'failed');
    const failed = payloadOf(missing.entries.find((e) => e.kind === 'step.failed')!, 'step.failed');
    assert.equal(failed.error.code, 'postcondition_failed');
    assert.match(failed.error.message, /usage\.cost_usd: expected the call's cost, a USD amount >= 0/);
    assert.equal(after.calls.length, 0, 'nothing more is spent after an uncounted call');

    // 0.97 from the result leaves 3 cents of a $1 cap: the next step's 4 cents is refused.
    const counted = await run([metered('ask', { usage: { cost_usd: 0.97 } }), after], steps, 1, {});
    const done = payloadOf(counted.entries.find((e) => e.kind === 'step.completed')!, 'step.completed');
    assert.equal(done.costCents, 97);
    assert.equal(counted.run.status, 'refused');
    assert.equal(after.calls.length, 0);
  });
});
