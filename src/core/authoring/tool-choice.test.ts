/**
 * Words that pick a tool, and words that are no action at all, over a catalog no corpus uses (a
 * library's loans): a text after "should be told:", "warn them:", "with:" or "saying" is the
 * message, never an action of its own; an argument said in parentheses ("(branch: north)") ends at
 * its parenthesis; "permanently" / "pending review" pick the tool whose description says so (a
 * forum's threads), under Assumed; an action said in the passive ("gets suspended") is that action;
 * adverbs, "nothing else for now", a purpose ("for our records") and a polite lead are no actions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { BLIND10_DIR, BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';
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

const forum: DraftCatalog = {
  tools: [
    tool({
      name: 'hide_thread',
      description: 'Hides a thread from readers, pending review. It can be shown again.',
      args: { type: 'object', required: ['thread_id'], properties: { thread_id: { type: 'string' } } },
    }),
    tool({
      name: 'delete_thread',
      description: 'Deletes a thread for good. Cannot be undone: destructive.',
      args: { type: 'object', required: ['thread_id'], properties: { thread_id: { type: 'string' } } },
      destructive: true,
    }),
  ],
  events: [{ type: 'thread.flagged', payload: ['thread_id', 'flag_count'] }],
};

test('"permanently" / "for good" and "pending review" / "temporarily" pick the tool whose description says so, under Assumed', () => {
  const on = 'when a thread is flagged, ';
  for (const [words, name] of [
    ['take the thread down permanently', 'delete_thread'],
    ['take it down for good', 'delete_thread'],
    ['take the thread down pending review', 'hide_thread'],
    ['the thread gets taken down temporarily', 'hide_thread'],
  ] as const) {
    const d = draft(on + words, forum);
    assert.deepEqual(
      d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
      [name],
      words,
    );
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes(`read as ${name}`)),
      `${words}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
  // "threads that hit 3 flags": the count is the trigger's test, never dropped with the passive.
  const hit = draft('threads that hit three flags get taken down pending review', forum);
  assert.equal(hit.spec?.triggers[0]?.when, 'payload.flag_count >= 3', JSON.stringify(hit.questions));
  // Said with neither, "take it down" fits both: a question naming them.
  const asked = draft(`${on}take it down`, forum);
  assert.equal(asked.publishable, false);
  assert.ok(
    asked.questions.some(
      (q) => q.candidates?.includes('delete_thread') && q.candidates.includes('hide_thread'),
    ),
  );
});

test('an action said in the passive is that action: "get hidden", "can just be paid", "gets suspended"', () => {
  assert.deepEqual(
    calls('when a loan is overdue, the card gets suspended with reason overdue').map((s) => s.tool),
    ['suspend_card'],
  );
  assert.deepEqual(
    calls('loans overdue: members can just be messaged "Please bring the books back."').map((s) => s.tool),
    ['message_member'],
  );
  // A verb of its own before it is no passive: "message them once the card is suspended" messages.
  assert.deepEqual(
    calls('when a loan is overdue, message the member "Your card is suspended."').map((s) => s.tool),
    ['message_member'],
  );
});

test('adverbs, "nothing else for now", a purpose and a polite lead are no actions', () => {
  for (const request of [
    'when a loan is overdue, suspend the card with reason overdue, obviously',
    'when a loan is overdue, suspend the card with reason overdue. Nothing else for now.',
    'when a loan is overdue, suspend the card with reason overdue for our records',
    'Could you set things up so that when a loan is overdue, the card is suspended with reason overdue',
  ])
    assert.deepEqual(
      calls(request).map((s) => s.tool),
      ['suspend_card'],
      request,
    );
  // "doesn't matter what reason they gave": the value said elsewhere, in every step.
  const d = draft(
    'when a loan is overdue, suspend the card with reason other, doesnt matter what reason they wanted',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
});

test('who does by hand what the workflow leaves out is a reason, never a step; listed under Assumed', () => {
  for (const [request, said] of [
    [
      "when a loan is overdue, suspend the card with reason overdue but don't cancel it, the branch does that by hand",
      'the branch does that by hand',
    ],
    [
      'when a loan is overdue, suspend the card with reason overdue. dont message anyone yet, the manager wants to review it first.',
      'the manager wants to review it first',
    ],
    [
      'when a loan is overdue, suspend the card with reason overdue - a librarian does the rest',
      'a librarian does the rest',
    ],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['suspend_card'],
      request,
    );
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes(`"${said}" is read as who does`)),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
  // Said as an action of its own ("the branch handles it: page the desk") it stays an action.
  assert.ok(
    calls('when a loan is overdue, page the desk at the branch with summary "Overdue loan"').some(
      (s) => s.tool === 'page_desk',
    ),
  );
});

test('a generic verb that is a word of a tool\'s own name picks that tool: "send payouts" is send_payout, never hold_payout', () => {
  const payout = (name: string, description: string) =>
    tool({
      name,
      description,
      args: { type: 'object', required: ['payout_id'], properties: { payout_id: { type: 'string' } } },
    });
  const desk: DraftCatalog = {
    tools: [
      payout('send_payout', 'Pays a payout out to the seller.'),
      payout('hold_payout', 'Holds a requested payout until someone releases it.'),
    ],
    events: [{ type: 'payout.requested', payload: ['amount_usd'] }],
  };
  for (const r of ['send payouts for requests', 'send the payout when requested']) {
    const d = draft(r, desk);
    assert.deepEqual(
      (d.spec ?? d.partial)?.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['send_payout'],
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('of several tools a verb fits, the one whose name says what the verb is said of picks it, under Assumed', () => {
  const money = (name: string, description: string) =>
    tool({
      name,
      description,
      args: {
        type: 'object',
        required: ['work_order_id', 'amount_usd'],
        properties: {
          work_order_id: { type: 'string' },
          amount_usd: { type: 'number', exclusiveMinimum: 0 },
        },
      },
      effect: 'write',
      destructive: true,
      cost: { fromArg: 'amount_usd' },
    });
  const desk: DraftCatalog = {
    tools: [
      money('pay_contractor', 'Pays a contractor for a work order by bank transfer.'),
      money('return_deposit', "Pays a tenant's deposit back to them."),
    ],
    events: [{ type: 'contractor.invoiced', payload: ['work_order_id', 'amount_usd'] }],
  };
  const d = draft('when a contractor invoices, pay contractor invoices straight away, up to $500', desk);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['pay_contractor'],
  );
  assert.match((d.readBack?.assumed ?? []).join('\n'), /is read as pay_contractor: .* its name says/);
  // Said of no name ("pay them"): still a question.
  assert.equal(draft('when a contractor invoices, pay them, up to $500', desk).publishable, false);
});

test('of several tools a verb fits, the one that takes the argument the words give a value for picks it', () => {
  const branches: DraftCatalog = {
    ...library,
    tools: [
      ...library.tools,
      tool({
        name: 'message_branch',
        description: "Sends a message to a branch's staff.",
        args: {
          type: 'object',
          required: ['branch', 'text'],
          properties: { branch: { type: 'string' }, text: { type: 'string', minLength: 1 } },
        },
        effect: 'external',
      }),
    ],
  };
  // "the branch" is the event's branch, given to the `branch` argument only message_branch takes.
  const d = draft('when a loan is overdue, message the branch: an overdue loan', branches);
  const steps = (d.spec ?? d.partial)?.steps ?? [];
  assert.deepEqual(
    steps.map((s) => ('tool' in s ? s.tool : '')),
    ['message_branch'],
  );
  assert.ok(!d.questions.some((q) => /Which tool should/.test(q.question)), JSON.stringify(d.questions));
  assert.ok(
    draft("when a loan is overdue, message them 'an overdue loan'", branches).questions.some((q) =>
      /Which tool should/.test(q.question),
    ),
  );
});

test('"add a $50 credit to the folio" never charges the guest: a generic verb does not pick the tool it begins', () => {
  // A rule that read "add ... folio" as add_folio_charge was tried and removed: it charged guests
  // the credits and refunds the words gave them (a review of 733 requests found 8 such drafts).
  for (const r of [
    'cancellations: add a $50 cancellation credit to the folio',
    'complaints: add a $25 damage refund to their folio',
  ]) {
    const d = draftOver(r, BLIND13_DIR, 'frontdesk');
    const tools = toolSteps(d.spec ?? d.partial ?? { steps: [] }).map((s) => s.tool);
    assert.ok(!(d.publishable && tools.includes('add_folio_charge')), `${r}: ${JSON.stringify(tools)}`);
  }
  // What is given ("send the seller a payout failure email") is the email, not send_payout.
  const e = draftOver(
    'when a payout fails send the seller a payout failure email: your payout failed',
    BLIND10_DIR,
    'payouts',
  );
  assert.deepEqual(
    toolSteps(e.spec!).map((s) => s.tool),
    ['email_seller'],
  );
});
