/**
 * Parallel steps in the spec, checked strictly: the shape (`parallel: {join, branches}`), every
 * problem named by its field path; what a step may read across branches (never another branch of
 * the same parallel; after a join: all, every branch; after a join: first, none of them); maxSteps
 * counting every branch; the plan (one chain per branch, a join the step after depends on).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { compilePlan } from '../run/execution-plan.ts';
import { isParallelStep, toolSteps, walkSteps } from './flow-steps.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

function spec(parallel: unknown, after: Record<string, unknown> = {}, maxSteps = 5): Record<string, unknown> {
  return {
    id: 'enrich',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'ticket.opened' }],
    steps: [
      { name: 'start', tool: 'note', args: {} },
      { name: 'enrich', parallel },
      { name: 'reply', tool: 'send_reply', args: after },
    ],
    limits: { maxSteps, maxCostUsd: 1 },
  };
}

const branches = {
  crm: [{ name: 'lookup_crm', tool: 'crm_lookup', args: { who: '{{ event.subject }}' } }],
  billing: [
    { name: 'lookup_billing', tool: 'billing_lookup', args: {} },
    { name: 'bill_total', tool: 'billing_total', args: { acct: '{{ steps.lookup_billing.output.acct }}' } },
  ],
};

function problemsOf(value: unknown): string[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, `unexpected error ${String(e)}`);
    return (e.details.problems as SpecProblem[]).map((p) => `${p.field}: ${p.message}`);
  }
  return assert.fail('expected the spec to be invalid');
}

describe('parallel steps in the spec', () => {
  it('a join: all parallel validates; the step after reads every branch; its steps are tool steps', () => {
    const s = validateSpec(
      spec(
        { join: 'all', branches },
        { text: '{{ steps.lookup_crm.output.x }} {{ steps.bill_total.output.total }}' },
      ),
      'spec.json',
    );
    const p = s.steps[1]!;
    assert.ok(isParallelStep(p));
    assert.deepEqual(Object.keys(p.parallel.branches), ['crm', 'billing']);
    assert.deepEqual(
      toolSteps(s).map((t) => t.name),
      ['start', 'lookup_crm', 'lookup_billing', 'bill_total', 'reply'],
    );
    const paths: string[] = [];
    walkSteps(s, (_st, path) => paths.push(path.join('.')));
    assert.ok(paths.includes('steps.1.parallel.branches.billing.1'));
  });

  it('the plan: each branch a chain after what the parallel follows, the join after every branch, the step after after the join', () => {
    const plan = compilePlan(validateSpec(spec({ join: 'all', branches }), 'spec.json'));
    const deps = Object.fromEntries(plan.nodes.map((n) => [n.id, n.dependsOn]));
    assert.equal(plan.chain, false);
    assert.deepEqual(deps.lookup_crm, ['start']);
    assert.deepEqual(deps.lookup_billing, ['start']);
    assert.deepEqual(deps.bill_total, ['lookup_billing']);
    assert.deepEqual(deps.enrich, ['lookup_crm', 'lookup_billing', 'bill_total', 'start']);
    assert.deepEqual(deps.reply, ['enrich']);
  });

  it('refuses a bad shape, naming the field', () => {
    assert.deepEqual(problemsOf(spec({ branches })), [
      'steps[1].parallel.join: is missing; expected all or first',
    ]);
    assert.deepEqual(problemsOf(spec({ join: 'any', branches })), [
      'steps[1].parallel.join: expected all or first, got "any"',
    ]);
    assert.deepEqual(problemsOf(spec({ join: 'all', branches, timeout: 3 })), [
      'steps[1].parallel.timeout: unknown field; expected join, branches',
    ]);
    assert.deepEqual(problemsOf(spec({ join: 'all', branches: { crm: branches.crm } })), [
      'steps[1].parallel.branches: expected 2 to 16 branches, got 1',
    ]);
    assert.deepEqual(problemsOf(spec({ join: 'all', branches: { ...branches, empty: [] } })), [
      'steps[1].parallel.branches.empty: expected a non-empty list of tool steps, got an empty list',
    ]);
    const nested = problemsOf(
      spec({ join: 'all', branches: { ...branches, w: [{ name: 'pause', wait: { for: '1m' } }] } }),
    );
    assert.ok(
      nested.includes(
        'steps[1].parallel.branches.w[0]: a parallel branch holds tool steps only (a wait step cannot sit in one yet)',
      ),
      nested.join('\n'),
    );
  });

  it('a branch never reads another branch; after a join: first nothing of the branches is read', () => {
    const crossed = problemsOf(
      spec({
        join: 'all',
        branches: {
          crm: [
            {
              name: 'lookup_crm',
              tool: 'crm_lookup',
              args: { acct: '{{ steps.lookup_billing.output.acct }}' },
            },
          ],
          billing: branches.billing,
        },
      }),
    );
    assert.equal(crossed.length, 1);
    assert.match(crossed[0]!, /reads|template/);
    assert.match(crossed[0]!, /another branch of parallel "enrich", which runs at the same time/);
    const first = problemsOf(spec({ join: 'first', branches }, { text: '{{ steps.lookup_crm.output.x }}' }));
    assert.equal(first.length, 1);
    assert.match(first[0]!, /parallel "enrich", which joins first: that branch may have been cut short/);
  });

  it('maxSteps counts every branch', () => {
    assert.match(problemsOf(spec({ join: 'all', branches }, {}, 4)).join('\n'), /maxSteps/);
  });
});
