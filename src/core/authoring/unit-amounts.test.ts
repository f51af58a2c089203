/**
 * An amount said per unit or against another amount is asked in a draft that moves money
 * (grammar/unit-amounts.ts): "refund $20 per night" had refunded a flat $20, "return $200 less
 * than the deposit" returned $200. A cap said per run, or per the event's own noun, is no unit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAsks, BLIND12_DIR, BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

test('"$20 per night", "$10/night", "$40 to each guest" ask: no template multiplies', () => {
  assertAsks(
    'complaints: refund $20 per night',
    BLIND13_DIR,
    'frontdesk',
    '"$20 per night" says an amount for each night',
  );
  assertAsks('checkout: $10/night credit', BLIND13_DIR, 'frontdesk', 'for each night');
  assertAsks(
    'noise complaints: refund $40 to each guest in the room',
    BLIND13_DIR,
    'frontdesk',
    'for each guest',
  );
});

test('"$200 less than the deposit" asks: no template subtracts', () => {
  assertAsks(
    'tenancy ended: return $200 less than the deposit',
    BLIND12_DIR,
    'lettings',
    'no template subtracts',
  );
});

test('a cap per run, or per the event, is no unit', () => {
  for (const request of [
    'complaints: refund $20, no more than $50 a run',
    'complaints: refund $20, max $20 per complaint',
  ]) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.ok(
      !d.questions.some((q) => q.question.includes('for each')),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});
