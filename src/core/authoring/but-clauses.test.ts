/**
 * "but" and "+" join two actions ("approve claims but reject fraud"): each is read as its own step (or
 * asked about), never one step that takes the other's words as its values. Read by splitSequence
 * (grammar/read-clauses.ts); "but only if", "but not", "but never", "but ask me first" stay the
 * readers' that take them. Over a catalog of its own (an insurer's claims).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const category = { enum: ['fraud', 'theft', 'damage'] };
const claims: DraftCatalog = {
  tools: [
    tool({
      name: 'approve_claim',
      description: 'Approves a claim in its category.',
      args: {
        type: 'object',
        required: ['claim_id', 'category'],
        properties: { claim_id: { type: 'string' }, category },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'tag_claim',
      description: 'Tags a claim.',
      args: {
        type: 'object',
        required: ['claim_id', 'tag'],
        properties: { claim_id: { type: 'string' }, tag: { type: 'string', pattern: '^[a-z-]{1,20}$' } },
        additionalProperties: false,
      },
    }),
  ],
  events: [{ type: 'claim.filed', payload: ['category', 'amount_usd'] }],
};

const draft = (request: string) => draftSpec(compileRequest(request, claims), claims);

test('an action after "but" that no tool does is asked about, never read as the first action\'s value', () => {
  for (const request of [
    'approve claims but reject fraud',
    'approve every claim but decline the theft ones',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) =>
        /No tool in the catalog does "(?:reject fraud|decline the theft ones)"/.test(q.question),
      ),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
    const approve = (d.spec ?? d.partial)?.steps.find((s) => 'tool' in s && s.tool === 'approve_claim');
    assert.ok(approve && 'tool' in approve, request);
    assert.equal(approve.args.category, '{{event.payload.category}}', request);
  }
});

test('an action after "but" that a tool does is a step of its own', () => {
  const d = draft('approve the claim but tag it "checked"');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['approve_claim', 'tag_claim'],
  );
});

test('"but never", "but not" and "but only" stay conditions', () => {
  const d = draft('approve claims but never fraud');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'claim.filed', when: 'payload.category != "fraud"' }]);
});

test('"+" joins two actions as "&" does: neither is dropped', () => {
  for (const request of ['approve the claim + tag it "checked"', 'approve it+tag it "checked"']) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['approve_claim', 'tag_claim'],
      request,
    );
  }
});

test("an action said inside another step's words, with nothing between, is asked about, never dropped", () => {
  const d = draft('approve the claim tag it "checked"');
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('says "tag" (tag_claim), but no step of the draft does it')),
    JSON.stringify(d.questions),
  );
  // A word of the catalog said as a noun or an adjective is no action of its own.
  const noun = draft('approve claims with the tag "checked"');
  assert.ok(
    !noun.questions.some((q) => q.question.includes('no step of the draft does it')),
    JSON.stringify(noun.questions),
  );
});
