/**
 * Tests of two fields said with "or" are alternatives ("urgent or pro", "if the priority is urgent
 * or the plan is pro"): the trigger lets in either, never only events with both
 * (read-field-tests.ts, eitherOr and OR_IS). "unless ... or ..." lets in neither; "and" both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND6_DIR, BLIND7_DIR, CORPUS_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

const when = (r: string, dir: string, file: string) => {
  const d = draftOver(r, dir, file);
  assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  return d.spec!.triggers[0]!.when;
};
const triage = (r: string) => when(r, BLIND6_DIR, 'ticket-triage');
const desk = (r: string) => when(r, CORPUS_DIR, 'support-desk');

test('"urgent or pro" lets in either', () => {
  for (const r of [
    "urgent OR pro → alert #oncall-support with 'hi'",
    "urgent tickets or pro ones → alert #oncall-support with 'hi'",
    "when a ticket is urgent or pro, alert #oncall-support with 'hi'",
    "if the priority is urgent or the plan is pro, alert #oncall-support with 'hi'",
  ])
    assert.equal(triage(r), 'payload.priority == "urgent" or payload.plan == "pro"', r);
});

test('"and", or no word between, still lets in only both', () => {
  for (const r of [
    "urgent pro tickets → alert #oncall-support with 'hi'",
    "if the priority is urgent and the plan is pro, alert #oncall-support with 'hi'",
  ])
    assert.match(
      triage(r)!,
      /^payload\.(?:priority|plan) == "(?:urgent|pro)" and payload\.(?:priority|plan) == /,
      r,
    );
});

test('money: "if the reason is damaged or the tier is gold" refunds either; "unless" neither', () => {
  assert.equal(
    desk(
      'When a refund is requested, refund it up to $50 if the reason is damaged or the customer tier is gold',
    ),
    'payload.reason == "damaged" or payload.customer_tier == "gold"',
  );
  assert.equal(
    desk(
      'When a refund is requested, refund it up to $50 unless the reason is damaged or the customer tier is gold',
    ),
    'payload.reason != "damaged" and payload.customer_tier != "gold"',
  );
});

test('each side of "or" keeps its own "not"; "or if" is read once', () => {
  assert.equal(
    desk(
      'When a refund is requested, refund it up to $50 if the reason is not damaged or the customer tier is gold',
    ),
    'payload.reason != "damaged" or payload.customer_tier == "gold"',
  );
  assert.equal(
    triage('if priority is urgent or if plan is pro, assign tier-2 within 2 hours'),
    'payload.priority == "urgent" or payload.plan == "pro"',
  );
});

test('an "or" the draft would read as "and", or leave out, is asked (or-between-tests.ts)', () => {
  const asks = (r: string, dir: string, file: string, said: RegExp) => {
    const d = draftOver(r, dir, file);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => said.test(q.question)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  };
  for (const r of [
    'urgent/pro tickets → tag watch',
    'urgent or pro or free tickets → tag watch',
    'urgent, pro or free tickets → tag watch',
  ])
    asks(r, BLIND6_DIR, 'ticket-triage', /trigger needs both|together/);
  asks(
    'travel or USD expenses: approve and reimburse up to $500',
    BLIND7_DIR,
    'expense-report',
    /trigger needs both currency and category/,
  );
  asks(
    'if the plan is pro or the priority is urgent → tier 2 within 2 hours; if the plan is free → tag self-serve',
    BLIND6_DIR,
    'ticket-triage',
    /plan == "(?:pro|free)" and plan == "(?:pro|free)" together/,
  );
  asks(
    'hide spam or misinformation posts and tell the author: Hidden for review',
    BLIND7_DIR,
    'content-moderation',
    /tests "spam" nowhere/,
  );
  asks(
    'When a refund is requested, if the amount is over $100 or the reason is fraud tag it review, otherwise refund it up to $100',
    CORPUS_DIR,
    'support-desk',
    /tests "fraud" nowhere/,
  );
});

test('values joined by "or" and all tested, "and", and a verb with its text are no question', () => {
  assert.equal(
    when('spam/misinformation posts: hide them', BLIND7_DIR, 'content-moderation'),
    'payload.category == "spam" or payload.category == "misinformation"',
  );
  assert.equal(
    when('harassment or spam w/ 3+ reports: hide them', BLIND7_DIR, 'content-moderation'),
    'payload.report_count >= 3 and (payload.category == "harassment" or payload.category == "spam")',
  );
  // "email 'Hi...'" is a message, never a test of the ticket's email field.
  const d = draftOver(
    "pro: email 'Hi, we are on it' and assign billing within 24 hours",
    BLIND6_DIR,
    'ticket-triage',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, 'payload.plan == "pro"');
});

test('"A or B and C" is asked: which tests "and" joins is not guessed', () => {
  const d = draftOver(
    'When a refund is requested, refund it up to $50 if the tier is gold or the reason is damaged and the currency is USD',
    CORPUS_DIR,
    'support-desk',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => /is followed by "and"/.test(q.question)),
    JSON.stringify(d.questions),
  );
});

test('a bound on money no step moves and no test reads is asked: the action that moves it was lost', () => {
  // "refund it" was dropped and only the tag kept, under a $20 cap nothing spends.
  const d = draftOver(
    "if the refund amount is under 20 refund it, if it's over 500 tag it escalate",
    CORPUS_DIR,
    'support-desk',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => /no step of the draft moves money/.test(q.question)),
    JSON.stringify(d.questions),
  );
});
