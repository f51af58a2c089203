/**
 * Words that pick a tool, and words that are no action at all, over a catalog no corpus uses (a
 * library's loans): a text after "should be told:", "warn them:", "with:" or "saying" is the
 * message, never an action of its own; an argument said in parentheses ("(branch: north)") ends at
 * its parenthesis.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const REASONS = { enum: ['overdue', 'damage', 'other'] };
const library: DraftCatalog = {
  tools: [
    tool({
      name: 'suspend_card',
      description: "Suspends a member's card for now, pending review. It can be restored.",
      args: {
        type: 'object',
        required: ['member_id', 'reason'],
        properties: { member_id: { type: 'string' }, reason: REASONS },
      },
    }),
    tool({
      name: 'cancel_card',
      description: "Cancels a member's card for good. Cannot be undone: destructive.",
      args: {
        type: 'object',
        required: ['member_id', 'reason'],
        properties: { member_id: { type: 'string' }, reason: REASONS },
      },
      destructive: true,
    }),
    tool({
      name: 'message_member',
      description: 'Sends a message to a member.',
      args: {
        type: 'object',
        required: ['member_id', 'text'],
        properties: { member_id: { type: 'string' }, text: { type: 'string', minLength: 1 } },
      },
      effect: 'external',
    }),
    tool({
      name: 'page_desk',
      description: 'Pages the front desk of a branch.',
      args: {
        type: 'object',
        required: ['branch', 'summary'],
        properties: { branch: { type: 'string' }, summary: { type: 'string', minLength: 1 } },
      },
      effect: 'external',
    }),
  ],
  events: [{ type: 'loan.overdue', payload: ['member_id', 'branch', 'reason', 'days_overdue'] }],
};

const draft = (request: string, catalog = library) => draftSpec(compileRequest(request, catalog), catalog);
const calls = (request: string, catalog = library) => {
  const d = draft(request, catalog);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!.steps.map((s) => ('tool' in s ? { tool: s.tool, args: s.args } : { tool: '', args: {} }));
};

test('a text after "should be told:", "warn them:", "with:" or "saying" is the message, never an action', () => {
  for (const [request, text] of [
    [
      'when a loan is overdue, suspend the card and the member should be told: Your card has been suspended for late books.',
      'Your card has been suspended for late books.',
    ],
    [
      'when a loan is overdue, suspend the card and warn the member: Late books block your card, please return them.',
      'Late books block your card, please return them.',
    ],
    [
      'when a loan is overdue, suspend the card, then message the member saying we are holding your card and will restore it soon',
      'We are holding your card and will restore it soon.',
    ],
  ]) {
    const got = calls(request!);
    assert.deepEqual(
      got.map((s) => s.tool),
      ['suspend_card', 'message_member'],
      request,
    );
    assert.equal(got[1]!.args.text, text, request);
  }
  // "with:" leads the one text argument left; "(branch: north)" ends at its parenthesis.
  assert.deepEqual(
    calls('when a loan is overdue, page the desk (branch: north) with: Cancel the card of this member'),
    [{ tool: 'page_desk', args: { branch: 'north', summary: 'Cancel the card of this member.' } }],
  );
  // Without a colon, "saying"'s text ends at a comma: the next action stays one.
  const both = calls(
    'when a loan is overdue, message the member saying we will be in touch, and suspend the card with reason overdue',
  );
  assert.deepEqual(
    both.map((s) => s.tool),
    ['message_member', 'suspend_card'],
  );
  assert.equal(both[0]!.args.text, 'We will be in touch.');
});
