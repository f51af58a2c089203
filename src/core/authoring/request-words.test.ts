/**
 * The word forms the grammar matches by (request-words.ts `lemmas`): a verb and the noun made from
 * it meet ("pay" and a tool named `schedule_payment`, "approve" and "approval"), over a catalog no
 * set uses (a library's loans).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { lemmas } from './request-words.ts';

test('a noun made from a verb (-ment, -al, -ion) has the verb among its forms', () => {
  for (const [noun, verb] of [
    ['payment', 'pay'],
    ['settlement', 'settle'],
    ['approval', 'approve'],
    ['renewal', 'renew'],
    ['removal', 'remove'],
    ['deletion', 'delete'],
  ] as const)
    assert.ok(lemmas(noun).includes(verb), `${noun}: ${lemmas(noun).join(' ')}`);
});

test('a verb names the tool named for its noun ("renew it" -> schedule_renewal)', () => {
  const tool = (name: string, description: string): ToolDescriptor => ({
    name,
    description,
    args: { type: 'object', required: ['loan_id'], properties: { loan_id: { type: 'string' } } },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: [],
  });
  const library: DraftCatalog = {
    tools: [
      tool('schedule_renewal', 'Schedules the renewal of a loan.'),
      tool('send_reminder', 'Sends the borrower a reminder.'),
    ],
    events: [{ type: 'loan.overdue', payload: ['loan_id'] }],
  };
  const d = draftSpec(compileRequest('when a loan is overdue, renew it', library), library);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['schedule_renewal'],
  );
});
