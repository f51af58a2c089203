/**
 * Everyday ways of saying an action, a bound, a negation and a reason, over a catalog of its own
 * (a gym's front desk): "auto-refund" is the refund, done without asking (normalise-request.ts); "a
 * ceiling of $30" is the spend cap (read-amounts.ts); "havent activated yet" turns a yes/no field
 * around (flag-fields.ts); "we'll review the rest by hand" is who does what the workflow leaves
 * out (read-filler.ts); and "refund every request, ..." says the action, never only the event
 * whose noun it shares (trigger-heading.ts): the refund is never dropped. A sentence of values and
 * "only" ("USD only pls.") says which events, as a heading does (read-value-headings.ts); "send
 * back - ..." is a reply; "within 2 business days" in a text states no amount (draft-safety.ts);
 * and a trigger that lets in only amounts above the cap a step moves is asked (refused-values.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { refusedTriggerValues } from './refused-values.ts';

const member = { type: 'string', pattern: '^M-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'refund_fee',
      description: 'Refunds a fee to a member.',
      args: {
        type: 'object',
        required: ['member_id', 'amount_usd'],
        properties: { member_id: member, amount_usd: { type: 'number', minimum: 0 } },
        additionalProperties: false,
      },
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'send_note',
      description: 'Sends a member a note.',
      args: {
        type: 'object',
        required: ['member_id', 'text'],
        properties: { member_id: member, text: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
      effect: 'external',
    }),
    tool({
      name: 'send_reply',
      description: "Replies to a member's message.",
      args: {
        type: 'object',
        required: ['member_id', 'body'],
        properties: { member_id: member, body: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
      effect: 'external',
    }),
  ],
  events: [
    {
      type: 'refund.requested',
      payload: ['member_id', 'amount_usd', 'currency'],
      values: { currency: ['USD', 'EUR'] },
    },
    { type: 'membership.lapsed', payload: ['member_id', 'activated'], flags: ['activated'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, desk), desk);
const published = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d;
};
const tools = (d: ReturnType<typeof draft>) =>
  (d.spec ?? d.partial)!.steps.map((s) => ('tool' in s ? s.tool : 'choose'));

test('"auto-refund" is the refund, as "refund ... automatically" is', () => {
  const auto = published('auto-refund every request under $20');
  const plain = published('refund every request under $20 automatically');
  assert.deepEqual(auto.spec!.steps, plain.spec!.steps);
  assert.deepEqual(tools(auto), ['refund_fee']);
  assert.equal(auto.spec!.limits.maxCostUsd, 20);
});

test('"a ceiling of $30" is the spend cap', () => {
  const d = published('refund every request, a ceiling of $30');
  assert.deepEqual(tools(d), ['refund_fee']);
  assert.equal(d.spec!.limits.maxCostUsd, 30);
});

test('"havent activated yet" tests the yes/no field as false', () => {
  const d = published(`when a membership lapses and they havent activated yet, send them a note "Come back"`);
  assert.equal(d.spec!.triggers[0]!.when, 'payload.activated == false');
});

test('"we\'ll review the rest by hand" is a reason, read back, not an action to ask about', () => {
  const d = published("refund every request under $20, we'll review the rest by hand");
  assert.deepEqual(tools(d), ['refund_fee']);
  assert.ok(
    d.readBack?.assumed?.some((a) => a.includes('by hand')),
    JSON.stringify(d.readBack?.assumed),
  );
});

test('"someone will refund it manually" in an else is who does it, never a refund step', () => {
  const d = published(
    "refund anything up to $20 and send them a note 'Done'. anything bigger just send them a note 'We will look at it', someone will refund it manually",
  );
  const choice = d.spec!.steps[0]!;
  assert.ok('choose' in choice, JSON.stringify(d.spec!.steps));
  assert.deepEqual(
    choice.else?.map((s) => ('tool' in s ? s.tool : '')),
    ['send_note'],
  );
  assert.ok(
    d.readBack?.assumed?.some((a) => a.includes('someone will refund it manually')),
    JSON.stringify(d.readBack?.assumed),
  );
});

test('a person doing it by hand never hides a restriction or an object: asked', () => {
  for (const request of [
    'refund every request under $20. premium someone will refund manually',
    'refund every request under $20, someone must refund premium requests manually',
    // A sign-off said by hand is no action the catalog does: asked, never dropped.
    'refund every request under $20, someone has to confirm them manually',
    // Said of every event, it contradicts the refund: asked.
    'refund every request under $20. someone will refund them manually.',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
  }
});

test('"refund every request, ..." keeps the refund, even where "refund" is the event\'s noun too', () => {
  const d = draft(`refund every request, full amount, and send them a note "Done"`);
  assert.deepEqual(tools(d), ['refund_fee', 'send_note']);
  // No bound is said: asked, never published.
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.about === 'limits.maxCostUsd'),
    JSON.stringify(d.questions),
  );
});

test('"USD only pls." says which events, wherever the sentence is', () => {
  for (const request of [
    'USD only pls. refund every request under $20',
    'only USD. refund every request under $20',
    'refund every request under $20. USD only',
  ]) {
    const d = published(request);
    // (And "under $20" leaves $20 itself out, which the cap alone would let through.)
    assert.equal(d.spec!.triggers[0]!.when, 'payload.currency == "USD" and payload.amount_usd < 20', request);
  }
  // A case said with its action is no such sentence: "USD only: refund" is a heading.
  assert.equal(
    published('USD only: refund every request under $20').spec!.triggers[0]!.when,
    'payload.currency == "USD" and payload.amount_usd < 20',
  );
});

test('"send back - <text>" is a reply; "within 2 business days" states no amount', () => {
  const d = published(
    'when a membership lapses just send back - Thanks, we will be in touch within 2 business days',
  );
  assert.deepEqual(tools(d), ['send_reply']);
  const money = published(
    'refund every request under $40. send them a note: a member of our team will look within 2 business days',
  );
  assert.equal(money.spec!.limits.maxCostUsd, 40);
});

test('a trigger that lets in only amounts above the cap a step moves is asked, whatever compiled it', () => {
  const d = published('refund every request under $40');
  const spec = { ...d.spec!, triggers: [{ event: 'refund.requested', when: 'payload.amount_usd > 1000' }] };
  const qs = refusedTriggerValues(spec, desk.tools);
  assert.equal(qs.length, 1);
  assert.match(qs[0]!.question, /cap would refuse it on every run/);
  // Said the other way round, or in a choice's branch, the same.
  const turned = { ...spec, triggers: [{ event: 'refund.requested', when: '1000 < payload.amount_usd' }] };
  assert.equal(refusedTriggerValues(turned, desk.tools).length, 1);
  const branched = {
    ...spec,
    triggers: [{ event: 'refund.requested' }],
    steps: [{ name: 'by_amount', choose: [{ when: 'payload.amount_usd >= 50', steps: spec.steps }] }],
  } as typeof spec;
  assert.equal(refusedTriggerValues(branched, desk.tools).length, 1);
  // A bound below the cap lets some amounts through: nothing to ask.
  const ok = { ...spec, triggers: [{ event: 'refund.requested', when: 'payload.amount_usd > 10' }] };
  assert.deepEqual(refusedTriggerValues(ok, desk.tools), []);
});

test('"once theyre lapsed", typed without the apostrophe, says who, never which members', () => {
  const plain = published(`send them a note "Come back" once they're lapsed`);
  const typed = published(`send them a note "Come back" once theyre lapsed`);
  assert.deepEqual(typed.spec!.triggers, plain.spec!.triggers);
  assert.equal(typed.spec!.triggers[0]!.when, undefined);
});
