/**
 * Values said of the events by their form, tests said of one step by a value, and drafts that
 * would never run a step, over a freight desk no corpus uses: identifiers of the form a tool gives
 * one event field (grammar/patterned-values.ts), "and if it's frozen, also message the carrier"
 * (grammar/read-step-tests.ts), a step's test the trigger rules out (never-runs.ts, draft-safety.ts),
 * and a bound said as "(limit 3000)".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import type { StepSpec, WorkflowSpec } from '../spec/workflow-spec.ts';
import { compileRequest } from './compile-request.ts';
import { statedAmounts } from './draft-safety.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { stepsThatNeverRun, triggersThatNeverFire } from './never-runs.ts';

const carrier = { type: 'string', pattern: '^C-[0-9]+$' };
const dock = { type: 'string', pattern: '^D[0-9]{2}$' };
const shipment = { type: 'string', pattern: '^SH-[0-9]+$', description: 'Shipment id' };

const freight = (carrierPattern = carrier): DraftCatalog => ({
  tools: [
    tool({
      name: 'book_slot',
      destructive: true,
      description: 'Books a dock slot for a shipment.',
      args: {
        type: 'object',
        required: ['shipment_id', 'carrier_id', 'dock_code'],
        properties: { shipment_id: shipment, carrier_id: carrierPattern, dock_code: dock },
      },
    }),
    tool({
      name: 'message_carrier',
      effect: 'external',
      description: 'Messages the carrier about a shipment.',
      args: {
        type: 'object',
        required: ['carrier_id', 'shipment_id', 'text'],
        properties: {
          carrier_id: carrierPattern,
          shipment_id: shipment,
          text: { type: 'string', minLength: 1 },
        },
      },
    }),
    tool({
      name: 'hold_shipment',
      destructive: true,
      description: 'Holds a shipment at the gate.',
      args: {
        type: 'object',
        required: ['shipment_id', 'kind'],
        properties: { shipment_id: shipment, kind: { enum: ['frozen', 'fragile', 'standard'] } },
      },
    }),
  ],
  events: [{ type: 'shipment.received', payload: ['carrier_id', 'dock_code', 'kind', 'weight_kg'] }],
});

const draft = (request: string, catalog = freight()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};

test('"shipments from C-200": an identifier of the form one field takes tests that field, Assumed', () => {
  for (const request of [
    'shipments from C-200: book a slot',
    'C-200 shipments -> book a slot',
    'book a slot for shipments from carrier c-200',
  ]) {
    const { d, compiled } = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.carrier_id == "C-200"', request);
    assert.ok(
      compiled.assumptions!.some((a) => a.includes('"C-200"') && a.includes('form of a carrier_id')),
      request,
    );
  }
  // Two fields' forms: carrier_id and dock_code both take "D-12" here: which one is asked.
  const loose = { type: 'string', pattern: '^[A-Z]-?[0-9]+$' };
  const both = freight(loose);
  const { d } = draft('shipments from D12: book a slot', {
    ...both,
    tools: both.tools.map((t) =>
      t.name === 'book_slot'
        ? {
            ...t,
            args: { ...t.args, properties: { shipment_id: shipment, carrier_id: loose, dock_code: loose } },
          }
        : t,
    ),
  });
  assert.equal(d.publishable, false);
});

test('"C-200 shipments only. book a slot": the heading\'s noun said again with "only" is the event, not an action', () => {
  for (const request of ['C-200 shipments only. book a slot', 'C-200 shipments only, book a slot']) {
    const { d } = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.carrier_id == "C-200"', request);
    assert.deepEqual(
      d.spec!.steps.map((x) => ('tool' in x ? x.tool : '')),
      ['book_slot'],
      request,
    );
  }
});

test('a word with no digit is never read by a pattern, and one no field fits stays a question', () => {
  const words = { type: 'string', pattern: '^[a-z]+$' };
  const { d } = draft('shipments from acme: book a slot', freight(words));
  assert.equal(d.publishable, false);
  // "SH-9" fits the shipment's id, which is no event field: no test, a question.
  assert.equal(draft('shipments from SH-9: book a slot').d.publishable, false);
});

test('property: any carrier id of the form, said after "from", is the test, in the case the form takes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 99999 }), fc.boolean(), (n, lower) => {
      const id = `${lower ? 'c' : 'C'}-${n}`;
      const { d } = draft(`shipments from ${id}: book a slot`);
      return d.publishable && d.spec!.triggers[0]!.when === `payload.carrier_id == "C-${n}"`;
    }),
  );
});

test('"and if it\'s frozen, also message the carrier": the message alone carries the test', () => {
  const { d, compiled } = draft(
    'when a shipment is received book a slot, and if it\'s frozen, also message the carrier "Frozen goods go to dock D04."',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [book, message] = d.spec!.steps as StepSpec[];
  assert.equal(book!.tool, 'book_slot');
  assert.equal(book!.if, undefined);
  assert.equal(message!.tool, 'message_carrier');
  assert.equal(message!.if, 'payload.kind == "frozen"');
  assert.equal(d.spec!.triggers[0]!.when, undefined);
  assert.ok(compiled.assumptions!.some((a) => a.includes('runs only when')));
  // By the identifier's form too.
  const { d: v } = draft(
    'book a slot for every shipment, and if it\'s from C-7 also message them "Dock D02 today."',
  );
  assert.equal(v.publishable, true, JSON.stringify(v.questions));
  assert.equal((v.spec!.steps[1] as StepSpec).if, 'payload.carrier_id == "C-7"');
  // A value no field holds is asked about, never dropped.
  assert.equal(
    draft('book a slot for every shipment, and if it\'s purple also message them "x y."').d.publishable,
    false,
  );
});

test('two sides said as two tests ("if not frozen, ...; if it IS frozen, ...") never publish a step that cannot run', () => {
  const { d } = draft(
    'If a shipment is something other than frozen, book a slot; if it IS frozen, message the carrier: Frozen goods wait at the gate.',
  );
  assert.equal(d.publishable, false);
});

/**
 * Property: `never(a, b)`, for two tests of the kind (`== "frozen"`, `!= "fragile"` ...), holds
 * exactly when no kind meets both.
 */
