/**
 * Issue 30: plain phrasings over the blind sets' catalogs that were asked about needlessly (the
 * trigger said after the action with "if", an action said with its tool's own noun, the event said
 * only by its verb, a test joined to the trigger with "and"), each now drafted as its words say. The requests are in no corpus set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draft } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import { BLIND8_DIR, BLIND10_DIR, draftOver as draft } from './draft-corpus.ts';

/** The draft's trigger (event and test) and its tools, or its questions when it asks. */
const shapeOf = (d: Draft) =>
  d.publishable && d.spec
    ? {
        on: d.spec.triggers.map((t) => `${t.event}${t.when ? ` if ${t.when}` : ''}`).join(' | '),
        tools: toolSteps(d.spec).map((s) => s.tool),
      }
    : { questions: d.questions.map((q) => q.question) };

test('the trigger said after the action with "if" and an event verb starts the workflow', () => {
  for (const [request, on, tool] of [
    ['freeze the seller for fraud if a chargeback comes in', 'chargeback.received', 'freeze_seller'],
    ['hold the payout if a dispute is opened', 'dispute.opened', 'hold_payout'],
    ['email the seller "We could not pay you out." if a payout failed', 'payout.failed', 'email_seller'],
  ] as const)
    assert.deepEqual(shapeOf(draft(request, BLIND10_DIR, 'payouts')), { on, tools: [tool] }, request);
  // A forbidden action, a clause that says more, or a noun that is an event verb too is no
  // such trigger: left to the other readers, or asked.
  for (const request of [
    "don't hold the payout if a dispute was opened",
    'never freeze the seller if a chargeback comes in',
    'hold the payout if a payout is requested by a flagged seller',
    'send the payout if a payout is requested and the seller is verified, up to $500',
    // (More said before it would run on that event too: pays on every chargeback.)
    'send payouts up to $500, but freeze the seller for chargebacks if a chargeback comes in',
    'send a standard payout up to $200. hold it for review if a dispute was opened',
    // (Nor more after it: it would pay before the approval said after.)
    'send the payout up to $400 if a payout is requested, after finance approval',
  ])
    assert.equal(draft(request, BLIND10_DIR, 'payouts').publishable, false, request);
});

test('a generic verb and an event field that together name a tool are that action, not an argument', () => {
  // "add seats" is add_seats, never `seats` with its verb eaten (which left no action at all).
  const d = draft('when seats are requested, add seats, max $500', BLIND8_DIR, 'subscriptions');
  assert.ok(d.partial ?? d.spec);
  assert.deepEqual(
    toolSteps((d.spec ?? d.partial)!).map((s) => s.tool),
    ['add_seats'],
  );
  assert.ok(
    !d.questions.some((q) => /No action in the request/.test(q.question)),
    JSON.stringify(d.questions),
  );
});

test('an event said only by its verb in a relative clause starts the workflow, listed as assumed', () => {
  const d = draft('tag accounts that downgrade as churn-risk', BLIND8_DIR, 'subscriptions');
  assert.deepEqual(shapeOf(d), { on: 'plan.downgraded', tools: ['tag_account'] });
  assert.ok(d.readBack?.assumed?.some((a) => a.includes('plan.downgraded') && a.includes('"downgrade"')));
});

test('an event said by its verb of someone is read only where nothing else is said of it', () => {
  // An object of its own, a bare "anything", or an arrival verb names no event this way.
  for (const request of [
    'send an email "we got it" to anyone who requested a refund',
    'issue a credit to anyone who submitted a 10, max $30',
    'tag accounts that cancelled or downgraded as churn-risk',
    // ("if a trial has ended" is no trial.ending, which is said in -ing.)
    'cancel the subscription immediately if a trial has ended',
  ])
    assert.equal(draft(request, BLIND8_DIR, 'subscriptions').publishable, false, request);
});

test('a field test joined to the trigger clause with "and" is a condition on the events', () => {
  for (const [request, test] of [
    [
      'when a subscription is cancelled and the reason is too expensive, give a $20 credit',
      'payload.reason == "too_expensive"',
    ],
    [
      'when a subscription is cancelled and the reason is switched competitor, give a $20 credit',
      'payload.reason == "switched_competitor"',
    ],
  ] as const)
    assert.deepEqual(
      shapeOf(draft(request, BLIND8_DIR, 'subscriptions')),
      { on: `subscription.cancelled if ${test}`, tools: ['issue_credit'] },
      request,
    );
  // Not after an action, not with a value the events do not show, not a test of its own.
  for (const request of [
    'when a subscription is cancelled look up the account and the reason is checked, then give a $20 credit',
    'whenever a subscription is cancelled tag it "churn" and the reason is noted',
  ]) {
    const d = draft(request, BLIND8_DIR, 'subscriptions');
    const got = d.spec ?? d.partial;
    assert.doesNotMatch(JSON.stringify([got?.triggers, got?.steps]), /checked|noted/, request);
  }
  // Nor when more is said after its action: the tag is for every cancelled account.
  const more = draft(
    'when a subscription is cancelled and the reason is too expensive, give a $20 credit. Tag every cancelled account win-back.',
    BLIND8_DIR,
    'subscriptions',
  );
  assert.equal(more.publishable, false);
});
