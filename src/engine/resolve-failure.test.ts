/**
 * A step whose arguments cannot be built ends its run, recorded, instead of leaving it `running`
 * forever: a source that throws (as `{{random.float}}` once did on every draw), or one that yields
 * a value with no canonical form. The run finishes failed with the error's code in its reason, its
 * ledger verifies, and the step's tool is never called.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import type { RawSources } from '../ports/index.ts';
import { fakeSources, spyTool } from '../testing/index.ts';

function keelWith(float: () => number) {
  const base = fakeSources();
  const sources: RawSources = { ...base, random: { ...base.random, float } };
  const tool = spyTool('echo', { args: { type: 'object' } });
  return { keel: createKeel({ store: ':memory:', sources, tools: [tool] }), tool };
}

const spec = {
  id: 'draws',
  version: 1,
  status: 'DRAFT',
  steps: [
    { name: 'first', tool: 'echo', args: { n: 1 } },
    { name: 'second', tool: 'echo', args: { f: '{{random.float}}' } },
  ],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};
const event = { id: 'e-1', type: 'test', time: '2026-01-31T12:00:00Z' };

describe('a step whose arguments cannot be built', () => {
  const cases: [string, () => number, RegExp][] = [
    [
      'a source that throws',
      () => {
        throw new RangeError('The value of "max" is out of range');
      },
      /step second: could not build its arguments: internal: The value of "max" is out of range/,
    ],
    ['a source value with no canonical form', () => Number.NaN, /step second: .*canonical_invalid/],
  ];
  for (const [name, float, reason] of cases) {
    test(`${name}: the run ends failed, recorded, and the ledger verifies`, async () => {
      const { keel, tool } = keelWith(float);
      after(() => keel.close());
      await keel.workflows.publishObject('acme', spec, 'tester');
      const run = await keel.runs.start('acme', 'draws', event, { live: true });
      assert.equal(run.status, 'failed', JSON.stringify(run));
      const stored = await keel.runs.get('acme', run.runId);
      assert.equal(stored.status, 'failed');
      const entries = await keel.runs.entries('acme', run.runId);
      const last = entries.at(-1)!;
      assert.equal(last.kind, 'run.finished');
      assert.match((last.payload as { reason: string }).reason, reason);
      assert.equal(tool.calls.length, 1, 'the first step ran; the second never reached its tool');
      assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
    });
  }
});