function clashingTests(never: (a: string, b: string) => boolean): void {
  const kinds = ['frozen', 'fragile', 'standard'];
  fc.assert(
    fc.property(
      fc.constantFrom(...kinds),
      fc.constantFrom(...kinds),
      fc.constantFrom('==', '!='),
      fc.constantFrom('==', '!='),
      (a, b, opA, opB) => {
        const canBoth = [...kinds, 'other'].some(
          (v) => (opA === '==' ? v === a : v !== a) && (opB === '==' ? v === b : v !== b),
        );
        return never(`${opA} "${a}"`, `${opB} "${b}"`) === !canBoth;
      },
    ),
  );
}

test('a step whose test the trigger rules out is asked about, for any compiler', () => {
  const spec = (trigger: string, step: string): WorkflowSpec =>
    ({
      id: 'x',
      version: 1,
      status: 'DRAFT',
      description: 'x',
      triggers: [{ event: 'shipment.received', when: trigger }],
      steps: [
        {
          name: 'message',
          tool: 'message_carrier',
          args: { carrier_id: '{{event.payload.carrier_id}}', shipment_id: '{{event.subject}}', text: 'x' },
          if: step,
        },
      ],
      limits: { maxSteps: 1, maxCostUsd: 0 },
    }) as WorkflowSpec;
  assert.equal(stepsThatNeverRun(spec('payload.kind != "frozen"', 'payload.kind == "frozen"')).length, 1);
  assert.equal(stepsThatNeverRun(spec('payload.kind == "frozen"', 'payload.kind == "frozen"')).length, 0);
  assert.equal(stepsThatNeverRun(spec('payload.kind != "frozen"', 'payload.carrier_id == "C-1"')).length, 0);
  clashingTests((a, b) => stepsThatNeverRun(spec(`payload.kind ${a}`, `payload.kind ${b}`)).length > 0);
});

test('a trigger whose own test rules itself out is asked about, for any compiler', () => {
  const spec = (when: string): WorkflowSpec =>
    ({
      id: 'x',
      version: 1,
      status: 'DRAFT',
      description: 'x',
      triggers: [{ event: 'shipment.received', when }],
      steps: [
        { name: 'hold', tool: 'hold_shipment', args: { shipment_id: '{{event.subject}}', kind: 'frozen' } },
      ],
      limits: { maxSteps: 1, maxCostUsd: 0 },
    }) as WorkflowSpec;
  clashingTests(
    (a, b) =>
      triggersThatNeverFire(spec(`payload.kind ${a} and payload.dock_code == "D01" and payload.kind ${b}`))
        .length > 0,
  );
  // Read from words: "frozen shipments aren't really frozen" is no test a shipment can meet.
  const { d } = draft("frozen shipments aren't really frozen for us: hold them as standard");
  assert.equal(d.publishable, false, JSON.stringify(d.spec?.triggers));
  assert.match(d.questions.map((q) => q.question).join('\n'), /which no event can meet/);
});

