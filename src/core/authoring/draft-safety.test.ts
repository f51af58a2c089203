/**
 * Issue 30: drafts of requests typed the way people type them, and the safety checks every draft
 * passes (draft-safety.ts) — the offline compiler's and a model's alike.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { compileRequest } from './compile-request.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftSpec } from './draft-spec.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, catalog), catalog);

test("the seed's sentence drafts: the one refund event is assumed, and the read-back says so", () => {
  const d = draft('refund anyone under $50');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec?.triggers[0]?.event, 'refund.requested');
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => [s.tool, s.args.amount_usd]),
    [['issue_refund', '{{event.payload.refund_amount}}']],
  );
  assert.equal(d.spec?.limits.maxCostUsd, 50);
  assert.match(d.readBack!.text, /Spends at most \$50 a run/);
  assert.match(d.readBack!.text, /Assumed:\n {2}- The workflow starts on refund\.requested/);
});

test('a misspelt event is read, and the reading is listed under Assumed', () => {
  const d = draft('refund requets under $15: refund them');
  assert.equal(d.spec?.triggers[0]?.event, 'refund.requested');
  assert.equal(toolSteps(d.spec!).length, 1, 'the refund said twice is one step');
  assert.match(d.readBack!.text, /Assumed:/);
});

test('money in words and negated bounds are caps, never `amount > X`', () => {
  for (const [r, cap] of [
    ['When a refund is requested, refund it, max twenty-five bucks', 25],
    ['When a refund is requested, refund a couple hundred max', 200],
    ["When a refund is requested, refund it. don't ever pay back more than forty", 40],
    ['When a refund is requested, refund it. dont ever refund more than 40', 40],
    ['no refunds above 75 please. When a refund is requested, refund it', 75],
    ['When a refund is requested, refund it. Limit is $12.50', 12.5],
  ] as const) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.limits.maxCostUsd, cap, r);
    assert.equal(d.spec?.triggers[0]?.when, undefined, r);
  }
  // "<$15" leaves $15 itself out, which the cap alone lets through: the trigger tests it too.
  const strict = draft('When a refund is requested, refund it if its <$15');
  assert.equal(strict.spec?.limits.maxCostUsd, 15);
  assert.equal(strict.spec?.triggers[0]?.when, 'payload.refund_amount < 15');
});

test('an amount in another currency is a question, never a dollar cap', () => {
  for (const r of [
    'When a refund is requested, refund up to 20 pounds',
    'When a refund is requested, refund up to £30',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => /US dollars|in dollars/.test(q.question)),
      r,
    );
  }
});

test('unquoted reply text is the reply body, and questions never show a placeholder', () => {
  const d = draft("When a ticket is resolved, answer them that we'll check");
  assert.equal(toolSteps(d.spec!)[0]?.args.body, "We'll check.");
  // An apostrophe inside a word neither ends nor starts a quotation.
  const q = draft("When a refund is requested, reply 'We're on it, don't worry' and tag it billing");
  assert.deepEqual(
    toolSteps(q.spec!).map((x) => [x.tool, x.args.body ?? x.args.tag]),
    [
      ['draft_reply', "We're on it, don't worry"],
      ['tag_ticket', 'billing'],
    ],
  );
  for (const r of [
    'When a refund is requested, reply and refund it, max $5',
    'reply "hi"',
    'When a refund is requested, reply "Sorry" twice',
  ])
    for (const q of draft(r).questions) assert.doesNotMatch(q.question, /\bq[0-9]+\b/, q.question);
  // Nor does the read-back's Assumed list ("tell them we are sorry": the text, then the tool).
  for (const r of [
    'When a refund is requested, refund the customer and tell them we are sorry, max $20',
    "When a ticket is resolved, tell them we'll check and tag it billing",
  ]) {
    const d = draft(r);
    assert.ok(d.readBack?.assumed?.length, r);
    assert.doesNotMatch(d.readBack!.text, /\bq[0-9]+\b/, d.readBack!.text);
  }
});

test('the checks hold for a model draft too: a cap above the words, an inverted bound, a double refund', () => {
  const refund = {
    name: 'r',
    tool: 'issue_refund',
    args: { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
  };
  const model = (answer: Record<string, unknown>, request: string) => modelDrafted(answer, request, catalog);
  const over = model(
    { triggers: [{ event: 'refund.requested' }], steps: [refund], limits: { maxSteps: 1, maxCostUsd: 200 } },
    'refund requests: never refund more than $50',
  );
  assert.equal(over.publishable, false);
  assert.ok(over.questions.some((q) => q.about === 'safety' && /above \$50/.test(q.question)));
  const inverted = model(
    {
      triggers: [{ event: 'refund.requested', when: 'payload.refund_amount > 200' }],
      steps: [refund, { ...refund, name: 'r2' }],
      limits: { maxSteps: 2, maxCostUsd: 200 },
    },
    "when a refund is requested, don't refund more than 200",
  );
  assert.equal(inverted.publishable, false);
  assert.ok(inverted.questions.some((q) => /upper bound/.test(q.question)));
  assert.ok(inverted.questions.some((q) => /calls issue_refund 2 times/.test(q.question)));
});

test('property: any stated upper bound, in any phrasing, never yields a publishable cap above it', () => {
  const phrasings = [
    (n: string) => `under ${n}`,
    (n: string) => `up to ${n}`,
    (n: string) => `max ${n}`,
    (n: string) => `no more than ${n}`,
    (n: string) => `never refund more than ${n}`,
    (n: string) => `dont ever pay back more than ${n}`,
    (n: string) => `no refunds above ${n} please`,
    (n: string) => `capped at ${n}`,
    (n: string) => `if it's <${n}`,
    (n: string) => `unless it's over ${n}`,
    (n: string) => `cap ${n}`,
    (n: string) => `if it's ${n} or less`,
    (n: string) => `pls no more than ${n} asap`,
  ];
  const amounts = fc.oneof(
    fc.integer({ min: 1, max: 99_999 }).map((n) => ({ usd: n, text: `$${n.toLocaleString('en-US')}` })),
    fc.integer({ min: 1, max: 9999 }).map((n) => ({ usd: n, text: `${n} dollars` })),
    fc.integer({ min: 1, max: 9999 }).map((n) => ({ usd: n, text: `USD ${n}` })),
    fc.integer({ min: 1, max: 9999 }).map((n) => ({ usd: n, text: `${n}$` })),
    fc.integer({ min: 1, max: 99 }).map((n) => ({ usd: n * 1000, text: `$${n}k` })),
    fc.integer({ min: 100, max: 999_999 }).map((c) => ({ usd: c / 100, text: `$${(c / 100).toFixed(2)}` })),
    fc.constantFrom(
      { usd: 25, text: 'twenty-five bucks' },
      { usd: 200, text: 'a couple hundred dollars' },
      { usd: 40, text: 'forty dollars' },
      { usd: 1500, text: '1,500 bucks' },
    ),
  );
  fc.assert(
    fc.property(
      fc.constantFrom(...phrasings),
      amounts,
      fc.constantFrom(
        'When a refund is requested, refund it, ',
        'refund requests: refund them ',
        'refund anyone ',
        'when a refund request comes thru refund it ',
        'When a refund is requested, if it is in USD, refund them ',
      ),
      fc.option(amounts, { nil: undefined }),
      (say, a, lead, b) => {
        const request = `${lead}${say(a.text)}${b ? `, and never more than ${b.text} a run` : ''}`;
        const d = draft(request);
        if (!d.publishable || !d.spec) return;
        const bound = Math.min(a.usd, b?.usd ?? Number.POSITIVE_INFINITY);
        assert.ok(d.spec.limits.maxCostUsd <= bound, `${request}: cap ${d.spec.limits.maxCostUsd}`);
        assert.ok(d.spec.limits.maxCostUsd > 0, request);
        for (const t of d.spec.triggers) assert.doesNotMatch(t.when ?? '', />/, request);
        assert.ok(toolSteps(d.spec).filter((s) => s.tool === 'issue_refund').length <= 1, request);
      },
    ),
    { numRuns: 300 },
  );
});

test('a restriction or a repeat is asked about, never folded into the step it names', () => {
  for (const r of [
    'When a refund is requested, refund up to $40, but only for customers in the London office',
    'When a refund is requested, refund it up to $30 and refund it again a week later',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
  }
});

test('money for events in another currency with a bare bound is a question; a bound said in dollars is not', () => {
  assert.equal(draft('When a refund is requested in GBP, refund it up to 100').publishable, false);
  const d = draft('When a refund is requested in EUR, refund it up to $60');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
});

test('an action said with "first" runs first', () => {
  const d = draft('When a refund is requested, refund it up to $20 and reply "Refunding now" first');
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => s.tool),
    ['draft_reply', 'issue_refund'],
  );
});

test('a person asked to decide, with no tool that asks one, is a question naming them, never the nearest tool', () => {
  for (const [request, who] of [
    ["refund requests: refund it if it's under 100, otherwise ask a supervisor first", 'supervisor'],
    [
      'refund requests up to $500: refund it, but if it is more than 100 a supervisor approves it first',
      'supervisor',
    ],
    ["refund it if it's under 100; if it's more, get a manager", 'manager'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    const q = d.questions.find((x) => x.question.includes(`asks a person (the ${who}) to decide`));
    assert.ok(q, `${request}: ${JSON.stringify(d.questions)}`);
    assert.match(q.question, /require_approval/);
    assert.ok(!d.questions.some((x) => /^No tool in the catalog does/.test(x.question)), request);
  }
});
