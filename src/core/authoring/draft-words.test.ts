/**
 * In a draft that moves money or destroys, a word of the catalog is read only where the draft says
 * it: a word of a tool it calls, or of its trigger event (grammar/read-coverage.ts). Any catalog
 * word had counted as read, so a restriction said in the catalog's words was dropped unasked:
 * "refund $20 per night" refunded a flat $20 ("night" is another tool's word), "freeze sellers with
 * open disputes" froze every flagged seller, and "when a guest complains about a no show charge"
 * (words of the trigger's clause) refunded every complaint. A draft that moves nothing keeps the
 * catalog's words, and the draft's own words ask nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND9_DIR, BLIND10_DIR, BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

const asksAbout = (request: string, dir: string, file: string, word: string) => {
  const d = draftOver(request, dir, file);
  assert.equal(d.publishable, false, request);
  assert.ok(
    d.questions.some((q) => q.question.includes(`could not read`) && q.question.includes(`"${word}"`)),
    `${request}: ${JSON.stringify(d.questions)}`,
  );
};

test('a catalog word no step and no trigger of a money draft says is asked', () => {
  asksAbout('complaints: refund $20 per night', BLIND13_DIR, 'frontdesk', 'night');
  asksAbout(
    'sellers flagged: freeze sellers with open disputes for policy',
    BLIND10_DIR,
    'payouts',
    'disputes',
  );
});

test('a word only a field the draft never reads says is asked: "with photos" and no has_photos test', () => {
  asksAbout(
    'give store credit of the item value on damaged orders with photos, max 200',
    BLIND9_DIR,
    'shipping',
    'photos',
  );
});

test("words of the trigger's clause read as no test are asked in a money draft", () => {
  asksAbout('when a guest complains about a no show charge, refund $50', BLIND13_DIR, 'frontdesk', 'charge');
});

test("the draft's own words ask nothing", () => {
  for (const request of [
    'complaints: refund $20 to their card',
    'when a complaint is logged, refund the guest $25 against the reservation',
  ]) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  }
});