test('"pay it (limit 3000)": a bound the checks read as the request\'s amount', () => {
  const [a] = statedAmounts('pay it (limit 3000), and email them');
  assert.equal(a?.usd, 3000);
  assert.equal(a?.lower, false);
  assert.equal(statedAmounts('limit 5 steps').length, 0);
});

test('"C-200 shipments get a slot, everyone else a message": the else of the one field test said', () => {
  const { d, compiled } = draft(
    'C-200 shipments: book a slot, everyone else gets a message: Please wait for a dock.',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const choice = d.spec!.steps[0] as unknown as {
    choose: { when: string; steps: StepSpec[] }[];
    else: StepSpec[];
  };
  assert.equal(choice.choose[0]!.when, 'payload.carrier_id == "C-200"');
  assert.equal(choice.choose[0]!.steps[0]!.tool, 'book_slot');
  assert.equal(choice.else[0]!.tool, 'message_carrier');
  assert.equal(d.spec!.triggers[0]!.when, undefined);
  assert.ok(compiled.assumptions!.some((a) => a.includes('"everyone else" is read as the else')));
  // Two tests said before it: which one it answers is asked.
  assert.equal(
    draft('C-200 frozen shipments: book a slot, everyone else gets a message: Please wait for a dock.').d
      .publishable,
    false,
  );
});

const paying: DraftCatalog = {
  tools: [
    tool({
      name: 'pay_carrier',
      destructive: true,
      description: 'Pays a carrier for a shipment.',
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['shipment_id', 'carrier_id', 'amount_usd'],
        properties: { shipment_id: shipment, carrier_id: carrier, amount_usd: { type: 'number' } },
      },
    }),
  ],
  events: [{ type: 'shipment.received', payload: ['carrier_id', 'amount_usd'] }],
};

test('"as long as it\'s no more than $900": the bound, no word left over in a draft that pays', () => {
  const { d } = draft(
    "Anything shipped by C-3 can go straight to payment as long as it's no more than 900 dollars.",
    paying,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.limits.maxCostUsd, 900);
  assert.equal(d.spec!.triggers[0]!.when, 'payload.carrier_id == "C-3"');
});

test('"Shipments from C-9 (our night carrier, ...): ..." reads who C-9 is, Assumed; words that restrict are never read so', () => {
  const { d, compiled } = draft(
    'Shipments from C-9 (our night carrier): book a slot and message them: Dock D01 is yours.',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, 'payload.carrier_id == "C-9"');
  assert.deepEqual(
    (d.spec!.steps as StepSpec[]).map((s) => s.tool),
    ['book_slot', 'message_carrier'],
  );
  assert.ok(compiled.assumptions!.some((a) => a === '"night carrier" is read as who C-9 is, not a test.'));
  // "(only their frozen loads)" says which ones: never dropped as a description.
  assert.equal(
    draft('Shipments from C-9 (only their frozen loads): book a slot and message them: Dock D01 is yours.').d
      .publishable,
    false,
  );
  // In a draft that pays, too: every word read, the bound in the aside the cap.
  const { d: p } = draft('Shipments from C-3 (our night carrier, never more than $700): pay them', paying);
  assert.equal(p.publishable, true, JSON.stringify(p.questions));
  assert.equal(p.spec!.limits.maxCostUsd, 700);
  assert.equal(p.spec!.triggers[0]!.when, 'payload.carrier_id == "C-3"');
});

test('"after booking a slot (...) message the carrier": the action said with "after" runs first', () => {
  for (const request of ['after booking a slot, message the carrier: Your slot is booked.']) {
    const { d } = draft(request);
    assert.deepEqual(
      (d.spec ?? d.partial)!.steps.map((s) => (s as StepSpec).tool),
      ['book_slot', 'message_carrier'],
      request,
    );
  }
  // Where a reader cut its cap out ("(max $300)"), in a draft that pays.
  const { d: p } = draft('after paying it (max $300) message the carrier: Your payment is on its way.', {
    ...paying,
    tools: [...paying.tools, freight().tools.find((t) => t.name === 'message_carrier')!],
  });
  assert.equal(p.publishable, true, JSON.stringify(p.questions));
  assert.deepEqual(
    (p.spec!.steps as StepSpec[]).map((s) => s.tool),
    ['pay_carrier', 'message_carrier'],
  );
  // With no mark where the first action ends, it is not split: the text goes unused and is asked about.
  assert.equal(draft('after booking a slot message the carrier: Your slot is booked.').d.publishable, false);
});
