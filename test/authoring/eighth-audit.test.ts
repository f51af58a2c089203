/**
 * Issue 30: wrong drafts an eighth outside audit found (240 fresh requests over twelve of the
 * corpus sets' catalogs, written by someone who never saw the compiler), each now drafted as its
 * words say or asked about. The requests here are reworded from the audit's; none is in a corpus set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draft } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import {
  assertAsks,
  BLIND2_DIR,
  BLIND5_DIR,
  BLIND6_DIR,
  BLIND7_DIR,
  BLIND9_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  draftOver as draft,
} from './draft-corpus.ts';

const tools = (d: Draft) => toolSteps((d.spec ?? d.partial)!).map((s) => s.tool);

test('"refund requests under $25 get refunded, and close the ticket": the refund said in the passive is a step', () => {
  // The words before the comma had been read whole as the trigger: the ticket was closed saying
  // "Refunded" and nothing was refunded.
  const d = draft(
    'Refund requests below $25 get refunded, and close the ticket saying "Refunded, sorry!"',
    BLIND10_DIR,
    'support-refunds',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(tools(d), ['issue_refund', 'close_ticket']);
  assert.match(d.spec!.triggers[0]!.when ?? '', /amount_usd < 25/);
});

test('"reimburse them, after approving them": the action said with ", after" runs first', () => {
  // The comma had made "after approving them" a step of its own, run after the payment.
  const d = draft(
    'Reimburse training expenses up to $900, after approving them.',
    BLIND11_DIR,
    'expense-report',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(tools(d), ['approve_expense', 'reimburse_employee']);
});

test('"ask me first if it\'s over $100": an approval of only some calls is asked about, never a test of which events run', () => {
  // It had drafted a trigger of amount > 100: the smaller expenses, to be paid at once, never were.
  for (const request of [
    'Approve and reimburse expenses up to $300, but ask me first if it is over $120.',
    'Approve and reimburse expenses up to $300, check with me first when it is above $120.',
    'Approve and reimburse expenses up to $300, ask me before paying anything over $120.',
  ])
    assertAsks(request, BLIND11_DIR, 'expense-report', 'makes only some calls wait for a person');
  // Every call waiting is what a destructive step does anyway: drafted.
  const all = draft(
    'Approve and reimburse expenses up to $300, but ask me first.',
    BLIND11_DIR,
    'expense-report',
  );
  assert.equal(all.publishable, true, JSON.stringify(all.questions));
});

test('a field named by a participle ("shipped") is never tested against a word', () => {
  // "after the order shipped" had been read as `shipped == "order"`: no event meets it.
  assertAsks(
    'Address changed after the parcel shipped: post in #warehouse "Address changed late" and tag the order address-change.',
    BLIND9_DIR,
    'shipping',
    'as true or false',
  );
});

test('"EU customers" say where customers are: never read as a plan', () => {
  // It had drafted `plan == "eu"`.
  assertAsks(
    'EU customers who cancel: tag them privacy-check.',
    BLIND5_DIR,
    'billing-ops',
    '"EU" says where customers are',
  );
});

test("a fixed value the trigger's own test rules out is asked about: production granted to requests not for production", () => {
  assertAsks(
    'Grant production viewer access when asked, but never admin on production.',
    BLIND2_DIR,
    'access-request',
    'whose system is not "production"',
  );
});

test('"ack tickets from the pro plan, saying "..."": the plan is a test and the quoted text the step\'s', () => {
  // The comma had cut ", saying ..." off as a step of its own, and "from the pro plan" was read
  // nowhere: five needless questions.
  const d = draft(
    'ack tickets on the pro plan, saying "Thanks, a Pro agent will reply within 4 hours."',
    BLIND11_DIR,
    'ticket-triage',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, 'payload.plan == "pro"');
  assert.equal(toolSteps(d.spec!)[0]!.args.body, 'Thanks, a Pro agent will reply within 4 hours.');
});

test('"gold customers" test the field whose samples show "gold", whatever its name', () => {
  // It had asked which field says a customer is gold, of an event whose loyalty samples say so.
  for (const request of [
    'Lost packages of gold customers: reship by express, then tag the order reshipped.',
    'When a package is lost for a gold customer, reship it by express and tag the order reshipped.',
  ]) {
    const d = draft(request, BLIND9_DIR, 'shipping');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.loyalty == "gold"');
  }
});

test("a helpdesk ticket event's subject is the ticket its tools take", () => {
  // It had asked which ticket to route, as if the subject of helpdesk.ticket_opened were no ticket.
  const d = draft(
    'Urgent helpdesk tickets: route them to the desktop team with urgent priority and post "Urgent ticket opened" in it-helpdesk.',
    BLIND7_DIR,
    'facilities',
  );
  assert.ok(
    !d.questions.some((q) => q.question.includes('subject is no ticket')),
    JSON.stringify(d.questions),
  );
  assert.equal(toolSteps((d.spec ?? d.partial)!)[0]!.args.ticket_id, '{{event.subject}}');
});

// A review of this round's readings (872 requests of its own, before and after) found these.

test('what is said after ", after" runs before everything said before it; getting a sign-off is no step to move', () => {
  const d = draft(
    'Approve travel expenses under $250 and reimburse them, after checking the receipts.',
    BLIND11_DIR,
    'expense-report',
  );
  assert.deepEqual(tools(d), ['check_receipts', 'approve_expense', 'reimburse_employee']);
  // A first take had put "getting manager sign-off" first as a lookup, and granted with no sign-off.
  const signoff = draft(
    'When access is requested, grant it, after getting the manager sign-off.',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(signoff.publishable, false, JSON.stringify(signoff.spec));
});

test('"send it to a finance lead for approval" routes to the tool; "send the customer their order total" is no read', () => {
  const routed = draft(
    'When a payout is requested under $4000, send it to a finance lead for approval, then pay it.',
    BLIND10_DIR,
    'payouts',
  );
  assert.equal(routed.publishable, true, JSON.stringify(routed.questions));
  assert.deepEqual(tools(routed), ['request_finance_approval', 'send_payout']);
  assertAsks(
    'When a refund is requested, send the customer their order total.',
    BLIND10_DIR,
    'support-refunds',
    'lookup_order only reads',
  );
});

test('a country the events carry is tested on the field whose samples show it; on none, asked', () => {
  const payout = draft(
    'When a payout is requested in the US under $400, send the payout.',
    BLIND10_DIR,
    'payouts',
  );
  assert.equal(payout.publishable, true, JSON.stringify(payout.questions));
  assert.match(payout.spec!.triggers[0]!.when ?? '', /payload\.region == "us"/);
  // Said in capitals the samples do not use, the value is the samples' own.
  const gb = draft(
    'When an order is placed by GB customers, post "GB order" in store-ops.',
    BLIND6_DIR,
    'store-ops',
  );
  assert.equal(gb.publishable, true, JSON.stringify(gb.questions));
  assert.match(gb.spec!.triggers[0]!.when ?? '', /payload\.country == "GB"/);
  // A claim carries no country: "filed in the US" had been read as filed_via "us".
  assertAsks('When a claim is filed in the US under $400, pay it.', BLIND11_DIR, 'claims', '"us"');
});

test('a "not" the words say themselves is a choice they made: "the role is not viewer, grant viewer" drafts', () => {
  const d = draft(
    'When access is requested and the role is not viewer, grant viewer on the requested system for 7 days.',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
});

test('"Never approve alcohol. Everything else: ..." leaves alcohol out; "reimburse nothing" is never a reimbursement', () => {
  // The choice had been `category != "alcohol"` doing nothing, else approve and pay: alcohol alone paid.
  const d = draft(
    'Never approve alcohol. Everything else: approve and reimburse, max $180.',
    BLIND11_DIR,
    'expense-report',
  );
  const choice = d.spec!.steps.find((s) => 'choose' in s) as { choose: { when: string; steps: unknown[] }[] };
  assert.equal(choice.choose[0]!.when, 'payload.category == "alcohol"');
  assert.deepEqual(choice.choose[0]!.steps, []);
  // "otherwise reimburse nothing" had drafted a reimbursement of the other branch's expenses: asked.
  const nothing = draft(
    'If the category is not alcohol, approve it; otherwise reimburse nothing and check the receipts, max $90.',
    BLIND11_DIR,
    'expense-report',
  );
  assert.equal(nothing.publishable, false);
  assert.ok(
    nothing.questions.some((q) => q.question.includes('says an action not to do')),
    JSON.stringify(nothing.questions),
  );
});

// A second review (715 requests of its own, before and after) found these.

test('"pay nothing to new sellers; otherwise send the payout" is asked: an action said with "nothing" is never drafted', () => {
  // Read as the action, the payment went to exactly the sellers it was forbidden for.
  assertAsks(
    'When a payout is requested, pay nothing to new sellers; otherwise send the payout, up to $900 a run.',
    BLIND10_DIR,
    'payouts',
    'says an action not to do',
  );
  // "do nothing" stays the empty branch.
  const d = draft(
    'When a package is lost, never reship for usps. Everything else: reship the order.',
    BLIND9_DIR,
    'shipping',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const choice = d.spec!.steps[0] as { choose: { when: string; steps: unknown[] }[] };
  assert.equal(choice.choose[0]!.when, 'payload.carrier == "usps"');
  assert.deepEqual(choice.choose[0]!.steps, []);
});

test('"ask me first" with no step that waits for a person is asked; a plan is a field that sorts customers', () => {
  assertAsks(
    'When a helpdesk ticket is opened, route it to desktop. Ask me first.',
    BLIND7_DIR,
    'facilities',
    'no step of the draft waits for a person',
  );
  // "standard plan sellers" had been read as the payout's speed "standard".
  const plan = draft(
    'When a payout is requested for standard plan sellers, send the payout, up to $900 a run.',
    BLIND10_DIR,
    'payouts',
  );
  assert.equal(plan.publishable, true, JSON.stringify(plan.questions));
  assert.equal(plan.spec!.triggers[0]!.when, 'payload.seller_tier == "standard"');
});

test('"US employees" is a place; a passive action named by a tool ("get reshipped") is a step', () => {
  assertAsks(
    'When a helpdesk ticket is opened for US employees, route it to desktop.',
    BLIND7_DIR,
    'facilities',
    'us',
  );
  const d = draft(
    'Lost packages for gold customers get reshipped by express, and email the customer saying "It is on its way".',
    BLIND9_DIR,
    'shipping',
  );
  assert.deepEqual(tools(d), ['reship_order', 'email_customer']);
});

test('"alcohol expenses get rejected" is never drafted as the tool that approves them', () => {
  // The clause's noun had found approve_expense, and the draft approved every alcohol expense.
  assertAsks('Expenses for alcohol get rejected.', BLIND11_DIR, 'expense-report', 'does the opposite');
});

test('a step that files an event under another value of the field its test reads is asked, whatever the tool', () => {
  // "approve travel and meal expenses" had approved the meal ones with category travel.
  assertAsks(
    'When an expense is submitted, approve travel and meal expenses.',
    BLIND11_DIR,
    'expense-report',
    'gives category "travel"',
  );
});
