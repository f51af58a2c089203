/**
 * The strict check of a loop (`forEach:`): every problem named by its field path — an unknown key,
 * a missing or out-of-range max, items that are not one template of the event or an earlier step,
 * an item name that would hide a root, a body that is not a list of plain tool steps, a template
 * reading an item no enclosing loop names or a body step from outside its loop — and maxSteps
 * counting every iteration.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKeelError } from '../errors.ts';
import { toolSteps } from './flow-steps.ts';
import { parseIterationStepId } from './foreach-step.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

type Raw = Record<string, unknown>;

function spec(): Raw {
  return {
    id: 'refunds',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'refund.requested' }],
    steps: [
      { name: 'lookup', tool: 'get_order', args: { order: '{{ event.subject }}' } },
      {
        name: 'refund_lines',
        forEach: { items: '{{ event.payload.lines }}', as: 'line', max: 20 },
        steps: [
          { name: 'refund', tool: 'issue_refund', args: { amount: '{{ line.amount }}' } },
          { name: 'note', tool: 'add_note', args: { refund: '{{ steps.refund.output.id }}' } },
        ],
      },
      { name: 'reply', tool: 'send_reply', args: { refunds: '{{ steps.refund_lines.output }}' } },
    ],
    limits: { maxSteps: 42, maxCostUsd: 50 },
  };
}

const loop = (s: Raw) => (s.steps as Raw[])[1]!;
const header = (s: Raw) => loop(s).forEach as Raw;
const body = (s: Raw) => loop(s).steps as Raw[];

function problemsOf(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    return e.details.problems as SpecProblem[];
  }
  return assert.fail('expected the spec to be invalid');
}

function expectProblem(edit: (s: Raw) => void, field: string, message: RegExp): void {
  const s = spec();
  edit(s);
  const problems = problemsOf(s);
  const p = problems.find((x) => x.field === field);
  assert.ok(p, `no problem at ${field}; got ${JSON.stringify(problems)}`);
  assert.match(p.message, message);
}

describe('forEach: validation', () => {
  it('accepts a loop, its body among the tool steps', () => {
    const v = validateSpec(spec(), 'spec.json');
    assert.deepEqual(
      toolSteps(v).map((s) => s.name),
      ['lookup', 'refund', 'note', 'reply'],
    );
    assert.deepEqual(v.steps[1], spec().steps && (spec().steps as Raw[])[1]);
  });

  it('refuses unknown keys, at the step and in forEach', () => {
    expectProblem((s) => Object.assign(loop(s), { each: 1 }), 'steps[1].each', /unknown field/);
    expectProblem((s) => Object.assign(header(s), { limit: 3 }), 'steps[1].forEach.limit', /unknown field/);
    expectProblem((s) => Object.assign(loop(s), { tool: 'x' }), 'steps[1].tool', /calls a tool or loops/);
  });

  it('requires max, a whole number from 1 to 100', () => {
    expectProblem((s) => delete header(s).max, 'steps[1].forEach.max', /is missing/);
    for (const bad of [0, 101, 2.5, '20', -1])
      expectProblem(
        (s) => Object.assign(header(s), { max: bad }),
        'steps[1].forEach.max',
        /a whole number from 1 to 100/,
      );
  });

  it('requires items: one template reading the event or an earlier step, never a source or a later step', () => {
    expectProblem((s) => delete header(s).items, 'steps[1].forEach.items', /is missing/);
    expectProblem(
      (s) => Object.assign(header(s), { items: 'lines: {{ event.payload.lines }}' }),
      'steps[1].forEach.items',
      /one template naming a list/,
    );
    expectProblem(
      (s) => Object.assign(header(s), { items: '{{ clock.now }}' }),
      'steps[1].forEach.items',
      /is a source/,
    );
    expectProblem(
      (s) => Object.assign(header(s), { items: '{{ steps.reply.output.lines }}' }),
      'steps[1].forEach.items',
      /runs later/,
    );
    expectProblem(
      (s) => Object.assign(header(s), { items: '{{ steps.refund.output }}' }),
      'steps[1].forEach.items',
      /runs later/,
    );
    expectProblem(
      (s) => Object.assign(header(s), { items: '{{ line.all }}' }),
      'steps[1].forEach.items',
      /not the event or a step/,
    );
    // An earlier step's output is fine.
    const s = spec();
    Object.assign(header(s), { items: '{{ steps.lookup.output.lines }}' });
    validateSpec(s, 'spec.json');
  });

  it('refuses an item name that would hide a root or that every object has', () => {
    for (const name of ['event', 'steps', 'env', 'clock', 'payload'])
      expectProblem((s) => Object.assign(header(s), { as: name }), 'steps[1].forEach.as', /already read/);
    expectProblem((s) => Object.assign(header(s), { as: 'toString' }), 'steps[1].forEach.as', /every object/);
    expectProblem(
      (s) => Object.assign(header(s), { as: '1x' }),
      'steps[1].forEach.as',
      /the name the body reads/,
    );
    expectProblem((s) => delete header(s).as, 'steps[1].forEach.as', /is missing/);
  });

  it('takes a body of plain tool steps only, non-empty', () => {
    expectProblem((s) => Object.assign(loop(s), { steps: [] }), 'steps[1].steps', /non-empty list/);
    expectProblem((s) => delete loop(s).steps, 'steps[1].steps', /is missing/);
    expectProblem(
      (s) => Object.assign(body(s)[0]!, { if: 'payload.x > 1' }),
      'steps[1].steps[0].if',
      /cannot have an if/,
    );
    expectProblem(
      (s) => body(s).push({ name: 'w', wait: { for: '1m' } }),
      'steps[1].steps[2].wait',
      /not supported yet/,
    );
    expectProblem(
      (s) =>
        body(s).push({
          name: 'inner',
          forEach: { items: '{{ event.payload.x }}', as: 'y', max: 2 },
          steps: [{ name: 'z', tool: 't', args: {} }],
        }),
      'steps[1].steps[2].forEach',
      /not supported yet/,
    );
  });

  it('reads the item only inside its loop, by its name; a body step only inside its loop', () => {
    expectProblem(
      (s) => Object.assign(body(s)[0]!, { args: { amount: '{{ item.amount }}' } }),
      'steps[1].steps[0].args.amount',
      /unknown template root "item"/,
    );
    expectProblem(
      (s) => Object.assign((s.steps as Raw[])[2]!, { args: { a: '{{ line.amount }}' } }),
      'steps[2].args.a',
      /unknown template root "line"/,
    );
    expectProblem(
      (s) => Object.assign((s.steps as Raw[])[2]!, { args: { a: '{{ steps.refund.output.id }}' } }),
      'steps[2].args.a',
      /runs inside forEach "refund_lines", once per item; after the loop read steps\.refund_lines\.output\[<i>\]\.refund/,
    );
    expectProblem(
      (s) => Object.assign(body(s)[0]!, { args: { a: '{{ steps.refund_lines.output }}' } }),
      'steps[1].steps[0].args.a',
      /is the forEach this step is in/,
    );
    expectProblem(
      (s) => (s.steps as Raw[]).push({ name: 'refund', tool: 'x', args: {} }),
      'steps[3].name',
      /duplicate step name "refund"/,
    );
  });

  it('counts every iteration against maxSteps', () => {
    expectProblem(
      (s) => Object.assign(s.limits as Raw, { maxSteps: 41 }),
      'limits.maxSteps',
      /fewer than the 42 steps/,
    );
  });

  it('names an iteration step refund_lines[3].refund, and nothing else so', () => {
    assert.deepEqual(parseIterationStepId('refund_lines[3].refund'), {
      loop: 'refund_lines',
      index: 3,
      step: 'refund',
    });
    for (const id of ['refund', 'a[01].b', 'a[1]', 'a[1].b.c', '[1].b'])
      assert.equal(parseIterationStepId(id), undefined);
  });
});
