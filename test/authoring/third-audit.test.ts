/**
 * Issue 30: wrong drafts a third outside audit found (fresh requests over the blind sets'
 * catalogs, written by someone who never saw the compiler), each now drafted as its words say or
 * asked about. The catalogs are the blind sets'; the requests are in no corpus set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRequest } from '../../src/core/authoring/compile-request.ts';
import { type Draft, draftSpec } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import {
  BLIND_DIR,
  BLIND2_DIR,
  BLIND3_DIR,
  BLIND6_DIR,
  BLIND8_DIR,
  BLIND9_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  catalogOf,
  draftOver as draft,
} from './draft-corpus.ts';
import { supportDeskCatalog } from './support-desk-catalog.ts';

const when = (d: Draft) => d.spec?.triggers.map((t) => t.when ?? '').join(' | ');
/** Each request, over its corpus dir and catalog, drafts publishable with the trigger test given. */
const draftsAs = (
  cases: readonly (readonly [request: string, dir: string, name: string, test: string])[],
) => {
  for (const [request, dir, name, test] of cases) {
    const d = draft(request, dir, name);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(when(d), test, request);
  }
};

test('a value one field of the event shows is tested on it, not on a field a tool only lists it for', () => {
  // return.received's condition shows damaged/unopened; its reason shows nothing, refund_order lists damaged.
  const d = draft(
    'If a return comes back damaged, refund the amount due but never more than $150.',
    BLIND6_DIR,
    'store-ops',
  );
  assert.equal(d.publishable, true);
  assert.equal(when(d), 'payload.condition == "damaged"');
});

test('"but" turns only the word just after it: "lapsed but on autopay" is on autopay', () => {
  const request = `Policy lapsed but on autopay? Don't cancel, just email the holder "Your autopay failed, please update your card."`;
  assert.equal(when(draft(request, BLIND11_DIR, 'claims')), 'payload.autopay == true');
});

test('a verb said as the workflow’s own action (approve_invoice) never picks the event it makes', () => {
  const d = draft('Approve invoices under 500 and pay them right away.', BLIND_DIR, 'finance');
  assert.equal(d.spec?.triggers[0]?.event, 'invoice.received');
  // The approval acts before the money moves: the bound says which invoices, not only the cap.
  assert.equal(when(d), 'payload.amount_usd < 500');
  const vendor = draft('Approve invoices from vendor "Acme Corp" automatically.', BLIND_DIR, 'finance');
  assert.equal(vendor.spec?.triggers[0]?.event, 'invoice.received');
  assert.equal(when(vendor), 'payload.vendor == "Acme Corp"');
  assert.ok(toolSteps(vendor.spec!).every((s) => !JSON.stringify(s.args).includes('Acme')));
  // Said as what happened, the same verb is the event.
  assert.equal(
    draft('when an invoice is approved, pay it, up to 500', BLIND_DIR, 'finance').spec?.triggers[0]?.event,
    'invoice.approved',
  );
});

test('a bound said with the event’s own verb bounds the events when a step acts before the money moves', () => {
  const d = draft(
    'When an expense is submitted for travel under 500 dollars, approve it and reimburse the employee.',
    BLIND11_DIR,
    'expense-report',
  );
  assert.equal(when(d), 'payload.category == "travel" and payload.amount_usd < 500');
});

test('"from new sellers", "tickets from email": a value of the events said beside their noun is tested', () => {
  const hold = draft(
    'instant payout requests from new sellers: hold them for review for 3 days',
    BLIND10_DIR,
    'payouts',
  );
  assert.equal(when(hold), 'payload.speed == "instant" and payload.seller_tier == "new"');
  const desk = { tools: supportDeskCatalog(), events: catalogOf(BLIND2_DIR, 'support-desk').events };
  for (const request of [
    'tag new tickets from email as "email-inbound"',
    'tag new email tickets as "inbound"',
  ]) {
    const d = draftSpec(compileRequest(request, desk), desk);
    assert.equal(when(d), 'payload.channel == "email"', request);
  }
});

test('a grant of one fixed system and role to every request, whatever it asked for, is asked about', () => {
  for (const request of [
    'hey can we make it so viewer access to analytics is just granted automatically? no need to bother anybody, for whatever duration they asked',
    'grant crm editor access whenever it is requested',
  ]) {
    const d = draft(request, BLIND2_DIR, 'access-request');
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => /whatever system the event itself says/.test(q.question)),
      request,
    );
  }
  // One fixed level beside the event's own system is a policy the words say.
  assert.equal(draft('grant read access to every request', BLIND2_DIR, 'access-request').publishable, true);
});

