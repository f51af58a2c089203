/**
 * Money as people type it, over a catalog none of the corpus uses (a claims desk): whole cents
 * ("10 cents", "5c", "ten cents tops") are exact decimals of a dollar, never dollars; "a grand",
 * "two grand", "1.5 grand" are thousands; chat filler ("tho", "yes", "thanks", a bare "ok") changes
 * nothing. Every case goes through draftSpec, so the safety checks judge each reading too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { usdToCents } from '../money.ts';
import { compileRequest } from './compile-request.ts';
import { draftSafety, statedAmounts } from './draft-safety.ts';
import { readMoney } from './grammar/read-amounts.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { FILLER, UNITS } from './request-words.ts';

const catalog: DraftCatalog = {
  tools: [
    tool({
      name: 'pay_claim',
      description: 'Pays out an approved insurance claim to the claimant.',
      args: {
        type: 'object',
        required: ['claim_id', 'amount_usd'],
        properties: { claim_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      effect: 'external',
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'text_claimant',
      description: 'Texts the claimant a short message. Each text costs $0.02.',
      args: {
        type: 'object',
        required: ['claim_id', 'message'],
        properties: { claim_id: { type: 'string' }, message: { type: 'string' } },
      },
      effect: 'external',
      cost: { fixedUsd: 0.02 },
    }),
  ],
  events: [{ type: 'claim.approved', payload: ['claim_id', 'payout_amount', 'claimant'] }],
};

const draft = (request: string) => draftSpec(compileRequest(request, catalog), catalog);
const capOf = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!.limits.maxCostUsd;
};

/** One to twelve in words, as people type them (the list the grammar reads numbers from). */
const WORDS = UNITS.slice(1, 13);
const CENT_CAPS: readonly ((n: string) => string)[] = [
  (n) => `pay approved claims, no more than ${n} cents a run`,
  (n) => `when a claim is approved pay it, ${n} cents max`,
  (n) => `pay out approved claims but cap at ${n} cents`,
  (n) => `pay approved claims, spend at most ${n} cents`,
  (n) => `pay approved claims. never spend more than ${n} cents`,
  (n) => `pay approved claims up to ${n} cents`,
  (n) => `pay approved claims, ${n} cents tops`,
];

test('property: any whole number of cents in a cap is that many hundredths of a dollar, exactly', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 9999 }), fc.constantFrom(...CENT_CAPS), (n, phrase) => {
      const cap = capOf(phrase(String(n)));
      assert.equal(cap, n / 100);
      assert.equal(usdToCents(cap), n);
    }),
    { numRuns: 120 },
  );
});

test('property: the safety checks read any cents cap as cents, so a cap in dollars for it is refused', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 9999 }), fc.constantFrom(...CENT_CAPS), (n, phrase) => {
      const request = phrase(String(n));
      assert.ok(
        statedAmounts(request).some((a) => a.usd === n / 100 && !a.lower),
        request,
      );
      const spec = draft(request).spec!;
      const misread = { ...spec, limits: { ...spec.limits, maxCostUsd: n } };
      assert.notDeepEqual(
        draftSafety(misread, request, catalog, `Spends at most $${n} a run`, []),
        [],
        request,
      );
    }),
    { numRuns: 80 },
  );
});

const FILLERS = [
  'tho',
  'though',
  'yes',
  'yeah',
  'kindly',
  'thanks',
  'thank you',
  'ok',
  'please',
  'pls',
  'just',
];
const BASES = [
  'when a claim is approved pay it, no more than $300',
  'when a claim is approved text the claimant "Approved" and pay it, up to 40 bucks',
  'pay out approved claims, cap at ten cents',
];

test('property: a filler word before, after or between the clauses changes nothing', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...BASES),
      fc.constantFrom(...FILLERS),
      fc.constantFrom('start', 'end', 'comma'),
      (base, filler, where) => {
        const plain = draft(base);
        assert.equal(plain.publishable, true, base);
        const request =
          where === 'start'
            ? `${filler} ${base}`
            : where === 'end'
              ? `${base}, ${filler}`
              : base.replace(', ', `, ${filler} `);
        const d = draft(request);
        assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
        assert.deepEqual(d.spec!.steps, plain.spec!.steps, request);
        assert.deepEqual(d.spec!.limits, plain.spec!.limits, request);
      },
    ),
    { numRuns: 100 },
  );
});

