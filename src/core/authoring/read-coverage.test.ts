/**
 * Issue 30, safety: in a draft that moves money, every word of the request is read (trigger,
 * condition, step, argument, cap, assumption) or asked about — a restriction, an extra action or a
 * schedule the grammar cannot express is never dropped from a publishable draft.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { compileRequest } from './compile-request.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftSpec } from './draft-spec.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, catalog), catalog);

test('a restriction, an extra action or a schedule left unread in a money draft is a question', () => {
  for (const [r, word] of [
    ['refund anyone under $50 but knock the shipping off first', 'knock'],
    ['after refunding a refund request (up to $40) fax the customer a receipt', 'fax'],
    ['refund requests on the first of every month, up to $30', 'month'],
  ] as const) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => q.question.includes(`"${word}"`)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('a money draft whose every word is read stays publishable; a draft that moves no money is not checked', () => {
  for (const r of [
    'refund anyone under $50',
    'refund requets under $15: refund them',
    'When a refund is requested, reply "On it" and refund them, never spend more than $40 please',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  }
  const tagOnly = draft('when a refund is requested tag it billing, cheerfully');
  assert.ok(!tagOnly.questions.some((q) => /could not read/.test(q.question)));
});

test('property: an unread clause added to a draftable money request never leaves a publishable draft without it', () => {
  const draftable = [
    'refund anyone under $50',
    'When a refund is requested, reply "On it" and refund them, max $40',
    'refund requests under $25: tag it refund then refund it',
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...draftable),
      fc.constantFrom('but', 'and', 'then', '', 'also'),
      fc.constantFrom('deduct', 'knock', 'fax', 'subtract', 'split', 'convert', 'round'),
      fc.constantFrom('the shipping', 'the tip', 'the vendor a memo', 'the fee off', 'it with the bank'),
      (request, join, verb, rest) => {
        const d = draft(`${request} ${join} ${verb} ${rest}`.replace(/\s+/g, ' '));
        if (!d.publishable) return;
        // Publishable only if some step reads the clause: never with the words dropped.
        assert.fail(`${request} ${join} ${verb} ${rest}: ${JSON.stringify(toolSteps(d.spec!))}`);
      },
    ),
    { numRuns: 150 },
  );
});

test('a destructive draft reads every word too: a restriction it cannot express is asked, never dropped', () => {
  const access: DraftCatalog = {
    tools: [
      {
        ...supportDeskCatalog()[0]!,
        name: 'grant_access',
        description: 'Grants a role on a system to an employee. Widens who can do what: destructive.',
        args: {
          type: 'object',
          required: ['employee_id', 'role'],
          properties: { employee_id: { type: 'string' }, role: { type: 'string' } },
          additionalProperties: false,
        },
        destructive: true,
        effect: 'write',
      },
    ],
    events: [{ type: 'access.requested', payload: ['role'], values: { role: ['viewer', 'editor'] } }],
  };
  const d = draftSpec(compileRequest('viewer requests from contractors get granted', access), access);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('"contractors"')),
    JSON.stringify(d.questions),
  );
  // Every word read (a value the words give an argument included): publishable.
  const ok = draftSpec(compileRequest('viewer requests get granted', access), access);
  assert.equal(ok.publishable, true, JSON.stringify(ok.questions));
});

test('a word said as a restriction is unread even when the text to send repeats it', () => {
  const r =
    'when a refund is requested, refund it up to $40 for outlet buyers, and reply "Thanks, outlet buyers!"';
  const d = draft(r);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('"outlet"')),
    JSON.stringify(d.questions),
  );
});