test('"{field}" in a text is a placeholder, as "<field>" is', () => {
  const d = draft(
    'message the requester "Your request for {system} access is in the queue" whenever they request access',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(d.publishable, true);
  assert.match(JSON.stringify(d.spec?.steps), /Your request for \{\{event\.payload\.system\}\} access/);
  // "[auto]" is the text's own, and so are capitals in braces ("{SAVE10}").
  const sev3 = draft(
    'for warnings open a sev3 titled "[auto] <service>: <summary>"',
    BLIND8_DIR,
    'oncall-escalation',
  );
  assert.equal(sev3.publishable, true, JSON.stringify(sev3.questions));
  assert.match(
    JSON.stringify(sev3.spec?.steps),
    /"\[auto\] \{\{event\.payload\.service\}\}: \{\{event\.payload\.summary\}\}"/,
  );
  const code = draft(
    'message the requester "Your request is in the queue, use code {SAVE10}" whenever they request access',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(code.publishable, true, JSON.stringify(code.questions));
  assert.match(JSON.stringify(code.spec?.steps), /use code \{SAVE10\}/);
});

test('"except production and payroll" leaves out both: a draft leaving out one is asked about', () => {
  // (The audit's "auto-approve viewer requests ..." no longer drafts: "requests" had named
  // request_manager_signoff by its verb. The same exception with a tool the words name.)
  const d = draft(
    'get manager signoff for viewer requests on any system except production and payroll',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => q.question.includes('"except production and payroll"')));
});

test('a read the words forbid ("without matching") is never added for a step that reads what it returns', () => {
  for (const request of [
    'for invoices below one thousand dollars, schedule payment without matching',
    'for invoices below one thousand dollars, schedule payment, dont match the PO',
  ]) {
    const d = draft(request, BLIND6_DIR, 'invoice-approval');
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => /draft calls match_purchase_order/.test(q.question)),
      request,
    );
  }
});

test('readings the audit found asked needlessly: each drafts as its words say', () => {
  const cases: [string, string, string, string][] = [
    // A fraction, and a field's one value said after "on".
    [
      'fraud alert with a score above 0.9 -> deny the claim for fraud',
      BLIND11_DIR,
      'claims',
      'payload.score > 0.9',
    ],
    // A yes/no field by its own word, and "don't ... unless" is "only if".
    [
      "don't build the export unless identity is verified",
      BLIND10_DIR,
      'data-export-request',
      'payload.identity_verified == true',
    ],
    [
      'build the export unless identity is verified',
      BLIND10_DIR,
      'data-export-request',
      'payload.identity_verified == false',
    ],
    [
      'build exports for verified customers, but never spend more than a dollar a run',
      BLIND10_DIR,
      'data-export-request',
      'payload.identity_verified == true',
    ],
    // "illegal content" is the class illegal, not a class "illegal_content".
    [
      'When a post gets reported for illegal content, remove it with legal hold on.',
      BLIND10_DIR,
      'content-moderation',
      'payload.category == "illegal"',
    ],
  ];
  draftsAs(cases);
  // The event's type as a heading is the event, never an action.
  const typed = draft(
    'access.requested -> if role is admin, request manager signoff; otherwise grant access',
    BLIND2_DIR,
    'access-request',
  );
  assert.equal(typed.publishable, true, JSON.stringify(typed.questions));
  assert.equal(typed.spec?.triggers[0]?.event, 'access.requested');
  assert.match(JSON.stringify(typed.spec?.steps), /"when":"payload.role == \\"admin\\""/);
  assert.equal(
    draft('when access.requested fires, grant access', BLIND2_DIR, 'access-request').publishable,
    true,
  );
});

test('"on attempt 4" is the attempt field’s one value', () => {
  const d = draft(
    'cancel the subscription immediately when payment fails on attempt 4',
    BLIND8_DIR,
    'subscriptions',
  );
  assert.equal(when(d), 'payload.attempt == 4');
});