test('property: cents said in words, or as "5c", read the same as in digits', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 12 }), fc.constantFrom(...CENT_CAPS), (n, phrase) => {
      assert.equal(capOf(phrase(WORDS[n - 1]!)), n / 100);
      assert.equal(capOf(`pay approved claims, budget ${n}c`), n / 100);
      assert.equal(capOf(`pay approved claims, limit ${n}¢`), n / 100);
    }),
    { numRuns: 60 },
  );
});

test('a fixed-cost tool under a cap in cents: the cap is the cents said', () => {
  const d = draft('when a claim is approved text the claimant "Approved", spend no more than four cents');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.limits.maxCostUsd, 0.04);
});

test('a cap below what one call of a fixed-cost step costs is a question, never a draft that refuses every call', () => {
  const d = draft('when a claim is approved text the claimant "Approved", budget 1c');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some(
      (q) => q.about === 'limits.maxCostUsd' && /less than one call of text_claimant/.test(q.question),
    ),
    JSON.stringify(d.questions),
  );
  // So is a cap below an amount the words fix for a step that moves money.
  const fixed = draft('when a claim is approved pay the claimant $25, max $20');
  assert.equal(fixed.publishable, false);
  assert.ok(
    fixed.questions.some((q) => /\$20 a run, is less than one call of pay_claim \(\$25\)/.test(q.question)),
    JSON.stringify(fixed.questions),
  );
});

test('"unless its more than N" is a cap; "apart from that" refers back to it and adds nothing', () => {
  assert.equal(capOf('when a claim is approved pay it unless its more than 90'), 90);
  assert.equal(capOf('no payouts above $75, apart from that pay every approved claim'), 75);
  // "apart from <someone>" is an exception the grammar cannot express: asked, never dropped.
  assert.equal(draft('pay approved claims up to $40, apart from claimants in Leeds').publishable, false);
});

test('a cap said after its amount, and dollars in the singular: "a 5 cent cap", "a $200 limit", "a forty dollar cap"', () => {
  assert.equal(capOf('pay approved claims, a 5 cent cap'), 0.05);
  assert.equal(capOf('pay approved claims with a $200 limit'), 200);
  assert.equal(capOf('pay approved claims, a forty dollar cap'), 40);
  assert.equal(capOf('pay approved claims up to one dollar'), 1);
  assert.deepEqual(
    statedAmounts('up to one dollar').map((s) => s.usd),
    [1],
  );
});

test('a fraction of a cent is no cap: the draft asks rather than read dollars', () => {
  const d = draft('pay approved claims up to 2.5 cents');
  assert.equal(d.publishable, false);
  assert.notEqual(d.spec?.limits.maxCostUsd, 2.5);
});

test('"a grand", "two grand", "1.5 grand" are thousands of dollars; "a grand total" is no amount', () => {
  assert.equal(capOf('pay approved claims up to a grand'), 1000);
  assert.equal(capOf('pay approved claims, two grand max'), 2000);
  assert.equal(capOf('pay out claims once approved, never more than 1.5 grand'), 1500);
  assert.equal(capOf('pay approved claims, capped at 12 grand'), 12000);
  assert.deepEqual(
    statedAmounts('a grand total of claims').map((s) => s.usd),
    [],
  );
});

test('the safety checks read cents and grands themselves: a cap in dollars for "10 cents" is refused', () => {
  assert.deepEqual(
    statedAmounts("don't spend more than 10 cents").map((s) => s.usd),
    [0.1],
  );
  assert.deepEqual(
    statedAmounts('budget 5c, or ten cents tops').map((s) => s.usd),
    [0.05, 0.1],
  );
  assert.deepEqual(
    statedAmounts('up to two grand').map((s) => s.usd),
    [2000],
  );
  const request = 'pay approved claims, no more than 10 cents';
  const spec = draft(request).spec!;
  const misread = { ...spec, limits: { ...spec.limits, maxCostUsd: 10 } };
  const qs = draftSafety(misread, request, catalog, 'Spends at most $10 a run', []);
  assert.ok(
    qs.some((q) => /above \$0\.10/.test(q.question)),
    JSON.stringify(qs),
  );
});

