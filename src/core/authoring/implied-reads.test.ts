/**
 * Steps the catalog implies (grammar/implied-reads.ts), over catalogs no corpus uses (a vendor
 * ledger): a required argument no event field and no word fills, that a read tool returns about the
 * step's subject, is that read's output, the read added first and read back under "Assumed"; a
 * date-time argument nothing fills is the run's clock; a value the catalog does not take, said for
 * a destructive step (grammar/read-unknown-values.ts), is a question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import type { StepSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { describedOutputs, impliedRead } from './grammar/implied-reads.ts';
import { contextFor } from './grammar/request-context.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const fetchVendor = (extra: Partial<ToolDescriptor> = {}) =>
  tool({
    name: 'fetch_vendor',
    effect: 'read',
    description: "Reads a vendor from the ledger: name, owner, region, whether it's approved.",
    args: { type: 'object', required: ['vendor_id'], properties: { vendor_id: { type: 'string' } } },
    ...extra,
  });

const signContract = tool({
  name: 'sign_contract',
  destructive: true,
  description: 'Signs a contract with a vendor.',
  args: {
    type: 'object',
    required: ['owner_id', 'vendor_id', 'tier', 'approved', 'signed_at'],
    properties: {
      owner_id: { type: 'string' },
      vendor_id: { type: 'string' },
      tier: { enum: ['basic', 'premium'] },
      approved: { const: true },
      signed_at: { type: 'string', format: 'date-time' },
    },
  },
});

const ledger = (tools: ToolDescriptor[] = [fetchVendor(), signContract]): DraftCatalog => ({
  tools,
  events: [{ type: 'contract.submitted', payload: ['tier', 'term_days'] }],
});

const draft = (request: string, catalog = ledger()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};
const toolStep = (s: unknown) => s as StepSpec;

test("a read tool's description lists what it returns; a 'whether' item is a yes/no", () => {
  assert.deepEqual(
    describedOutputs("Reads a vendor from the ledger: name, owner, region, whether it's approved."),
    [
      { name: 'name', yesNo: false },
      { name: 'owner', yesNo: false },
      { name: 'region', yesNo: false },
      { name: 'approved', yesNo: true },
    ],
  );
  assert.deepEqual(describedOutputs('Returns the start date and the cost centre.'), [
    { name: 'start_date', yesNo: false },
    { name: 'cost_centre', yesNo: false },
  ]);
  assert.deepEqual(describedOutputs('Reads a vendor.'), []);
});

test('an argument a read tool returns is its output, the read added first and Assumed', () => {
  const { d, compiled } = draft('when a contract is submitted, sign it');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, sign] = d.spec!.steps.map(toolStep);
  assert.equal(read!.tool, 'fetch_vendor');
  assert.deepEqual(read!.args, { vendor_id: '{{event.subject}}' });
  assert.equal(sign!.tool, 'sign_contract');
  assert.equal(sign!.args!.owner_id, `{{steps.${read!.name}.output.owner}}`);
  assert.equal(sign!.args!.approved, `{{steps.${read!.name}.output.approved}}`);
  assert.equal(sign!.args!.vendor_id, '{{event.subject}}');
  assert.equal(sign!.args!.signed_at, '{{clock.now}}');
  assert.equal(d.spec!.limits.maxSteps, 2);
  const assumed = compiled.assumptions!.join('\n');
  assert.match(assumed, /fetch_vendor\) is added first/);
  assert.match(assumed, /signed_at is read as the time the step runs/);
  assert.match(d.readBack!.text, /Assumed:[\s\S]*fetch_vendor/);
});

test('a read the request asks for is not added twice', () => {
  for (const request of [
    'when a contract is submitted, fetch the vendor, then sign it',
    'when a contract is submitted fetch the vendor and sign the contract',
  ]) {
    const { d } = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const steps = d.spec!.steps.map(toolStep);
    assert.equal(steps.filter((s) => s.tool === 'fetch_vendor').length, 1, request);
    assert.equal(steps[1]!.args!.owner_id, `{{steps.${steps[0]!.name}.output.owner}}`);
  }
  // Said after the step that needs it: asked about, never a draft.
  const after = draft('when a contract is submitted, sign it, then fetch the vendor').d;
  assert.equal(after.publishable, false);
  assert.equal(after.spec?.steps.map(toolStep).filter((s) => s.tool === 'fetch_vendor').length ?? 1, 1);
});

test("a declared output schema is what the read returns, over the description's words", () => {
  const declared = fetchVendor({
    description: 'Reads a vendor from the ledger.',
    result: { type: 'object', properties: { owner: { type: 'string' }, approved: { type: 'boolean' } } },
  });
  const { d } = draft('when a contract is submitted, sign it', ledger([declared, signContract]));
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(toolStep(d.spec!.steps[1]).args!.approved, '{{steps.fetch.output.approved}}');
});

test('two read tools whose descriptions both fit: a question, never a guess', () => {
  const other = fetchVendor({
    name: 'audit_vendor',
    description: 'Reads a vendor from the audit log: owner, whether it is approved.',
  });
  const { d } = draft('when a contract is submitted, sign it', ledger([fetchVendor(), other, signContract]));
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.about === 'args: sign_contract.owner_id'),
    JSON.stringify(d.questions),
  );
});

test("a read tool about another subject (its key the step's tool does not take) fills nothing", () => {
  const fetchRegion = tool({
    name: 'fetch_region',
    effect: 'read',
    description: 'Reads a region: owner, whether it is approved.',
    args: { type: 'object', required: ['region_id'], properties: { region_id: { type: 'string' } } },
  });
  const { d } = draft('when a contract is submitted, sign it', ledger([fetchRegion, signContract]));
  assert.equal(d.publishable, false);
  assert.ok(!d.spec?.steps.some((s) => toolStep(s).tool === 'fetch_region'));
});

test('a value the catalog does not take, said for a destructive step, is a question', () => {
  const { d } = draft('when a contract is submitted, sign it for acme');
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => /"acme"/.test(q.question) && /basic or premium/.test(q.question)));
  // A value it takes is read (here as a test on the event's field of that name).
  const named = draft('when a contract is submitted, sign it for premium').d;
  assert.equal(named.publishable, true, JSON.stringify(named.questions));
  assert.equal(named.spec!.triggers[0]!.when, 'payload.tier == "premium"');
});

test('property: any field a read returns fills the argument named for it, through one read step first', () => {
  const word = fc.constantFrom('owner', 'auditor', 'sponsor', 'buyer', 'steward', 'approver', 'contact');
  fc.assert(
    fc.property(
      word,
      fc.constantFrom('fetch', 'lookup', 'read', 'get'),
      fc.boolean(),
      (field, verb, said) => {
        const read = tool({
          name: `${verb}_vendor`,
          effect: 'read',
          description: `Reads a vendor from the ledger: name, ${field}, region.`,
          args: { type: 'object', required: ['vendor_id'], properties: { vendor_id: { type: 'string' } } },
        });
        const sign = tool({
          name: 'sign_contract',
          description: 'Signs a contract with a vendor.',
          args: {
            type: 'object',
            required: [`${field}_id`, 'vendor_id'],
            properties: { [`${field}_id`]: { type: 'string' }, vendor_id: { type: 'string' } },
          },
        });
        const catalog = ledger([sign, read]);
        const request = said
          ? `when a contract is submitted, ${verb} the vendor, then sign the contract`
          : 'when a contract is submitted, sign the contract';
        const d = draftSpec(compileRequest(request, catalog), catalog);
        assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
        const steps = d.spec!.steps.map(toolStep);
        assert.deepEqual(
          steps.map((s) => s.tool),
          [read.name, 'sign_contract'],
        );
        assert.equal(steps[1]!.args![`${field}_id`], `{{steps.${steps[0]!.name}.output.${field}}}`);
        assert.equal(steps[1]!.args!.vendor_id, '{{event.subject}}');
      },
    ),
  );
});

test('property: an argument the read tool takes as its own key is never read from its output', () => {
  fc.assert(
    fc.property(fc.constantFrom('vendor', 'supplier', 'partner'), (noun) => {
      const read = tool({
        name: `fetch_${noun}`,
        effect: 'read',
        description: `Reads a ${noun}: ${noun}, name.`,
        args: {
          type: 'object',
          required: [`${noun}_id`],
          properties: { [`${noun}_id`]: { type: 'string' } },
        },
      });
      const ctx = contextFor({ tools: [read, signContract] });
      assert.equal(impliedRead(read, `${noun}_id`, ctx), undefined);
      assert.equal(impliedRead(signContract, `${noun}_id`, ctx), undefined);
    }),
  );
});
