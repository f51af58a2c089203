/**
 * An else said apart from its test (grammar/read-else-apart.ts): the test said as the workflow's
 * filter, "otherwise" / "for everyone else" / "anything shorter" later, over a subscription desk
 * no corpus uses. The test becomes a choice's; a money bound it answers is the cap of the branch
 * that pays; an else that answers no one test is asked about.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ChooseStepSpec } from '../spec/flow-steps.ts';
import type { StepSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const desk: DraftCatalog = {
  tools: [
    {
      name: 'renew_subscription',
      description: 'Renews a subscription and charges its amount.',
      destructive: true,
      effect: 'write',
      idempotent: true,
      scopes: [],
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['account_id', 'amount_usd'],
        properties: { account_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
    },
    {
      name: 'tag_account',
      description: 'Adds a tag to an account.',
      destructive: false,
      effect: 'write',
      idempotent: true,
      scopes: [],
      args: {
        type: 'object',
        required: ['account_id', 'tag'],
        properties: { account_id: { type: 'string' }, tag: { type: 'string' } },
      },
    },
  ] as ToolDescriptor[],
  events: [{ type: 'renewal.requested', payload: ['plan', 'amount_usd', 'term_days'] }],
};

const draft = (request: string) => draftSpec(compileRequest(request, desk), desk);
const choiceOf = (d: ReturnType<typeof draft>) => d.spec!.steps.find((s) => 'choose' in s) as ChooseStepSpec;
const tools = (steps: readonly unknown[] | undefined) =>
  (steps as StepSpec[] | undefined)?.map((s) => s.tool);

test('"renewals over 5000 -> tag it. otherwise renew it": a choice on the amount, the else capped at the bound', () => {
  const d = draft("renewal requests over 5000 -> tag it 'big'. otherwise renew it");
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, undefined);
  const c = choiceOf(d);
  assert.equal(c.choose[0]!.when, 'payload.amount_usd > 5000');
  assert.deepEqual(tools(c.choose[0]!.steps), ['tag_account']);
  assert.deepEqual(tools(c.else), ['renew_subscription']);
  assert.equal(d.spec!.limits.maxCostUsd, 5000);
});

test('"for enterprise customers renew it (max $900), for everyone else tag it instead": a choice on the group', () => {
  const d = draft(
    "for enterprise customers renew it straight away (max $900), for everyone else tag it 'sales-review' instead",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, undefined);
  const c = choiceOf(d);
  assert.equal(c.choose[0]!.when, 'payload.plan == "enterprise"');
  assert.deepEqual(tools(c.choose[0]!.steps), ['renew_subscription']);
  assert.deepEqual(
    (c.else as StepSpec[]).map((s) => s.args.tag),
    ['sales-review'],
  );
  assert.equal(d.spec!.limits.maxCostUsd, 900);
});

test('"for 90 days or more? tag it. anything shorter, renew it": a choice on the duration', () => {
  const d = draft(
    "renewal requested for 90 days or more? tag it 'long-term'. anything shorter, renew it up to $200 instead",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const c = choiceOf(d);
  assert.equal(c.choose[0]!.when, 'payload.term_days >= 90');
  assert.deepEqual(tools(c.else), ['renew_subscription']);
  assert.equal(d.spec!.limits.maxCostUsd, 200);
});

test('an else that answers no test, or one of several, is asked about', () => {
  for (const r of [
    "when a renewal is requested tag it 'seen'. otherwise renew it up to $50",
    "for enterprise customers over 5000 -> tag it 'big'. otherwise renew it up to $50",
    "renewal requests over 5000 -> tag it 'big'. anything shorter, renew it up to $50",
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(d.questions.length > 0, r);
  }
});

test('property: an else said apart never pays above the bound it answers, nor on the side the words did not say', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 99_999 }),
      fc.constantFrom('over', 'above', 'more than'),
      fc.constantFrom('. otherwise', '; otherwise', ', otherwise', '. everything else,', '. for the rest,'),
      fc.constantFrom('renew it', 'just renew it', 'renew it instead'),
      (usd, word, marker, action) => {
        const request = `renewal requests ${word} ${usd} -> tag it 'big'${marker} ${action}`;
        const d = draft(request);
        assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
        const c = choiceOf(d);
        assert.equal(c.choose[0]!.when, `payload.amount_usd > ${usd}`, request);
        assert.deepEqual(tools(c.choose[0]!.steps), ['tag_account'], request);
        assert.deepEqual(tools(c.else), ['renew_subscription'], request);
        assert.ok(d.spec!.limits.maxCostUsd <= usd, request);
      },
    ),
    { numRuns: 200 },
  );
});

test('"anything above that", "anything bigger" after a bound said of the renewals are its else, after a quoted text too', () => {
  for (const request of [
    "renewals of $900 or less -> renew it + tag it 'renewed' anything above that, just tag it 'big'",
    "renew anything up to $900 and tag it 'renewed'. anything bigger: tag it 'big'",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const c = choiceOf(d);
    assert.equal(c.choose[0]!.when, 'payload.amount_usd <= 900', request);
    assert.deepEqual(tools(c.choose[0]!.steps), ['renew_subscription', 'tag_account'], request);
    assert.deepEqual(tools(c.else), ['tag_account'], request);
    assert.equal(d.spec!.limits.maxCostUsd, 900, request);
  }
});

test('a comparison on the same side as its bound, or money moved beyond the bound with no larger cap, is asked', () => {
  for (const request of [
    // "bigger" than "over $900" says nothing the bound does not.
    "renewals over $900: tag it 'big'. anything bigger: renew it",
    "renewals up to $900: renew it. anything smaller: tag it 'small'",
    // The renewal runs above $900, where nothing bounds it: every renewal would be refused.
    "renewals of $900 or less -> tag it 'small'. otherwise renew it",
    "renewals of $900 or less -> tag it 'small'. anything above that, renew it",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
  }
});
