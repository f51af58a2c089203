/**
 * Customer groups said in words (grammar/read-conditions.ts readAudience), over a catalog no corpus
 * uses (a gym): one group or several ("silver or gold members"), at a clause's start or after
 * "for", as a test of the event's one tier/plan field, read back under "Assumed"; a clause that
 * starts with an action ("extend members who ...") is no group.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const gym: DraftCatalog = {
  tools: [
    tool({
      name: 'extend_membership',
      description: 'Extends a membership by a month.',
      args: { type: 'object', required: ['member_id'], properties: { member_id: { type: 'string' } } },
    }),
  ],
  events: [{ type: 'renewal.requested', payload: ['member_id', 'plan'] }],
};
const draft = (r: string) => draftSpec(compileRequest(r, gym), gym);

test('one customer group or several become a test of the one plan field, any one of them', () => {
  for (const [request, when] of [
    ['gold members asking for a renewal: extend it', 'payload.plan == "gold"'],
    [
      'silver or gold members requesting a renewal -> extend their membership',
      'payload.plan == "silver" or payload.plan == "gold"',
    ],
    [
      'when a renewal is requested by silver, gold and platinum members, extend the membership',
      'payload.plan == "silver" or payload.plan == "gold" or payload.plan == "platinum"',
    ],
    [
      'renewal requests from silver or gold customers: extend the membership',
      'payload.plan == "silver" or payload.plan == "gold"',
    ],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, when, request);
    assert.match(
      (d.readBack?.assumed ?? []).join('\n'),
      /"gold" customers are read as renewal\.requested's plan/,
    );
  }
});

test('a clause that starts with an action is no customer group', () => {
  const d = draft('extend members who ask for a renewal');
  assert.equal(d.spec?.triggers[0]?.when, undefined, JSON.stringify(d.spec?.triggers));
});

test('a group read is always a test on the trigger, never dropped (any group word)', () => {
  const word = fc
    .stringMatching(/^[a-z]{3,9}$/)
    .filter(
      (w) =>
        !/^(?:renew|extend|member|all|any|new|some|many|most|more|the|our|and|each|every|other|those|these|such|existing)/.test(
          w,
        ),
    );
  fc.assert(
    fc.property(word, word, (a, b) => {
      fc.pre(a !== b);
      const d = draft(`${a} or ${b} members asking for a renewal: extend it`);
      if (!d.publishable) return;
      assert.equal(d.spec?.triggers[0]?.when, `payload.plan == "${a}" or payload.plan == "${b}"`);
    }),
    { numRuns: 150 },
  );
});

test('a size or a rank ("our biggest members", "top customers") is no plan\'s name: asked, unless the plan takes it', () => {
  for (const request of [
    'renewals from our biggest members: extend the membership',
    'renewal requests from top customers -> extend it',
    'when a renewal is requested by our key members, extend the membership',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    assert.match(
      d.questions.map((q) => q.question).join('\n'),
      /No field of the renewal\.requested event says which customers are "(?:biggest|top|key)"/,
      request,
    );
  }
  // A plan whose samples say "top" has a plan of that name.
  const named: DraftCatalog = {
    ...gym,
    events: [{ ...gym.events![0]!, values: { plan: ['top', 'basic'] } }],
  };
  const d = draftSpec(compileRequest('renewal requests from top customers -> extend it', named), named);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec?.triggers[0]?.when, 'payload.plan == "top"');
});
