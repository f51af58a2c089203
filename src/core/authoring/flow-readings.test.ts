/**
 * Event phrasings, conditions, branches and repeated actions, over a catalog none of the corpora
 * use (a shop: orders, returns, delayed shipments), so each reading is held as a rule, not as an
 * answer to a corpus sentence. Every case goes through draftSpec, so the safety checks judge it too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isChooseStep, toolSteps } from '../spec/flow-steps.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest, type DraftCatalog, draftSpec, eventShapesOf } from './index.ts';

const tool = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  extra: Partial<ToolDescriptor> = {},
): ToolDescriptor =>
  ({
    name,
    description,
    args: { type: 'object', required: Object.keys(properties), properties, additionalProperties: false },
    destructive: false,
    effect: 'write',
    idempotent: true,
    scopes: ['shop.write'],
    ...extra,
  }) as ToolDescriptor;

const shop: DraftCatalog = {
  tools: [
    tool('label_order', 'Adds a label to an order.', {
      order_id: { type: 'string' },
      label: { type: 'string', minLength: 1 },
    }),
    tool(
      'refund_order',
      'Refunds money to the buyer of an order.',
      { order_id: { type: 'string' }, amount_usd: { type: 'number' } },
      { effect: 'external', cost: { fromArg: 'amount_usd' } },
    ),
    tool('hold_shipment', 'Holds a shipment at the warehouse.', {
      shipment_id: { type: 'string' },
      region: { enum: ['north', 'south', 'east'] },
    }),
    tool('email_buyer', 'Emails the buyer of an order.', {
      order_id: { type: 'string' },
      body: { type: 'string', minLength: 1 },
    }),
    tool('cancel_order', 'Cancels an order.', { order_id: { type: 'string' } }, { destructive: true }),
  ],
  events: [
    { type: 'return.requested', payload: ['order_id', 'amount_usd', 'channel', 'category'] },
    { type: 'shipment.delayed', payload: ['shipment_id', 'order_id', 'region', 'priority'] },
    { type: 'order.placed', payload: ['order_id', 'total_usd', 'channel'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, shop), shop);
const publishable = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!;
};
const tools = (request: string) => toolSteps(publishable(request)).map((s) => s.tool);

test('event verbs in other forms and words: "lands", "fires"-like forms, "comes in", the catalog\'s own verb', () => {
  for (const r of [
    "a return request lands, label it 'returns'",
    "any time a return request shows up label it 'returns'",
    "returns that come in: label them 'returns'",
    "whenever somebody requests a return, label it 'returns'",
  ]) {
    const spec = publishable(r);
    assert.equal(spec.triggers[0]?.event, 'return.requested', r);
    assert.deepEqual(tools(r), ['label_order'], r);
  }
  assert.equal(publishable("somebody places an order, label it 'new'").triggers[0]?.event, 'order.placed');
});

test('a trigger said as a heading: "Returns:", "return request ->", "new order placed?", "An order is placed - ..."', () => {
  const cases: [string, string][] = [
    ["Returns: label them 'returns'", 'return.requested'],
    ["return request -> label it 'returns'", 'return.requested'],
    ["new order placed? email the buyer 'Thanks for your order.'", 'order.placed'],
    ["A buyer places an order - label it 'new'", 'order.placed'],
  ];
  for (const [r, event] of cases) {
    const spec = publishable(r);
    assert.equal(spec.triggers[0]?.event, event, r);
    assert.equal(spec.triggers[0]?.when, undefined, r);
    assert.equal(toolSteps(spec).length, 1, r);
  }
});

test('a word of the trigger is a test on the event field that holds it, never a tool or a dropped word', () => {
  const when = (r: string) => publishable(r).triggers[0]?.when;
  // A value a tool's enum lists for an argument named like the field.
  assert.equal(when('when a shipment is delayed in the north, hold it'), 'payload.region == "north"');
  // A word of how urgent, for the one priority field; an s-plural too.
  assert.equal(when('urgent shipments that get delayed: hold them'), 'payload.priority == "urgent"');
  // A word after "thru" / "via", for the one channel field.
  assert.equal(when("when an order is placed thru the app, label it 'app'"), 'payload.channel == "app"');
  // A word before the event's noun, for the one category field; "only" with it.
  assert.equal(when('for furniture returns only, refund them up to $80'), 'payload.category == "furniture"');
  // "only for X" / "unless it's just X" with a word a field holds.
  assert.equal(
    when('only for urgent ones: when a shipment is delayed, hold it'),
    'payload.priority == "urgent"',
  );
  assert.equal(
    when('when a shipment is delayed, hold it unless it is just a low one'),
    'payload.priority != "low"',
  );
  assert.equal(when('when a shipment is delayed, hold it unless it is low'), 'payload.priority != "low"');
  // Nothing holds it: a question, never a dropped restriction.
  for (const r of [
    'when a shipment is delayed in production, hold it',
    'only for fragile parcels: when a shipment is delayed, hold it',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
  }
});

test('if / unless with an else is a choice; the money branch keeps the bound as its cap', () => {
  const first = publishable(
    "when a return is requested, if it's over 120 label it 'check', otherwise refund it",
  );
  const choice = first.steps[0]!;
  assert.ok(isChooseStep(choice));
  assert.equal(choice.choose[0]!.when, 'payload.amount_usd > 120');
  assert.deepEqual(
    choice.choose[0]!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['label_order'],
  );
  assert.deepEqual(
    (choice.else ?? []).map((s) => ('tool' in s ? s.tool : '')),
    ['refund_order'],
  );
  assert.equal(first.limits.maxCostUsd, 120);
  assert.equal(first.limits.maxSteps, 1);

  const unless = publishable(
    "when a return is requested refund it unless it's more than $60, in which case email the buyer 'We will review it.' instead",
  );
  const c2 = unless.steps[0]!;
  assert.ok(isChooseStep(c2));
  assert.equal(c2.choose[0]!.when, 'payload.amount_usd > 60');
  assert.deepEqual(
    c2.choose[0]!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['email_buyer'],
  );
  assert.deepEqual(
    (c2.else ?? []).map((s) => ('tool' in s ? s.tool : '')),
    ['refund_order'],
  );
  assert.equal(unless.limits.maxCostUsd, 60);

  // A word test: the field that holds the word.
  const word = publishable(
    'if a shipment is urgent hold it, otherwise email the buyer "Your parcel is late."',
  );
  const c3 = word.steps[0]!;
  assert.ok(isChooseStep(c3));
  assert.equal(c3.choose[0]!.when, 'payload.priority == "urgent"');
  assert.equal(word.triggers[0]?.event, 'shipment.delayed');

  // Money in the branch above the bound has no cap from it: a question, never a guess.
  assert.equal(
    draft("when a return is requested, if it's over 120 refund it, otherwise label it 'small'").publishable,
    false,
  );
  // A word no field holds: asked.
  assert.equal(draft("if a shipment is fragile hold it, otherwise label it 'x'").publishable, false);
});

test('the same action said twice is one step; "A and then B" keeps its order; a ban beside an action is no step', () => {
  assert.deepEqual(tools('when an order is placed, cancel it. Make sure the order actually gets cancelled'), [
    'cancel_order',
  ]);
  assert.deepEqual(tools('order placed -> email the buyer "Sorry!" and then cancel it'), [
    'email_buyer',
    'cancel_order',
  ]);
  const d = draft("when a return is requested, label it 'hold' and don't refund anything");
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => s.tool),
    ['label_order'],
  );
  assert.ok(d.readBack?.assumed?.some((a) => /never calls refund_order/.test(a)));
});

const TRIGGERS = [
  'when a return is requested,',
  'a return request lands,',
  'Returns:',
  'return request ->',
  'whenever somebody requests a return,',
  'new return request?',
];

test('property: every heading or verb form of a trigger drafts as "when a return is requested"', () => {
  const meaning = (r: string) => {
    const d = draft(r);
    return d.publishable && d.spec
      ? { triggers: d.spec.triggers, steps: d.spec.steps, limits: d.spec.limits }
      : r;
  };
  const actions = [
    "label it 'returns'",
    'refund it, max $40',
    'email the buyer "We got it." and then refund it under $25',
  ];
  fc.assert(
    fc.property(fc.constantFrom(...TRIGGERS), fc.constantFrom(...actions), (t, a) => {
      assert.deepEqual(meaning(`${t} ${a}`), meaning(`when a return is requested, ${a}`), `${t} ${a}`);
    }),
    { numRuns: 40 },
  );
});

test('property: a money test with an else never gives a publishable cap above its bound, nor money above it', () => {
  const forms = [
    (n: string, a: string, b: string) => `when a return is requested, if it's over ${n} ${a}, otherwise ${b}`,
    (n: string, a: string, b: string) =>
      `when a return is requested, if it is more than ${n}, ${a}, else ${b}`,
    (n: string, a: string, b: string) =>
      `when a return is requested ${b} unless it's over ${n}, in that case ${a} instead`,
    (n: string, a: string, b: string) => `when a return is requested ${b} if it's under ${n}, otherwise ${a}`,
  ];
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 9999 }),
      fc.boolean(),
      fc.constantFrom(...forms),
      (usd, dollar, form) => {
        const n = dollar ? `$${usd}` : String(usd);
        const d = draft(form(n, "label it 'big'", 'refund it'));
        if (!d.publishable) return;
        const spec = d.spec!;
        assert.ok(spec.limits.maxCostUsd <= usd, JSON.stringify(spec.limits));
        const choice = spec.steps.find(isChooseStep);
        assert.ok(choice, 'a choice');
        // The refund is on the side of the bound: under it, or in the else of "over it".
        const refundIn = (steps: readonly unknown[]) =>
          steps.some((s) => (s as { tool?: string }).tool === 'refund_order');
        const when = choice.choose[0]!.when;
        if (/ > /.test(when))
          assert.ok(!refundIn(choice.choose[0]!.steps) && refundIn(choice.else ?? []), when);
        else assert.ok(refundIn(choice.choose[0]!.steps), when);
      },
    ),
    { numRuns: 80 },
  );
});

test('property: a trigger word no event field holds is asked about, never dropped', () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^zq[a-z]{3,7}$/),
      fc.constantFrom(
        (w: string) => `when a shipment is delayed in ${w}, hold it`,
        (w: string) => `${w} shipments that get delayed: hold them`,
        (w: string) => `only for ${w} ones: when a shipment is delayed, hold it`,
        (w: string) => `if a shipment is ${w} hold it, otherwise email the buyer "Late."`,
      ),
      (w, form) => {
        const d = draft(form(w));
        assert.equal(d.publishable, false, form(w));
      },
    ),
    { numRuns: 40 },
  );
});

test('a value the sample events show is a test on its field; a named field takes the word before it', () => {
  const samples = [
    { type: 'build.failed', payload: { pipeline: 'deploy', stage: 'canary', summary: 'red' } },
    { type: 'build.failed', payload: { pipeline: 'nightly', stage: 'unit', summary: 'flaky' } },
  ];
  const catalog: DraftCatalog = {
    tools: shop.tools,
    events: [...(shop.events ?? []), ...eventShapesOf(samples)],
  };
  assert.deepEqual(eventShapesOf(samples)[0]?.values?.stage, ['canary', 'unit']);
  const when = (r: string) => {
    const d = draftSpec(compileRequest(r, catalog), catalog);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    return d.spec?.triggers[0]?.when;
  };
  assert.equal(when("canary builds that failed: label them 'canary'"), 'payload.stage == "canary"');
  assert.equal(when("when a nightly build fails, label it 'nightly'"), 'payload.pipeline == "nightly"');
  assert.equal(when("when a build fails and it's canary, label it 'canary'"), 'payload.stage == "canary"');
  // "app channel orders", "high-priority shipments": the word before the field's name is its value.
  assert.equal(
    publishable("when an app channel order is placed, label it 'app'").triggers[0]?.when,
    'payload.channel == "app"',
  );
  assert.equal(
    publishable('when a top-priority shipment is delayed, hold it').triggers[0]?.when,
    'payload.priority == "top"',
  );
});

test('"except" turns a trigger word around, two values of one field are alternatives, a lone "not" is asked', () => {
  const when = (r: string) => publishable(r).triggers[0]?.when;
  assert.equal(when('hold every delayed shipment except urgent ones'), 'payload.priority != "urgent"');
  assert.equal(
    when('when a shipment is delayed in the north or the south, hold it'),
    'payload.region == "north" or payload.region == "south"',
  );
  assert.equal(draft('when a shipment is not delayed, hold it').publishable, false);
  assert.equal(
    publishable('non-urgent shipments that get delayed: hold them').triggers[0]?.when,
    'payload.priority != "urgent"',
  );
  assert.equal(
    publishable('returns except furniture ones: refund them up to $30').triggers[0]?.when,
    'payload.category != "furniture"',
  );
});

test('money tests said after the amount, and an else after a full stop', () => {
  const spec = publishable(
    "when a return is requested, refund it if it's $45 or less, otherwise label it 'review'",
  );
  const c = spec.steps[0]!;
  assert.ok(isChooseStep(c));
  assert.equal(c.choose[0]!.when, 'payload.amount_usd <= 45');
  assert.equal(spec.limits.maxCostUsd, 45);
  const dot = publishable("when a return is requested: if over 70, label it 'review'. otherwise refund it");
  const c2 = dot.steps[0]!;
  assert.ok(isChooseStep(c2));
  assert.equal(c2.choose[0]!.when, 'payload.amount_usd > 70');
  assert.equal(dot.limits.maxCostUsd, 70);
});

test('a test said of a field ("if the category is ..."), a cap inside a branch, negations in and after the trigger', () => {
  const spec = publishable(
    "when a return is requested, if the category is furniture label it 'big', otherwise refund it up to $40",
  );
  const c = spec.steps[0]!;
  assert.ok(isChooseStep(c));
  assert.equal(c.choose[0]!.when, 'payload.category == "furniture"');
  assert.equal(spec.limits.maxCostUsd, 40);
  assert.deepEqual(tools("when an order is placed don't cancel it, just label it 'new'"), ['label_order']);
  assert.equal(
    publishable("shipments that aren't urgent: hold them").triggers[0]?.when,
    'payload.priority != "urgent"',
  );
  assert.equal(
    publishable("new orders from the app: label them 'app'").triggers[0]?.when,
    'payload.channel == "app"',
  );
});

test('a field is a channel, a severity or a category by a whole part of its name, never by a substring', () => {
  const access: DraftCatalog = {
    tools: [
      tool('grant_access', 'Grants a user access to a resource.', {
        user_id: { type: 'string' },
        resource: { type: 'string' },
      }),
    ],
    events: [{ type: 'access.requested', payload: ['user_id', 'resource', 'level'] }],
  };
  const asks = (r: string) => draftSpec(compileRequest(r, access), access).publishable === false;
  // "resource" holds "source", "level" is no severity: both asked, never read as a test.
  assert.ok(asks('when someone requests access thru the portal, grant it'));
  assert.ok(asks('urgent access requests: grant them'));
  assert.deepEqual(tools("when an order is placed, label it 'new'. make sure it gets labelled"), [
    'label_order',
  ]);
});

test('"A unless T, then B": never a draft that picks what "then" means; "in that case ... instead" is the case', () => {
  for (const request of [
    "when a return is requested label it 'x' unless it's damaged, then refund it, max $50",
    "when a return is requested label it 'big' unless it's over 100, then refund it",
    'when a return is requested refund it unless it is over $100, then email the buyer "Done." max $100',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec?.steps)}`);
    assert.ok(
      d.questions.some((q) => q.question.includes('is what follows "then" what should happen')),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  // Said with "instead", the words are the case the test names.
  const d = draft("when a return is requested refund it unless it's over 100, then label it 'big' instead");
  assert.ok(
    !d.questions.some((q) => q.question.includes('is what follows "then"')),
    JSON.stringify(d.questions),
  );
});

test('a test of a field on a value of several words is never read as one word of it, nor as "is"', () => {
  for (const request of [
    'returns: if the category is arrived damaged refund it (cap $120), otherwise email them: could you send us a photo?',
    'returns: if the category is never arrived refund it, max $50, otherwise email them: we are looking into it',
  ]) {
    const d = draft(request);
    const tests = JSON.stringify(d.spec ?? d.partial ?? {});
    // A publishable draft would act on a value nobody said: "arrive", "is", "never".
    assert.doesNotMatch(tests, /== \\"(?:arrive|is|never|arrived)\\"/, request);
    assert.equal(d.publishable, false, `${request}: ${tests}`);
  }
});

test('a choice that names no event starts on the one event its words are about', () => {
  const spec = publishable(
    "if the category is fraud label the return 'check', otherwise email them: we are on it",
  );
  assert.deepEqual(spec.triggers, [{ event: 'return.requested' }]);
  const [choice] = spec.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(spec.steps));
  assert.equal(choice.choose[0]!.when, 'payload.category == "fraud"');
});

test('"for the rest" after a bound said of what is refunded is the else of that bound', () => {
  const spec = publishable(
    'returns: refund anything under $20, for the rest email them: a person will review it',
  );
  const [choice] = spec.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(spec.steps));
  assert.equal(choice.choose[0]!.when, 'payload.amount_usd < 20');
  assert.deepEqual(
    [choice.choose[0]!.steps, choice.else ?? []].map((b) => b.map((s) => ('tool' in s ? s.tool : ''))),
    [['refund_order'], ['email_buyer']],
  );
  assert.equal(spec.limits.maxCostUsd, 20);
});