test('wrong drafts a fourth audit found (fresh requests again): each drafted as said or asked', () => {
  // A duration said after "wait" is a wait, never how long access lasts.
  for (const request of [
    'grant it but wait a day first',
    'when access is requested, wait a day, then grant it',
  ]) {
    const grant = draft(request, BLIND2_DIR, 'access-request');
    assert.equal(grant.publishable, false, request);
    assert.ok(!grant.readBack?.assumed?.some((a) => a.includes('duration_days')), request);
    assert.ok(
      grant.questions.some((q) => q.question.includes('wait a day')),
      request,
    );
  }
  // The object of the first action bounded: the approval is for those under fifty too.
  const approve = draft(
    'approve expense reports with an amount under fifty, and reimburse those too',
    BLIND11_DIR,
    'expense-report',
  );
  assert.equal(when(approve), 'payload.amount_usd < 50');
  // "except equipment over a grand" drafted as approving only what is over a grand is asked about.
  const except = draft('approve everything except equipment over a grand', BLIND11_DIR, 'expense-report');
  assert.equal(except.publishable, false);
  assert.ok(except.questions.some((q) => q.question.includes('"except equipment over a grand"')));
  // "vip orders" are no damaged orders: an event named for a state unsaid is not assumed.
  const vip = draft('tag vip orders', BLIND9_DIR, 'shipping');
  assert.equal(vip.publishable, false);
  assert.ok(vip.questions.some((q) => /Which event starts this workflow/.test(q.question)));
  // "opened by email" tests the channel.
  const desk = { tools: supportDeskCatalog(), events: catalogOf(BLIND2_DIR, 'support-desk').events };
  const email = draftSpec(compileRequest('tag tickets opened by email "email"', desk), desk);
  assert.equal(when(email), 'payload.channel == "email"');
  // "tag everything" names which tickets, never the tag.
  const all = draft('tag everything', BLIND9_DIR, 'ticket-triage');
  assert.equal(all.publishable, false);
  assert.doesNotMatch(JSON.stringify(all.spec ?? all.partial ?? {}), /"tag":"everything"/);
});

test('what a review of these readings found: each reads as the words say', () => {
  const cases: [string, string, string, string][] = [
    // "don't" governs its own clause only: the cancel is for every plan but basic.
    [
      "policy lapsed: don't email the holder, cancel the policy for non-payment unless the plan is basic",
      BLIND11_DIR,
      'claims',
      'payload.plan != "basic"',
    ],
    [
      'policy lapsed: cancel it for non-payment unless autopay is off',
      BLIND11_DIR,
      'claims',
      'payload.autopay == true',
    ],
    // "but" past an article turns the value around.
    [
      'when access is requested for any system but the payroll one, grant it',
      BLIND2_DIR,
      'access-request',
      'payload.system != "payroll"',
    ],
    ['page on-call for every alert but the warnings', BLIND3_DIR, 'ops', 'payload.severity != "warning"'],
    // A value beside the events' noun, turned around by the words before it.
    [
      'payout requests not from new sellers: send the payout, max $500',
      BLIND10_DIR,
      'payouts',
      'payload.seller_tier != "new"',
    ],
    // The list of an exclusion stops at the next action.
    [
      'when a refund is requested, refund it up to $50, but not for enterprise customers and tag it refunded',
      BLIND_DIR,
      'support-desk',
      'payload.customer_tier != "enterprise"',
    ],
    // "request" names the payout event here: request_finance_approval is no tool for payouts.
    ['request finance approval for payouts over $1000', BLIND10_DIR, 'payouts', 'payload.amount_usd > 1000'],
    // A currency said of the events' noun (and "under 5,000" leaves 5,000 itself out, which the
    // cap alone would let through).
    [
      'If the invoice is USD and under 5,000, match it and pay it.',
      BLIND6_DIR,
      'invoice-approval',
      'payload.currency == "USD" and payload.amount_usd < 5000',
    ],
  ];
  draftsAs(cases);
  // "never pay without matching" asks for the match: no question about leaving it out.
  const never = draft(
    'for invoices under $1000, never schedule payment without matching the PO first',
    BLIND6_DIR,
    'invoice-approval',
  );
  assert.equal(never.publishable, true, JSON.stringify(never.questions));
  // "opened by the customer" says who, not how: no test of the channel.
  const desk = { tools: supportDeskCatalog(), events: catalogOf(BLIND2_DIR, 'support-desk').events };
  const who = draftSpec(compileRequest('tag tickets opened by the customer "new"', desk), desk);
  assert.doesNotMatch(JSON.stringify(who.spec ?? who.partial ?? {}), /channel/);
  // A final full stop, and "or later" is no single value.
  assert.equal(
    when(
      draft(
        'cancel the subscription immediately when payment fails on attempt 4.',
        BLIND8_DIR,
        'subscriptions',
      ),
    ),
    'payload.attempt == 4',
  );
  const later = draft(
    'cancel the subscription immediately when payment fails on attempt 3 or later',
    BLIND8_DIR,
    'subscriptions',
  );
  assert.doesNotMatch(JSON.stringify(later.spec ?? later.partial ?? {}), /attempt == 3/);
});

