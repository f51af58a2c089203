/**
 * The constructs of issue 28 side by side: a loop and parallel branches in one spec validate and
 * compile together, and neither sits inside the other yet (a parallel branch holds tool steps only,
 * a loop's body too), each refusal at its field path. A loop's item is read only inside its loop:
 * a parallel branch's step, a timer's `until` and a wait for an event's `match` cannot read it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKeelError } from '../errors.ts';
import { compilePlan } from '../run/execution-plan.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

type Raw = Record<string, unknown>;

const loopStep = (): Raw => ({
  name: 'refund_lines',
  forEach: { items: '{{ event.payload.lines }}', as: 'line', max: 3 },
  steps: [{ name: 'refund', tool: 'issue_refund', args: { amount: '{{ line.amount }}' } }],
});
const parallelStep = (): Raw => ({
  name: 'enrich',
  parallel: {
    join: 'all',
    branches: {
      crm: [{ name: 'lookup_crm', tool: 'crm_lookup', args: { who: '{{ event.subject }}' } }],
      billing: [{ name: 'lookup_billing', tool: 'billing_lookup', args: { who: '{{ event.subject }}' } }],
    },
  },
});

function spec(steps: Raw[]): Raw {
  return {
    id: 'both',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'refund.requested' }],
    steps,
    limits: { maxSteps: 20, maxCostUsd: 0 },
  };
}

function problemsOf(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    return e.details.problems as SpecProblem[];
  }
  return assert.fail('expected the spec to be invalid');
}

function expectProblem(steps: Raw[], field: string, message: RegExp): void {
  const problems = problemsOf(spec(steps));
  const p = problems.find((x) => x.field === field);
  assert.ok(p, `no problem at ${field}; got ${JSON.stringify(problems)}`);
  assert.match(p.message, message);
}

describe('a loop and parallel branches in one spec', () => {
  it('validate together, and the plan holds the join, its lanes and the loop with its iterations', () => {
    const v = validateSpec(
      spec([parallelStep(), loopStep(), { name: 'reply', tool: 'send_reply', args: { text: 'done' } }]),
      'spec.json',
    );
    const plan = compilePlan(v, { refund_lines: 2 });
    assert.deepEqual(
      plan.nodes.map((n) => [n.kind, n.id]),
      [
        ['parallel', 'enrich'],
        ['tool', 'lookup_crm'],
        ['tool', 'lookup_billing'],
        ['foreach', 'refund_lines'],
        ['tool', 'refund_lines[0].refund'],
        ['tool', 'refund_lines[1].refund'],
        ['tool', 'reply'],
      ],
    );
    assert.deepEqual(plan.nodes.find((n) => n.id === 'refund_lines')?.dependsOn, ['enrich']);
  });

  it('refuse a loop inside a parallel branch, at the branch step', () => {
    const p = parallelStep();
    ((p.parallel as Raw).branches as Raw).billing = [loopStep()];
    expectProblem(
      [p],
      'steps[0].parallel.branches.billing[0]',
      /a parallel branch holds tool steps only \(a forEach step cannot sit in one yet\)/,
    );
  });

  it("refuse a parallel inside a loop's steps, at its key", () => {
    const l = loopStep();
    (l.steps as Raw[]).push(parallelStep());
    expectProblem([l], 'steps[0].steps[1].parallel', /a parallel: inside a loop is not supported yet/);
  });

  it("refuse a loop's item read outside its loop: in a parallel branch, a timer's until, an event's match", () => {
    const p = parallelStep();
    ((p.parallel as Raw).branches as Raw).crm = [
      { name: 'lookup_crm', tool: 'crm_lookup', args: { who: '{{ line.who }}' } },
    ];
    expectProblem(
      [loopStep(), p],
      'steps[1].parallel.branches.crm[0].args.who',
      /unknown template root "line"/,
    );
    expectProblem(
      [loopStep(), { name: 'later', wait: { until: '{{ line.at }}' } }],
      'steps[1].wait.until',
      /unknown template root "line"/,
    );
    const problems = problemsOf(
      spec([loopStep(), { name: 'reply_wait', wait: { event: 'customer.replied', match: 'line.x == 1' } }]),
    );
    assert.ok(
      problems.some((x) => x.field === 'steps[1].wait.match'),
      `no problem at steps[1].wait.match; got ${JSON.stringify(problems)}`,
    );
  });
});
