/** keel diff compares the steps' approval deadlines: added, gone, changed; written otherwise is no change. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const SPEC = `
id: refunds
version: 1
status: LIVE
triggers: [{event: refund.requested}]
steps:
  - name: refund
    tool: refund
    args: {amount: 90}
    approval: {timeout: 24h, then: deny}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
const V1 = parseSpec(SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.text.includes('approval deadline')).map((c) => [c.behaviour, c.text]);

test('keel diff: an approval deadline changed, added or gone is a behaviour change; 24h and 1d are the same', () => {
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('timeout: 24h', 'timeout: 1d')),
      ),
    ),
    [
      [
        false,
        "Step refund's approval deadline is written differently — 1d, then deny, was 24h, then deny — the same times: not a behaviour change.",
      ],
    ],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('then: deny', 'then: {escalate: finance-leads}, remind: 4h')),
      ),
    ),
    [
      [
        true,
        "Step refund's approval deadline is now 24h, then escalate to finance-leads, reminding every 4h (was 24h, then deny).",
      ],
    ],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('    approval: {timeout: 24h, then: deny}\n', '')),
      ),
    ),
    [
      [
        true,
        "Step refund's approval deadline (24h, then deny) is gone: its approval waits for a person with no deadline.",
      ],
    ],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        v2((y) => y.replace('    approval: {timeout: 24h, then: deny}\n', '')),
        V1,
      ),
    ),
    [[true, 'Step refund now has an approval deadline: 24h, then deny.']],
  );
});
