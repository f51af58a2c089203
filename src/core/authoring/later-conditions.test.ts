/**
 * A condition said after a step guards only the steps said with it (a step-level `if:`), never the
 * trigger: "remind the member. if the branch is north, also notify the branch" tells every member.
 * A condition said before every step is still the trigger's. Over a lending-library catalog no
 * corpus set uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
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
