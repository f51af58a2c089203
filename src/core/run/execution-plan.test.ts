import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowSpec } from '../spec/index.ts';
import { compilePlan, nextNode } from './execution-plan.ts';

function spec(stepNames: readonly string[]): WorkflowSpec {
  return {
    id: 'refund-under-50',
    version: 3,
    status: 'LIVE',
    triggers: [{ event: 'refund.requested' }],
    steps: stepNames.map((name) => ({
      name,
      tool: `${name}_tool`,
      args: { order_id: '{{ event.subject }}' },
    })),
    limits: { maxSteps: 10, maxCostUsd: 50 },
  };
}

describe('compilePlan', () => {
  it('compiles a step list to a chain: each node depends on the step before it', () => {
    const s = spec(['lookup', 'refund', 'notify']);
    const plan = compilePlan(s);
    assert.deepEqual(
      plan.nodes.map((n) => [n.id, n.dependsOn]),
      [
        ['lookup', []],
        ['refund', ['lookup']],
        ['notify', ['refund']],
      ],
    );
    assert.equal(plan.nodes[1]!.step, s.steps[1], 'a node carries its step unchanged');
  });

  it('compiles each step to a tool node: the kind the walk takes it by (engine/walk.ts NODE_KINDS)', () => {
    const plan = compilePlan(spec(['lookup', 'refund']));
    assert.deepEqual(
      plan.nodes.map((n) => n.kind),
      ['tool', 'tool'],
    );
  });

  it('compiles an empty step list to an empty plan', () => {
    assert.deepEqual(compilePlan(spec([])), { chain: true, nodes: [] });
  });
});

describe('nextNode', () => {
  const plan = compilePlan(spec(['lookup', 'refund', 'notify']));

  it('walks the chain in step order and ends when every node completed', () => {
    const completed = new Set<string>();
    const walked: string[] = [];
    for (let n = nextNode(plan, completed); n; n = nextNode(plan, completed)) {
      walked.push(n.id);
      completed.add(n.id);
      assert.ok(walked.length <= 3, 'the walk terminates');
    }
    assert.deepEqual(walked, ['lookup', 'refund', 'notify']);
  });

  it('returns the first node whose dependencies completed and that has not run', () => {
    assert.equal(nextNode(plan, new Set())?.id, 'lookup');
    assert.equal(nextNode(plan, new Set(['lookup']))?.id, 'refund');
    assert.equal(nextNode(plan, new Set(['lookup', 'refund']))?.id, 'notify');
    assert.equal(nextNode(plan, new Set(['lookup', 'refund', 'notify'])), undefined);
  });

  it('never skips ahead of a dependency that has not completed', () => {
    // Only a later step recorded as complete: the walk resumes at the first step, not after it.
    assert.equal(nextNode(plan, new Set(['refund']))?.id, 'lookup');
    assert.equal(nextNode(plan, new Set(['notify']))?.id, 'lookup');
  });

  it('returns nothing for an empty plan', () => {
    assert.equal(nextNode(compilePlan(spec([])), new Set()), undefined);
  });
});
