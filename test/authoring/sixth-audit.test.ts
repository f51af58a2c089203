/**
 * Issue 30: wrong drafts a sixth outside audit found (fresh requests over the blind sets'
 * catalogs, written by someone who never saw the compiler), each now drafted as its words say or
 * asked about. The catalogs are the blind sets'; the requests are in no corpus set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draft } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import {
  BLIND_DIR,
  BLIND3_DIR,
  BLIND5_DIR,
  BLIND7_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  draftOver as draft,
} from './draft-corpus.ts';

const tools = (d: Draft) => toolSteps((d.spec ?? d.partial)!).map((s) => s.tool);

test('a verb no tool does is asked about, never the tool its object names for another action', () => {
  // "reject" with only approve_expense named for expenses had approved the expenses to reject.
  for (const request of [
    'reject alcohol expenses',
    'reject expenses over $500',
    'decline alcohol expenses',
  ]) {
    const d = draft(request, BLIND5_DIR, 'expense-report');
    assert.equal(d.publishable, false, request);
    assert.ok(!(d.spec ?? d.partial) || !tools(d).includes('approve_expense'), request);
    assert.ok(
      d.questions.some((q) => /No tool in the catalog does/.test(q.question)),
      request,
    );
  }
});

test("the trigger event's own verb said after its noun restates the event, never names an action", () => {
  // "filed" had become open_adjuster_task (titled with the police_report flag), and every auto
  // claim under $1,500 was paid, with a police report or without.
  const d = draft(
    'auto claims under $1,500 filed with a police report: pay the full amount by bank transfer',
    BLIND11_DIR,
    'claims',
  );
  assert.equal(d.publishable, false);
  assert.ok(!tools(d).includes('open_adjuster_task'), JSON.stringify(tools(d)));
  assert.ok(d.questions.some((q) => q.question.includes('the claim.filed event said again')));
});

test('"two hundred fifty dollars" is $250, and a bound of the events\' class is the trigger\'s too', () => {
  // It had read $200 and $50, and reimbursed a flat $50; "training" is a class a tool lists.
  const d = draft(
    'approve and reimburse training expenses in USD under two hundred fifty dollars',
    BLIND5_DIR,
    'expense-report',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec?.limits.maxCostUsd, 250);
  assert.equal(
    d.spec?.triggers[0]?.when,
    'payload.currency == "USD" and payload.category == "training" and payload.amount_usd < 250',
  );
  assert.ok(!JSON.stringify(d.spec?.steps).includes('"amount_usd":50'));
});

test('a value said with its field\'s own word is the value: "enterprise tier" is enterprise', () => {
  const d = draft(
    "tag tickets opened from the phone channel with 'phone' unless the customer is enterprise tier",
    BLIND_DIR,
    'support-desk',
  );
  assert.match(d.spec?.triggers[0]?.when ?? '', /payload\.customer_tier != "enterprise"(?! tier)/);
});

test('a test whose steps start with a sign-off asks which steps it decides, never gates the payment', () => {
  // It had put "over $5k" on the trigger: no payout of $5k or less was ever paid.
  for (const request of [
    "payout requested -> if it's over $5k ask finance to approve first, then pay it; never more than 10k",
    "payout requested -> if it's over $5k ask finance to approve, then pay it; never more than 10k",
  ]) {
    const d = draft(request, BLIND10_DIR, 'payouts');
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => q.question.includes('should send_payout run for every event')),
      request,
    );
  }
});

test('"except" turns around a value said past a stand-in and a preposition, in its own clause', () => {
  // "except the ones from search" had tested severity == "search", "except anything by author U-42"
  // author_id == "U-42": the events the words leave out.
  const alerts = draft(
    'Open an incident for every alert except the ones from search, title from the summary',
    BLIND_DIR,
    'oncall-escalation',
  );
  assert.equal(alerts.publishable, true, JSON.stringify(alerts.questions));
  assert.equal(alerts.spec?.triggers[0]?.when, 'payload.service != "search"');
  // ("title from the summary": the argument from the field.)
  assert.equal(toolSteps(alerts.spec!)[0]!.args.title, '{{event.payload.summary}}');
  // A sentence's end ends the trigger's clause: "search; severity ..." is no "search severity".
  const semi = draft(
    'Open an incident for every alert except the ones from search; severity same as the alert, title from the summary',
    BLIND_DIR,
    'oncall-escalation',
  );
  assert.equal((semi.spec ?? semi.partial)?.triggers[0]?.when, 'payload.service != "search"');
  const posts = draft(
    'hide posts reported for spam, except posts by author U-42',
    BLIND3_DIR,
    'content-moderation',
  );
  assert.equal(posts.spec?.triggers[0]?.when, 'payload.category == "spam" and payload.author_id != "U-42"');
});

test('a word of how many ("nothing", "none") is never a value a field is tested against', () => {
  // "nothing's outstanding" had tested outstanding == "nothing": no event would ever have it.
  const d = draft(
    "Never deny a claim automatically. When documents come in and nothing's outstanding, open a desk task titled 'Docs complete - ready to assess'",
    BLIND11_DIR,
    'claims',
  );
  assert.doesNotMatch(JSON.stringify((d.spec ?? d.partial)?.triggers ?? []), /"nothing"/);
  assert.equal(d.publishable, false);
});

test('what a review of these readings found: each is asked about or read as the words say', () => {
  // "three hundred one time" is $300 (a bare unit after "hundred" is no part of the number).
  const once = draft(
    'When a refund is requested, refund up to three hundred one time per customer',
    BLIND_DIR,
    'support-desk',
  );
  assert.notEqual((once.spec ?? once.partial)?.limits.maxCostUsd, 301);
  // "reject the payout": hold_payout is no rejection, beside send_payout; asked.
  const reject = draft('when a payout is requested, reject the payout', BLIND10_DIR, 'payouts');
  assert.equal(reject.publishable, false);
  // "quantity from the justification": only a free text takes a field so.
  const qty = draft(
    'when equipment is requested, order it, quantity from the justification, up to $500',
    BLIND7_DIR,
    'facilities',
  );
  assert.ok(
    !JSON.stringify((qty.spec ?? qty.partial)?.steps ?? []).includes(
      '"quantity":"{{event.payload.justification}}"',
    ),
  );
  // An exception to an exception is asked about, never read as two exclusions.
  const nested = draft(
    "when a vendor invoice is received, pay it up to $2000, but not those from V-31 unless it's cleaning",
    BLIND7_DIR,
    'facilities',
  );
  assert.equal(nested.publishable, false);
});
