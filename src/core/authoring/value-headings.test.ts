/**
 * A heading of values that opens a request says which events: "meals or travel, USD only: ...",
 * "kayaks & paddles - ...", "harassment reports -> ...". Values of one field are alternatives, of
 * two fields both hold; the cases of a choice ("kayaks → ...; paddles → ...") are never read as a
 * filter; a word no field holds leaves the heading to the question. A field named for a
 * classification whose samples show only values of the catalog's one list of classes holds that
 * list. Over a catalog of its own (an outdoor shop's rentals and claims).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const ITEMS = ['kayak', 'paddle', 'tent', 'stove'];
const shop: DraftCatalog = {
  tools: [
    tool({
      name: 'approve_claim',
      description: 'Approves a damage claim.',
      args: {
        type: 'object',
        required: ['claim_id', 'item'],
        properties: { claim_id: { type: 'string' }, item: { enum: ITEMS } },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'pay_claim',
      description: 'Pays a damage claim out to the customer.',
      args: {
        type: 'object',
        required: ['claim_id', 'amount_usd'],
        properties: { claim_id: { type: 'string' }, amount_usd: { type: 'number' } },
        additionalProperties: false,
      },
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'flag_review',
      description: 'Flags a review for moderators.',
      args: {
        type: 'object',
        required: ['review_id', 'reason'],
        properties: {
          review_id: { type: 'string' },
          reason: { enum: ['spam', 'abuse', 'off-topic', 'other'] },
        },
        additionalProperties: false,
      },
    }),
  ],
  events: [
    {
      type: 'claim.filed',
      payload: ['item', 'amount_usd', 'currency', 'store'],
      values: { item: ['kayak', 'tent'], currency: ['USD', 'EUR'], store: ['harbour', 'summit'] },
    },
    { type: 'review.reported', payload: ['category', 'rating'], values: { category: ['spam'] } },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, shop), shop);

test('values of one field are alternatives, of two fields both hold, in the order said', () => {
  const d = draft('kayaks or tents, USD only: approve the claim and pay it, up to $75');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [
    {
      event: 'claim.filed',
      when: '(payload.item == "kayak" or payload.item == "tent") and payload.currency == "USD"',
    },
  ]);
  assert.equal(d.spec!.limits.maxCostUsd, 75);
});

test('"&" and "/" join the values of a heading, and the heading says which event', () => {
  for (const request of ['kayaks & paddles - approve the claim', 'kayak/paddle: approve the claim']) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.triggers,
      [{ event: 'claim.filed', when: 'payload.item == "kayak" or payload.item == "paddle"' }],
      request,
    );
  }
});

test('the cases of a choice are not read as a heading: nothing runs for both', () => {
  const d = draft('claims: kayaks → approve the claim and pay it, up to $50; tents → approve the claim');
  const when = JSON.stringify(d.spec ?? d.partial);
  assert.doesNotMatch(when, /item == \\"kayak\\" or payload\.item == \\"tent\\"/);
  assert.ok(!d.publishable || d.spec!.steps.some((s) => 'choose' in s), when);
});

test('a heading with a word no field holds is asked about, whole', () => {
  const d = draft('kayaks or canoes: approve the claim');
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('canoes')),
    JSON.stringify(d.questions),
  );
});

test('a classification field whose samples show only listed classes holds the list, Assumed', () => {
  const d = draft('abuse reports -> flag the review');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'review.reported', when: 'payload.category == "abuse"' }]);
  assert.ok(
    d.readBack?.assumed?.some((a) =>
      /category is read as holding the classes .*the sample events show only spam/.test(a),
    ),
    JSON.stringify(d.readBack?.assumed),
  );
  // A class the list does not have is still asked about.
  assert.equal(draft('hate speech reports -> flag the review').publishable, false);
});

test('"for" and values before an action is a heading too; the last word may qualify every alternative', () => {
  const d = draft('for kayaks approve the claim');
  assert.deepEqual(d.spec?.triggers, [{ event: 'claim.filed', when: 'payload.item == "kayak"' }]);
  const both = draft('for harbour or summit tents approve the claim');
  assert.deepEqual(both.spec?.triggers, [
    {
      event: 'claim.filed',
      when: '(payload.store == "harbour" or payload.store == "summit") and payload.item == "tent"',
    },
  ]);
  // Alternatives of two fields are neither both nor dropped: asked.
  const either = draft('for tents or harbour approve the claim');
  assert.equal(either.publishable, false, JSON.stringify(either.spec));
});

test('a value of the event said and read by nothing is asked about in any draft, never dropped', () => {
  for (const request of ['approve the claim for harbour', 'approve claims from the harbour store']) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) => q.question.includes('"harbour" (store harbour)')),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  // A value an argument takes, or a test reads, is read.
  assert.equal(draft('when a claim is filed, approve it').publishable, true);
});

test('"non-USD" turns the currency around; a code said alone is the currency', () => {
  for (const request of ['non-USD claims: approve the claim', 'approve the claim for non usd claims']) {
    const d = draft(request);
    assert.deepEqual(
      d.spec?.triggers,
      [{ event: 'claim.filed', when: 'payload.currency != "USD"' }],
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  assert.deepEqual(draft('EUR claims: approve the claim').spec?.triggers, [
    { event: 'claim.filed', when: 'payload.currency == "EUR"' },
  ]);
});
