/**
 * A money bound said of the events, as a heading, bounds which events the workflow acts on when a
 * step acts before the money moves (grammar/bounded-events.ts): the spend cap alone would refuse
 * the payment of a $100 claim only after the claim had been approved. Said with the money's own
 * action, or with nothing acting first, the bound stays the cap alone. So does a bound said of the
 * one object of the actions a request starts with. A step said with "first" after the money's runs
 * before it, and a word only a field's name has (has_photos) is a test to ask about, never dropped.
 * Over a catalog of its own (an insurer's small claims).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const claim = { type: 'string', pattern: '^CL-[0-9]+$' };
const claims: DraftCatalog = {
  tools: [
    tool({
      name: 'approve_claim',
      description: 'Approves a claim.',
      args: {
        type: 'object',
        required: ['claim_id'],
        properties: { claim_id: claim },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'reject_claim',
      description: 'Rejects a claim.',
      args: {
        type: 'object',
        required: ['claim_id'],
        properties: { claim_id: claim },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'pay_claim',
      description: 'Pays a claim out to the policy holder.',
      args: {
        type: 'object',
        required: ['claim_id', 'amount_usd'],
        properties: { claim_id: claim, amount_usd: { type: 'number', minimum: 0 } },
        additionalProperties: false,
      },
      destructive: true,
      cost: { fromArg: 'amount_usd' },
    }),
  ],
  events: [
    {
      type: 'claim.filed',
      payload: ['amount_usd', 'has_photos', 'kind', 'policy_id'],
      values: { kind: ['auto', 'home'] },
    },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, claims), claims);

test('a bound said of the claims, with an approval before the payment, is a test of the trigger and the cap', () => {
  for (const [request, when] of [
    ['claims under $75 → approve and pay them', 'payload.amount_usd < 75'],
    ['claims up to $75: approve them and pay them', 'payload.amount_usd <= 75'],
    ['when a claim under $75 is filed, approve it and pay it', 'payload.amount_usd < 75'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'claim.filed', when }], request);
    assert.equal(d.spec!.limits.maxCostUsd, 75, request);
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes('approve_claim acts before pay_claim moves the money')),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
});

test('a bound said with the payment, or with nothing acting before it, stays the cap alone', () => {
  for (const request of [
    // The approval is for every claim; the bound is the payment's.
    'when a claim is filed, approve it, then pay anyone under $75',
    // Nothing acts before the payment: the cap refuses what the words exclude.
    'claims up to $75: pay them',
    'when a claim is filed, pay it, up to $75',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'claim.filed' }], request);
    assert.equal(d.spec!.limits.maxCostUsd, 75, request);
  }
});

test('"under" said of the events leaves the bound itself out, which the cap alone lets through', () => {
  // A $75 claim would be paid under a $75 cap: the trigger tests the amount too, the cap stays.
  for (const request of [
    'claims under $75: pay them',
    'pay claims under $75',
    "when a claim is filed, if it's under $75, pay it",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'claim.filed', when: 'payload.amount_usd < 75' }], request);
    assert.equal(d.spec!.limits.maxCostUsd, 75, request);
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes('leaves $75 itself out')),
      request,
    );
  }
});

test('in a choice, a bound said in a case heading is asked; an else said as "anything over that" is never dropped', () => {
  const kinds: DraftCatalog = {
    tools: [
      ...claims.tools,
      tool({
        name: 'flag_claim',
        description: 'Flags a claim for an adjuster.',
        args: {
          type: 'object',
          required: ['claim_id'],
          properties: { claim_id: claim },
          additionalProperties: false,
        },
      }),
    ],
    events: [
      {
        type: 'claim.filed',
        payload: ['amount_usd', 'policy_id', 'kind'],
        values: { kind: ['dental', 'vision'] },
        subjects: ['CL-1'],
      },
    ],
  };
  const of = (request: string) => draftSpec(compileRequest(request, kinds), kinds);
  // The cap alone would approve a $500 dental claim, then refuse to pay it.
  const bound = of('dental under 300 -> approve and pay, otherwise flag it');
  assert.equal(bound.publishable, false, JSON.stringify(bound.spec));
  assert.ok(
    bound.questions.some((q) => q.question.startsWith('Which case does $300 bound?')),
    JSON.stringify(bound.questions),
  );
  // Said in the else's own words ("everything else under 300 -> ..."), it is asked too.
  for (const r of [
    'dental? flag it. everything else under 300 -> approve and pay',
    'if it is dental, skip it. otherwise, under 300: approve and pay',
  ]) {
    const d = of(r);
    assert.equal(d.publishable, false, `${r}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) => q.question.startsWith('Which case does $300 bound?')),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
  // "anything over that just approve it": the else of the bound (never of the field's test), so
  // the approval alone runs above it and nothing is dropped.
  const over = of('dental: up to 50 dollars approve + pay, anything over that just approve it');
  assert.equal(over.publishable, true, JSON.stringify(over.questions));
  assert.equal(over.spec!.triggers[0]!.when, 'payload.kind == "dental"');
  const choice = over.spec!.steps[0]!;
  assert.ok('choose' in choice, JSON.stringify(over.spec!.steps));
  assert.equal(choice.choose[0]!.when, 'payload.amount_usd <= 50');
  assert.deepEqual(
    choice.choose[0]!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['approve_claim', 'pay_claim'],
  );
  assert.deepEqual(
    choice.else?.map((s) => ('tool' in s ? s.tool : '')),
    ['approve_claim'],
  );
  assert.equal(over.spec!.limits.maxCostUsd, 50);
});

test('a bound said of the one object of the actions a request starts with bounds the events too', () => {
  for (const request of [
    'approve + pay auto claims under $75 automatically',
    'approve and pay auto claims under $75',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.match(d.spec!.triggers[0]!.when ?? '', /payload\.amount_usd < 75/, request);
    assert.match(d.spec!.triggers[0]!.when ?? '', /payload\.kind == "auto"/, request);
    assert.equal(d.spec!.limits.maxCostUsd, 75, request);
  }
});

test('a step said with "first" after the money moves runs before it', () => {
  const d = draft('auto claims: pay them, max $500. if its over 100 approve it first');
  const names = d.spec?.steps.map((s) => ('tool' in s ? s.tool : ''));
  assert.deepEqual(names, ['approve_claim', 'pay_claim'], JSON.stringify(d.spec ?? d.questions));
  const approve = d.spec!.steps[0]!;
  assert.equal('if' in approve ? approve.if : undefined, 'payload.amount_usd > 100');
});

test('a word only a field has, with the field read nowhere, is asked about, never dropped', () => {
  const d = draft('claims that came with photos: approve them and pay them, cap 200');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.about === 'triggers.when' && q.question.includes('has_photos')),
    JSON.stringify(d.questions),
  );
  // Known as a yes/no field (its samples give true or false), it is the test.
  const flagged: DraftCatalog = {
    ...claims,
    events: [{ ...claims.events![0]!, flags: ['has_photos'] }],
  };
  const f = draftSpec(
    compileRequest('claims that came with photos: approve them and pay them, cap 200', flagged),
    flagged,
  );
  assert.equal(f.publishable, true, JSON.stringify(f.questions));
  assert.equal(f.spec!.triggers[0]!.when, 'payload.has_photos == true');
});

test('"auto-approve" is the action; "auto approve" where auto is a kind of claim is never dropped', () => {
  const d = draft('auto-approve and pay claims under $75');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.match(d.spec!.triggers[0]!.when ?? '', /payload\.amount_usd < 75/);
  const v = draft('auto approve and pay claims under $75');
  assert.ok(
    !v.publishable || /payload\.kind == "auto"/.test(v.spec!.triggers[0]!.when ?? ''),
    JSON.stringify(v.spec?.triggers ?? v.questions),
  );
});

test('"first" said with an otherwise is asked: never the money first', () => {
  const d = draft('auto claims: pay them, max $500. if its over 100 approve it first, otherwise reject it');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('which steps should run before the others')),
    JSON.stringify(d.questions),
  );
});

test('a sentence that ends in "first" runs before the one said before it', () => {
  const d = draft('auto claims: pay them, max $500. approve it first');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['approve_claim', 'pay_claim'],
  );
});

test('in a draft that moves no money, a bound said of the events tests their amount; said of anything else, it is asked', () => {
  for (const request of ['approve claims under $200', 'approve claims under $200 automatically']) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.amount_usd < 200', request);
    assert.deepEqual(
      d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['approve_claim'],
    );
  }
  // Said of no events: as a cap it would bound nothing, so every claim would be rejected.
  const other = draft('reject claims with photos of damage under $200');
  assert.equal(other.publishable, false, JSON.stringify(other.spec));
  // "unless it's over" bounds which claims too: as a cap alone it bounded nothing, and every claim was approved.
  const unless = draft("when a claim is filed, approve it unless it's over 500");
  assert.ok(
    !unless.publishable || unless.spec!.triggers[0]!.when === 'payload.amount_usd <= 500',
    JSON.stringify(unless.spec),
  );
});

test('a negated bound where nothing moves money says which events, never an inert cap: "approve claims not over $600"', () => {
  for (const r of [
    'when a claim is filed, approve claims not over $600',
    'when a claim is filed, approve claims up to $600',
  ]) {
    const d = draft(r);
    // A test of the amount, or a question which field it bounds: never a draft that approves every claim.
    assert.ok(
      !d.publishable || /<= 600/.test(d.spec?.triggers[0]?.when ?? ''),
      `${r}: ${JSON.stringify(d.spec)}`,
    );
  }
});
