/**
 * Tests on a read's yes/no said by its verb (grammar/read-outcome-tests.ts), over a freight desk no
 * corpus uses: `check_manifest` "says whether a shipment clears it", so it returns `cleared`; "if
 * it doesn't clear the manifest, hold it", "if the shipment doesnt clear ... . if it does clear,
 * book a slot".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import type { ChooseStepSpec } from '../spec/flow-steps.ts';
import type { StepSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const carrier = { type: 'string', pattern: '^C-[0-9]+$' };
const shipment = { type: 'string', pattern: '^SH-[0-9]+$', description: 'Shipment id' };

const check = (name = 'check_manifest'): ToolDescriptor =>
  tool({
    name,
    effect: 'read',
    description: 'Reads a manifest and says whether a shipment clears it (carrier and weight).',
    args: {
      type: 'object',
      required: ['manifest_ref', 'carrier_id'],
      properties: { manifest_ref: { type: 'string' }, carrier_id: carrier },
    },
  });

const freight = (reads: ToolDescriptor[] = [check()]): DraftCatalog => ({
  tools: [
    ...reads,
    tool({
      name: 'book_slot',
      destructive: true,
      description: 'Books a dock slot for a shipment.',
      args: {
        type: 'object',
        required: ['shipment_id', 'carrier_id'],
        properties: { shipment_id: shipment, carrier_id: carrier },
      },
    }),
    tool({
      name: 'hold_shipment',
      destructive: true,
      description: 'Holds a shipment at the gate.',
      args: { type: 'object', required: ['shipment_id'], properties: { shipment_id: shipment } },
    }),
    tool({
      name: 'message_carrier',
      effect: 'external',
      description: 'Messages the carrier about a shipment.',
      args: {
        type: 'object',
        required: ['carrier_id', 'shipment_id', 'text'],
        properties: { carrier_id: carrier, shipment_id: shipment, text: { type: 'string', minLength: 1 } },
      },
    }),
  ],
  events: [{ type: 'shipment.received', payload: ['manifest_ref', 'carrier_id'] }],
});

const draft = (request: string, catalog = freight()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};

test('"if it doesn\'t clear the manifest, hold it": the read first, the hold guarded by its yes/no', () => {
  const { d, compiled } = draft(
    "when a shipment is received, if it doesn't clear the manifest, hold the shipment",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, hold] = d.spec!.steps as StepSpec[];
  assert.equal(read!.tool, 'check_manifest');
  assert.equal(read!.if, undefined);
  assert.equal(hold!.tool, 'hold_shipment');
  assert.equal(hold!.if, `steps.${read!.name}.output.cleared == false`);
  assert.ok(compiled.assumptions!.some((a) => a.includes('is read as a test on what check_manifest reads')));
});

test('"if the shipment doesnt clear the manifest message the carrier: ... . if it does clear, book a slot": a choice', () => {
  const { d } = draft(
    'if the shipment doesnt clear the manifest message the carrier: Your paperwork does not match. if it does clear, book a slot',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, choice] = d.spec!.steps as [StepSpec, ChooseStepSpec];
  assert.equal(read.tool, 'check_manifest');
  assert.equal(choice.choose[0]!.when, `steps.${read.name}.output.cleared == false`);
  assert.equal((choice.choose[0]!.steps[0] as StepSpec).tool, 'message_carrier');
  assert.equal((choice.else![0] as StepSpec).tool, 'book_slot');
});

test('"if it clears, book a slot, otherwise hold it": the yes/no as said, never turned around', () => {
  fc.assert(
    fc.property(fc.constantFrom('clears', 'clear', 'cleared'), fc.boolean(), (verb, negated) => {
      const test = negated ? `if it doesn't ${verb.replace(/s$|ed$/, '')}` : `if it ${verb}`;
      const { d } = draft(`when a shipment is received, ${test}, book a slot, otherwise hold the shipment`);
      if (!d.publishable) return false;
      const choice = d.spec!.steps[1] as ChooseStepSpec;
      return (
        choice.choose[0]!.when.endsWith(`.output.cleared == ${!negated}`) &&
        (choice.choose[0]!.steps[0] as StepSpec).tool === 'book_slot'
      );
    }),
  );
});

test('two reads returning the same yes/no: which one is asked, never guessed', () => {
  const { d } = draft(
    "when a shipment is received, if it doesn't clear the manifest, hold the shipment",
    freight([check(), check('check_customs')]),
  );
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => /check_customs's cleared or check_manifest's cleared/.test(q.question)));
});

test('"book a slot if it clears": a yes/no said after the one action before it guards that action, not the read', () => {
  for (const request of [
    'when a shipment is received, book a slot if it clears',
    'when a shipment is received, check the manifest and book a slot if it clears the manifest',
    'when a shipment is received, book a slot if it clears, max $0',
  ]) {
    const { d } = draft(request);
    const steps = d.spec?.steps as StepSpec[] | undefined;
    const read = steps?.find((s) => s.tool === 'check_manifest');
    const book = steps?.find((s) => s.tool === 'book_slot');
    assert.ok(read && book, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(read.if, undefined, request);
    assert.equal(book.if, `steps.${read.name}.output.cleared == true`, request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  }
  // With no action before it either, it is still a question, never a guess.
  assert.equal(draft('when a shipment is received, if it clears').d.publishable, false);
});

test('"pay it if it matches, up to $5000": the cap said after the test, the payment still guarded by the read', () => {
  const vendor = { type: 'string', pattern: '^V-[0-9]+$' };
  const ap: DraftCatalog = {
    tools: [
      tool({
        name: 'match_purchase_order',
        effect: 'read',
        description: 'Reads a purchase order and says whether an invoice matches it (vendor and amount).',
        args: {
          type: 'object',
          required: ['po_number', 'vendor_id'],
          properties: { po_number: { type: 'string' }, vendor_id: vendor },
        },
      }),
      tool({
        name: 'schedule_payment',
        destructive: true,
        cost: { fromArg: 'amount_usd' },
        description: 'Schedules payment of an invoice.',
        args: {
          type: 'object',
          required: ['invoice_id', 'amount_usd'],
          properties: { invoice_id: { type: 'string' }, amount_usd: { type: 'number' } },
        },
      }),
    ],
    events: [{ type: 'invoice.received', payload: ['po_number', 'vendor_id', 'amount_usd'] }],
  };
  for (const request of [
    'when an invoice comes in, pay it if it matches, up to $5000',
    'invoices: pay them if they match the PO, up to $5000',
    // "against" is a word of the read's own, like "with" or "to", never a dropped restriction.
    'when an invoice comes in, check it against the PO and pay it if it matches. max $5000',
  ]) {
    const { d } = draft(request, ap);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const [read, pay] = d.spec!.steps as StepSpec[];
    assert.equal(read!.tool, 'match_purchase_order');
    assert.equal(pay!.tool, 'schedule_payment');
    assert.equal(pay!.if, `steps.${read!.name}.output.matched == true`, request);
    assert.equal(d.spec!.limits.maxCostUsd, 5000);
    // The read-back's words take their article ("names an invoice", not "a invoice").
    assert.ok(
      d.readBack?.assumed?.some((a) => a.endsWith('its description names an invoice.')),
      request,
    );
  }
});

test('"book cleared shipments", "hold uncleared shipments": the participle before the noun guards its sentence', () => {
  for (const [request, tool, yes] of [
    ['when a shipment is received, book a slot for cleared shipments', 'book_slot', true],
    ['hold uncleared shipments', 'hold_shipment', false],
  ] as const) {
    const { d } = draft(request);
    const steps = d.spec?.steps as StepSpec[] | undefined;
    const read = steps?.find((s) => s.tool === 'check_manifest');
    const act = steps?.find((s) => s.tool === tool);
    assert.ok(
      read && act,
      `${request}: ${JSON.stringify(d.questions)} ${JSON.stringify(d.spec ?? d.partial)}`,
    );
    assert.equal(act.if, `steps.${read.name}.output.cleared == ${yes}`, request);
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes('cleared')),
      JSON.stringify(d.readBack?.assumed),
    );
  }
});
