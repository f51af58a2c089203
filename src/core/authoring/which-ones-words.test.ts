/**
 * "new" before anything but what the trigger event creates, and "US" before people, say which
 * ones (grammar/which-ones-words.ts): in a draft that moves money or destroys, unless a test holds
 * the value, they are asked. "freeze new sellers for fraud" had frozen every flagged seller,
 * "downgraded: credit US customers $20" credited every downgrade.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertAsks,
  BLIND4_DIR,
  BLIND10_DIR,
  BLIND11_DIR,
  BLIND13_DIR,
  draftOver,
} from '../../../test/authoring/draft-corpus.ts';

test('"new sellers" on a flag, "US guests": asked', () => {
  assertAsks(
    'sellers flagged: freeze new sellers for fraud',
    BLIND10_DIR,
    'payouts',
    '"new sellers" says which ones',
  );
  assertAsks(
    'complaints from US guests: refund $20',
    BLIND13_DIR,
    'frontdesk',
    '"US guests" says which ones',
  );
});

test('"new" before what the event creates is the event', () => {
  const d = draftOver('new payout requests: pay out, max 300', BLIND10_DIR, 'payouts');
  assert.ok(!d.questions.some((q) => q.question.includes('says which ones')), JSON.stringify(d.questions));
});

test('"every new hire" (employee.hired) and "the new ask" are the event itself', () => {
  const hire = draftOver('order a $90 keyboard for every new hire', BLIND4_DIR, 'people-ops');
  assert.equal(hire.publishable, true, JSON.stringify(hire.questions));
  const ask = draftOver('reopened claims: pay the new ask, never more than 1500', BLIND11_DIR, 'claims');
  assert.ok(
    !ask.questions.some((q) => q.question.includes('says which ones')),
    JSON.stringify(ask.questions),
  );
});
