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
  BLIND2_DIR,
  BLIND5_DIR,
  BLIND7_DIR,
  BLIND9_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  draftOver as draft,
} from './draft-corpus.ts';

const tools = (d: Draft) => toolSteps((d.spec ?? d.partial)!).map((s) => s.tool);

/** `request` is not drafted but asked about, with a question that says `said`. */
function assertAsks(request: string, dir: string, name: string, said: string): void {
  const d = draft(request, dir, name);
  assert.equal(d.publishable, false, request);
  assert.ok(
    d.questions.some((q) => q.question.includes(said)),
    `${request}: ${JSON.stringify(d.questions)}`,
  );
}

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

test('"between $100 and $500" is both bounds: at least the first, capped at the second; with an "otherwise", asked', () => {
  // "between" had been read by nothing: every such request asked what "between" meant.
  for (const request of [
    'Refund requests between $120 and $450: refund them.',
    'When someone asks for a refund between 120 and 450 dollars, refund it.',
  ]) {
    const d = draft(request, BLIND10_DIR, 'support-refunds');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.amount_usd >= 120');
    assert.equal(d.spec!.limits.maxCostUsd, 450);
  }
  // Above $450 the words say what happens: no cap's refusal stands for it.
  const otherwise = draft(
    'Refund it if the amount is between $120 and $450, otherwise reply "Sorry, we cannot refund that."',
    BLIND10_DIR,
    'support-refunds',
  );
  assert.equal(otherwise.publishable, false);
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