test('an amount worked out from another ("$5 less than asked") is asked about, never moved as $5', () => {
  for (const request of [
    'refund requests: refund $5 less than asked',
    'refund requests: refund the amount minus $5, cap 50',
  ]) {
    const d = draft(request, BLIND_DIR, 'support-desk');
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => /an amount worked out from another/.test(q.question)),
      request,
    );
  }
});

test('an id field is never tested against words ("unless the customer is on no loyalty tier")', () => {
  const d = draft('reship damaged orders unless the customer is on no loyalty tier', BLIND9_DIR, 'shipping');
  assert.equal(d.publishable, false);
  assert.doesNotMatch(JSON.stringify(d.spec ?? d.partial ?? {}), /customer_id != /);
});

test('"bigger ones ..." after a bound is an else: a draft with no branch for it is asked about', () => {
  const d = draft(
    'pay approved invoices up to 10000 dollars; bigger ones notify the approver "too big to auto-pay"',
    BLIND_DIR,
    'finance',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('"bigger ones"')),
    JSON.stringify(d.questions),
  );
});

test('what a second review found: a "not" before a currency, a longer "don’t ... unless", "but X only" and a list with a channel word', () => {
  const asked: [string, string, string][] = [
    // Another currency's events, turned around by "not": left for a question, never `== "EUR"`.
    ['pay invoices up to $5000 but not when the invoice is EUR', BLIND6_DIR, 'invoice-approval'],
    ['pay invoices up to $5000 but not if the invoice is in EUR', BLIND6_DIR, 'invoice-approval'],
    [
      'when a refund is requested, refund it up to $50 but not if the refund is EUR',
      BLIND_DIR,
      'support-desk',
    ],
    // "but ... only" keeps, never leaves out.
    ['when a claim is filed, but the auto claims only, pay it up to $500', BLIND11_DIR, 'claims'],
    ['when a ticket is opened, close it, but email tickets only', BLIND2_DIR, 'support-desk'],
    // "email" here is a value of the list, not an action after it.
    ['when a ticket is opened, close it except chat and email tickets', BLIND2_DIR, 'support-desk'],
    ['when a ticket is opened, close it unless it came in by chat or email', BLIND2_DIR, 'support-desk'],
  ];
  for (const [request, dir, name] of asked) {
    const d = draft(request, dir, name);
    assert.ok(
      !d.publishable || !/== "EUR"|!= "auto"|!= "email"|== "email"/.test(when(d) ?? ''),
      `${request}: ${when(d)}`,
    );
  }
  const drafted: [string, string, string, string][] = [
    // "don't ... unless" over a longer clause, a bracket or a bound in it.
    [
      "when a payout is requested, don't pay it out (max $2000) unless the region is us",
      BLIND10_DIR,
      'payouts',
      'payload.region == "us"',
    ],
    [
      "don't refund it (cap $50) unless the reason is damaged",
      BLIND_DIR,
      'support-desk',
      'payload.reason == "damaged"',
    ],
    [
      "don't remove it (keep a legal hold) unless the category is illegal",
      BLIND10_DIR,
      'content-moderation',
      'payload.category == "illegal"',
    ],
    // "don't remove them if the post is spam" removes the others.
    [
      "remove reported posts with legal hold, don't remove them if the post is spam",
      BLIND10_DIR,
      'content-moderation',
      'payload.category != "spam"',
    ],
    // "and" after "on attempt 3" joins another test.
    [
      'when a payment fails on attempt 3 and the plan is pro, cancel the subscription immediately',
      BLIND8_DIR,
      'subscriptions',
      'payload.attempt == 3 and payload.plan == "pro"',
    ],
  ];
  draftsAs(drafted);
  // "no approval needed: pay ... without matching the PO": the match the words leave out is asked about.
  const nomatch = draft(
    'no approval needed: pay invoices under $5000 without matching the PO',
    BLIND6_DIR,
    'invoice-approval',
  );
  assert.equal(nomatch.publishable, false);
  // A tool said in full names no event: "send failed payouts again and request finance approval" is on failed payouts.
  const failed = draft('send failed payouts again and request finance approval', BLIND10_DIR, 'payouts');
  assert.equal((failed.spec ?? failed.partial)?.triggers[0]?.event, 'payout.failed');
});
