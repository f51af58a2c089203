/**
 * A condition said after a step guards only the steps said with it (a step-level `if:`), never the
 * trigger: "remind the member. if the branch is north, also notify the branch" tells every member.
 * A condition said before every step is still the trigger's. Over a lending-library catalog no
 * corpus set uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const idArg = { type: 'object', required: ['loan_id'], properties: { loan_id: { type: 'string' } } } as const;
export const library: DraftCatalog = {
  tools: [
    tool({ name: 'remind_member', description: 'Reminds the member about a loan.', args: idArg }),
    tool({ name: 'notify_branch', description: 'Notifies the branch about a loan.', args: idArg }),
    tool({ name: 'suspend_card', description: 'Suspends the library card of a loan.', args: idArg }),
  ],
  events: [
    { type: 'loan.overdue', payload: ['loan_id', 'branch'], values: { branch: ['north', 'south'] } },
    { type: 'loan.renewed', payload: ['loan_id', 'format'], values: { format: ['ebook', 'print'] } },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, library), library);
const steps = (d: ReturnType<typeof draft>) =>
  d.spec!.steps.map((s) => [(s as { tool: string }).tool, (s as { if?: string }).if ?? null]);

test('a condition said after a step guards only the steps said with it, never the trigger', () => {
  for (const request of [
    'when a loan is overdue, remind the member. if the branch is north, also notify the branch',
    'when a loan is overdue, remind the member, and if the branch is north, also notify the branch',
    'when a loan is overdue, remind the member. If the branch is north then notify the branch.',
    'when a loan is overdue, remind the member. notify the branch if the branch is north',
    'when a loan is overdue, remind the member. Notify the branch if the branch is north.',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'loan.overdue' }], request);
    assert.deepEqual(
      steps(d),
      [
        ['remind_member', null],
        ['notify_branch', 'payload.branch == "north"'],
      ],
      request,
    );
  }
});

test('a condition said before every step is still the trigger’s', () => {
  for (const request of [
    'when a loan is overdue, if the branch is north, remind the member and notify the branch',
    'when a loan is overdue and the branch is north, remind the member, then notify the branch',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.triggers,
      [{ event: 'loan.overdue', when: 'payload.branch == "north"' }],
      request,
    );
    assert.deepEqual(steps(d), [
      ['remind_member', null],
      ['notify_branch', null],
    ]);
  }
});

test('a value no field of the event holds, said after a step, is asked about, never the trigger’s', () => {
  const d = draft('when a loan is overdue, remind the member. if the shelf is east, also notify the branch');
  assert.equal(d.publishable, false);
  assert.ok(!d.spec!.triggers.some((t) => t.when), JSON.stringify(d.spec!.triggers));
});

const model = (answer: Record<string, unknown>, request: string) => modelDrafted(answer, request, library);
const step = (t: string, extra: Record<string, unknown> = {}) => ({
  name: t,
  tool: t,
  args: { loan_id: '{{event.payload.loan_id}}' },
  ...extra,
});

test('a model’s draft that gates a step by a test said after it asks which steps the test is for', () => {
  const request = 'when a loan is overdue, remind the member. if the branch is north, also notify the branch';
  for (const gated of [
    {
      triggers: [{ event: 'loan.overdue', when: 'payload.branch == "north"' }],
      steps: [step('remind_member'), step('notify_branch')],
    },
    {
      triggers: [{ event: 'loan.overdue' }],
      steps: [step('remind_member', { if: 'payload.branch == "north"' }), step('notify_branch')],
    },
  ]) {
    const d = model({ ...gated, limits: { maxSteps: 2, maxCostUsd: 0 } }, request);
    assert.equal(d.publishable, false, JSON.stringify(gated));
    assert.ok(
      d.questions.some(
        (q) => q.about === 'safety' && /"if the branch is north" after remind_member/.test(q.question),
      ),
      JSON.stringify(d.questions),
    );
  }
  // The test on the step said with it only: no such question.
  const right = model(
    {
      triggers: [{ event: 'loan.overdue' }],
      steps: [step('remind_member'), step('notify_branch', { if: 'payload.branch == "north"' })],
      limits: { maxSteps: 2, maxCostUsd: 0 },
    },
    request,
  );
  assert.ok(!right.questions.some((q) => /Which steps is/.test(q.question)), JSON.stringify(right.questions));
});

test('the grammar’s own drafts of a test said after a step ask, never gate it', () => {
  for (const request of [
    'when a loan is overdue, remind the member. notify the branch and suspend the card if the branch is north',
    'when a loan is overdue, remind the member. if the branch is not north, also notify the branch',
    'when a loan is overdue, remind the member. unless the branch is north, notify the branch',
  ]) {
    const d = draft(request);
    const gates = d.spec!.triggers.some((t) => t.when) || steps(d)[0]![1] !== null;
    if (gates) assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
  }
});

/** Actions of the catalog in words, and the words of the tests said of them. */
const ACTIONS = ['remind the member', 'notify the branch', 'suspend the card'] as const;
const TOOLS: readonly string[] = ['remind_member', 'notify_branch', 'suspend_card'];

test('property: a test said after step k never gates a step said before k in a publishable draft', () => {
  fc.assert(
    fc.property(
      fc.shuffledSubarray([0, 1, 2], { minLength: 2, maxLength: 3 }),
      fc.integer({ min: 1, max: 2 }),
      fc.constantFrom(
        (t: string, a: string) => `. if ${t}, also ${a}`,
        (t: string, a: string) => `, and if ${t}, ${a}`,
        (t: string, a: string) => `. If ${t} then ${a}.`,
        (t: string, a: string) => `. ${a} if ${t}`,
        (t: string, a: string) => `. unless ${t}, ${a}`,
        (t: string, a: string) => `. only if ${t}, ${a}`,
      ),
      fc.constantFrom('the branch is north', 'the branch is south', 'the branch is not north', 'it is north'),
      (order, cut, form, said) => {
        const k = Math.min(cut, order.length - 1);
        const first = order.slice(0, k).map((i) => ACTIONS[i]!);
        const rest = order.slice(k).map((i) => ACTIONS[i]!);
        const request = `when a loan is overdue, ${first.join(' and ')}${form(said, rest.join(' and '))}`;
        const d = draft(request);
        if (!d.publishable || !d.spec) return;
        const before = new Set(order.slice(0, k).map((i) => TOOLS[i]!));
        const gatedByTest = (w: string | undefined) => w !== undefined && /north|south/.test(w);
        assert.ok(
          !d.spec.triggers.some((t) => gatedByTest(t.when)),
          `${request}: ${JSON.stringify(d.spec.triggers)}`,
        );
        for (const s of toolSteps(d.spec))
          assert.ok(!(before.has(s.tool) && gatedByTest(s.if)), `${request}: ${JSON.stringify(s)}`);
      },
    ),
  );
});
