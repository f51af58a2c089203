import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FLOW_SPEC } from '../../../test/helpers/flow-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const V1 = parseSpec(FLOW_SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(FLOW_SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.area === 'flow').map((c) => [c.behaviour, c.text]);

describe('keel diff on conditions and choices', () => {
  test('a changed if or branch condition is a behaviour change; one of the same meaning is not', () => {
    const d = diffSpecs(
      V1,
      v2((y) =>
        y
          .replace('if: payload.refund_amount > 50', 'if: payload.refund_amount > 100')
          .replace(
            'when: steps.lookup.output.tier == "gold"',
            'when: "\\"gold\\" == steps.lookup.output.tier"',
          ),
      ),
    );
    assert.equal(d.sameBehaviour, false);
    assert.deepEqual(flow(d), [
      [
        true,
        'The condition of step tag_review changes: it runs only if payload.refund_amount > 100, where it ran only if payload.refund_amount > 50.',
      ],
      [
        false,
        'The condition of branch 2 of route is written differently — "\\"gold\\" == steps.lookup.output.tier", was "steps.lookup.output.tier == \\"gold\\"" — with the same meaning: not a behaviour change.',
      ],
    ]);
  });

  test('an added condition, a dropped else and a step moved out of a branch each say so', () => {
    const d = diffSpecs(
      V1,
      v2((y) =>
        y
          .replace('maxSteps: 5', 'maxSteps: 6')
          .replace(
            '  - {name: reply, tool: send_reply, args: {text: done}}',
            '  - {name: reply, tool: send_reply, args: {text: done}, if: payload.reply}',
          )
          .replace(
            '    else:\n      - {name: plain_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}\n',
            '  - {name: plain_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}\n',
          ),
      ),
    );
    assert.deepEqual(flow(d), [
      [true, 'Step reply now runs only if payload.reply; otherwise it is skipped.'],
      [true, 'Choice route no longer has an else: when no branch holds, nothing runs.'],
      [true, 'Step plain_refund now runs at the top level (was in the else of route).'],
    ]);
    assert.equal(diffSpecs(V1, V1).same, true);
  });
});