test('chat filler changes nothing: "tho", "yes", "thanks", "kindly", a bare "ok"', () => {
  const plain = draft('when a claim is approved pay it, no more than $300').spec;
  assert.ok(plain);
  const same = (request: string) => {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.steps, plain.steps, request);
    assert.deepEqual(d.spec!.limits, plain.limits, request);
  };
  same('when a claim is approved pay it, no more than $300 tho');
  same('yes when a claim is approved pay it, no more than $300');
  same('when a claim is approved kindly pay it, no more than $300, thanks');
  same('when a claim is approved pay it, no more than $300. ok?');
  same('ok pay it when a claim is approved, no more than $300');
  same('when a claim is approved yeah pay it though no more than $300');
});

test('filler never swallows a word that changes what a draft does', () => {
  for (const w of [
    'not',
    "don't",
    'dont',
    'never',
    'no',
    'only',
    'unless',
    'except',
    'if',
    'without',
    'until',
  ])
    assert.equal(FILLER.has(w), false, w);
  // "ok it" is still the action, and a negation still a ban.
  const ban = draft('when a claim is approved text the claimant "Approved", dont pay it tho');
  assert.equal(ban.publishable, true, JSON.stringify(ban.questions));
  assert.deepEqual(
    ban.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['text_claimant'],
  );
});

test('property: an argument phrase added to a money request never changes its cap or what the money tool is called with', () => {
  const PHRASES = [
    ', use the claimant as the message',
    '. message is the claimant',
    ', w/ claimant as message',
    ', for the claim',
    ', with the claimant',
  ];
  fc.assert(
    fc.property(fc.constantFrom(...BASES), fc.constantFrom(...PHRASES), (base, phrase) => {
      const plain = draft(base).spec!;
      const d = draft(`${base}${phrase}`);
      const pay = (steps: typeof plain.steps) => steps.find((s) => 'tool' in s && s.tool === 'pay_claim');
      if (d.spec === undefined) return;
      assert.equal(d.spec.limits.maxCostUsd, plain.limits.maxCostUsd, phrase);
      assert.deepEqual(pay(d.spec.steps), pay(plain.steps), phrase);
    }),
    { numRuns: 40 },
  );
});

test('a bound "per request" or "each submission" is the run\'s cap; "per day" spans runs and is asked', () => {
  assert.equal(capOf('pay approved claims, cap it at 1500 per request'), 1500);
  assert.equal(capOf('pay approved claims but never more than 2,500 each submission'), 2500);
  assert.equal(draft('pay approved claims, max $300 per day').publishable, false);
});

test('"whichever", "theyre", "everything" restrict nothing: a money draft does not ask about them', () => {
  assert.equal(capOf('when a claim is approved pay everything, whichever claim theyre on, up to $50'), 50);
});

test('a time said short, or a count of things, is no dollar amount: "within 2h", "more than 10 seats"', () => {
  for (const unit of ['h', 'hrs', 'd', 'mins', 'wks']) {
    const money = readMoney({ text: `assign it to tier 2 within 2${unit}` });
    assert.deepEqual(money.caps, [], unit);
  }
  assert.deepEqual(readMoney({ text: 'refund it within 20' }).caps, [20]);
  // Nor is a count of things: "not activated accounts with more than 10 seats" bounds no money.
  assert.deepEqual(
    readMoney({ text: 'extend it for accounts not activated with more than 10 seats' }).caps,
    [],
  );
  assert.deepEqual(readMoney({ text: 'refund anything under 50 bucks' }).caps, [50]);
});

test('a lower bound said as a sign ("≥ $250", "> $250") is a test of the amount, never the amount paid', () => {
  for (const [request, when] of [
    ['when a claim is approved, pay claims ≥ $250, max $5,000', 'payload.payout_amount >= 250'],
    ['when a claim is approved, pay claims >$250, max $5,000', 'payload.payout_amount > 250'],
    ['when a claim is approved, pay claims over 250 but under $5,000', 'payload.payout_amount > 250'],
  ]) {
    const d = draft(request!);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const got = d.spec ?? d.partial;
    const pay = got?.steps[0];
    assert.ok(pay && 'args' in pay && pay.args.amount_usd !== 250, `${request}: ${JSON.stringify(got)}`);
    assert.ok(
      JSON.stringify(got).includes(JSON.stringify(when).slice(1, -1)),
      `${request}: ${JSON.stringify(got)} ${JSON.stringify(d.questions)}`,
    );
  }
});
