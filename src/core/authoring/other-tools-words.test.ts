/**
 * A word only another money-moving tool is described with is asked in a draft that moves money
 * (grammar/other-tools-words.ts): "credit their card $50" had drafted a $50 goodwill credit on the
 * guest's profile, `issue_credit`, and dropped "card", which only `refund_guest` (a refund to the
 * card the guest paid with) says. A word the draft's own tool says is no question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

test('"credit their card $50": "card" is refund_guest\'s word, asked', () => {
  const d = draftOver('credit their card $50 on every complaint', BLIND13_DIR, 'frontdesk');
  assert.equal(d.publishable, false);
  const q = d.questions.find((x) => x.question.startsWith('"card" is said of refund_guest'));
  assert.ok(q, JSON.stringify(d.questions));
  assert.deepEqual(q.candidates, ['issue_credit', 'refund_guest']);
});

test("a word of the draft's own tool is no question", () => {
  for (const request of [
    'refund $50 to their card on every complaint',
    'credit them $50 on every complaint',
  ]) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  }
});
