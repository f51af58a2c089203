/**
 * Tests said of some steps only (grammar/read-step-tests.ts, placed by grammar/build-branch.ts), and
 * a sign-off asked of the person the catalog's approval step names (grammar/read-signoff.ts), over
 * catalogs no corpus uses: a course roster (a read tool that says a member's team and whether they
 * are verified) and an invoice desk that pays.
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

const member = { type: 'string', pattern: '^M-[0-9]+$' };

const roster = (eventFields: string[] = ['course', 'reason']): DraftCatalog => ({
  tools: [
    tool({
      name: 'fetch_member',
      effect: 'read',
      description: "Reads a member from the roster: name, owner, team, whether they're verified.",
      args: { type: 'object', required: ['member_id'], properties: { member_id: member } },
    }),
    tool({
      name: 'enrol_member',
      destructive: true,
      description: 'Enrols a member on a course.',
      args: {
        type: 'object',
        required: ['member_id', 'course', 'verified'],
        properties: {
          member_id: member,
          course: { enum: ['design', 'sales', 'safety'] },
          verified: { const: true },
        },
      },
    }),
    tool({
      name: 'message_member',
      effect: 'external',
      description: 'Messages the member about their enrolment.',
      args: {
        type: 'object',
        required: ['member_id', 'text'],
        properties: { member_id: member, text: { type: 'string', minLength: 1 } },
      },
    }),
    tool({
      name: 'request_owner_approval',
      effect: 'read',
      approval: 'always',
      description: "The member's owner approves: every proposal waits for a person.",
      args: {
        type: 'object',
        required: ['owner_id', 'member_id'],
        properties: { owner_id: { type: 'string' }, member_id: member },
      },
    }),
  ],
  events: [{ type: 'enrolment.requested', payload: eventFields }],
});

const draft = (request: string, catalog = roster()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};
const steps = (d: ReturnType<typeof draft>['d']) => d.spec!.steps;

test('"if the roster has them in design": a test on what the read returns, the read first, the step guarded', () => {
  const { d, compiled } = draft(
    'when an enrolment is requested, if the roster has them in design, enrol them',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, enrol] = steps(d) as StepSpec[];
  assert.equal(read!.tool, 'fetch_member');
  assert.equal(read!.if, undefined);
  assert.equal(enrol!.tool, 'enrol_member');
  assert.equal(enrol!.if, `steps.${read!.name}.output.team == "design"`);
  assert.equal(enrol!.args.verified, `{{steps.${read!.name}.output.verified}}`);
  assert.ok(compiled.assumptions?.some((a) => /test on what fetch_member reads: team == "design"/.test(a)));
});

test('"if they\'re not verified ... otherwise get their owner to sign off": a choice on a yes/no the read returns', () => {
  const { d } = draft(
    "When an enrolment is requested look them up. If they're not verified in the roster message them: Please verify your account first. Otherwise get their owner to sign off",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, choice] = steps(d) as [StepSpec, ChooseStepSpec];
  assert.equal(read.tool, 'fetch_member');
  assert.equal(choice.choose[0]!.when, `steps.${read.name}.output.verified == false`);
  assert.deepEqual(
    (choice.choose[0]!.steps as StepSpec[]).map((s) => [s.tool, s.args.text]),
    [['message_member', 'Please verify your account first.']],
  );
  assert.deepEqual(
    (choice.else as StepSpec[]).map((s) => [s.tool, s.args.owner_id]),
    [['request_owner_approval', `{{steps.${read.name}.output.owner}}`]],
  );
});

test('"unverified", "inactive": the yes/no turned around; "not unverified" turned back', () => {
  for (const [said, value] of [
    ["if they're unverified", false],
    ['if the member is verified', true],
    ["if they aren't verified", false],
    ["if they're not unverified", true],
  ] as const) {
    const { d } = draft(`when an enrolment is requested, ${said}, message them 'Welcome'`);
    assert.equal(d.publishable, true, `${said}: ${JSON.stringify(d.questions)}`);
    const [read, msg] = steps(d) as StepSpec[];
    assert.equal(msg!.if, `steps.${read!.name}.output.verified == ${value}`, said);
  }
});

test('a field the words name: "if their team is sales"; "isn\'t" is !=', () => {
  const { d } = draft(
    "when an enrolment is requested, if their team isn't sales, message them 'Ask your lead'",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, msg] = steps(d) as StepSpec[];
  assert.equal(msg!.if, `steps.${read!.name}.output.team != "sales"`);
});

test("an event's own field is the event's test, never the read's", () => {
  const { d } = draft(
    "when an enrolment is requested, if their team is sales, message them 'Hi'",
    roster(['course', 'team']),
  );
  assert.ok(
    d.spec === undefined || (steps(d) as StepSpec[]).every((s) => !String(s.if ?? '').includes('steps.')),
    JSON.stringify(d.spec),
  );
});

test('a test on the read with no action after it is asked about, never dropped', () => {
  const { d } = draft('when an enrolment is requested, enrol them if the roster has them in design');
  assert.ok(
    !d.publishable || (steps(d) as StepSpec[]).some((s) => s.if !== undefined),
    JSON.stringify(d.spec),
  );
});

test('"get their owner to sign off", "send it to their owner for sign-off": the approval step that names the owner', () => {
  for (const said of [
    'get their owner to sign off',
    'send it to their owner for sign-off',
    "get the owner's ok",
  ]) {
    const { d } = draft(`when an enrolment is requested, ${said}`);
    assert.equal(d.publishable, true, `${said}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      (steps(d) as StepSpec[]).map((s) => s.tool),
      ['fetch_member', 'request_owner_approval'],
      said,
    );
  }
});

const invoices: DraftCatalog = {
  tools: [
    tool({
      name: 'pay_invoice',
      destructive: true,
      description: 'Pays an invoice.',
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['invoice_id', 'amount_usd'],
        properties: { invoice_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
    } as Partial<ToolDescriptor> & Pick<ToolDescriptor, 'name' | 'description' | 'args'>),
    tool({
      name: 'label_invoice',
      description: 'Adds a label to an invoice.',
      args: {
        type: 'object',
        required: ['invoice_id', 'label'],
        properties: { invoice_id: { type: 'string' }, label: { type: 'string' } },
      },
    }),
  ],
  events: [{ type: 'invoice.approved', payload: ['invoice_id', 'total_usd', 'vendor'] }],
};

test('"label it, and if it\'s under $500 pay it": only the payment carries the test, capped at it', () => {
  const { d } = draft("when an invoice is approved label it 'seen', and if it's under $500 pay it", invoices);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [label, pay] = steps(d) as StepSpec[];
  assert.deepEqual([label!.tool, label!.args.label, label!.if], ['label_invoice', 'seen', undefined]);
  assert.deepEqual([pay!.tool, pay!.if], ['pay_invoice', 'payload.total_usd < 500']);
  assert.equal(d.spec!.limits.maxCostUsd, 500);
});

test("a test before the only action is the whole workflow's, as before: a cap, or the trigger's when", () => {
  const under = draft("when an invoice is approved, if it's under $500 pay it", invoices).d;
  assert.equal(under.publishable, true, JSON.stringify(under.questions));
  assert.equal((steps(under)[0] as StepSpec).if, undefined);
  assert.equal(under.spec!.limits.maxCostUsd, 500);
  const over = draft("when an invoice is approved, if it's over $500 label it big", invoices).d;
  assert.equal(over.publishable, true, JSON.stringify(over.questions));
  assert.equal(over.spec!.triggers[0]!.when, 'payload.total_usd > 500');
  assert.equal((steps(over)[0] as StepSpec).if, undefined);
});

test('property: a payment said after other actions, under any stated bound, is guarded by it and capped at it', () => {
  const uppers: [string, string][] = [
    ['under', '<'],
    ['below', '<'],
    ['less than', '<'],
    ['at most', '<='],
  ];
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 99_999 }),
      fc.constantFrom(...uppers),
      fc.constantFrom("it's ", 'its ', 'it is ', ''),
      fc.constantFrom("label it 'seen', and ", "label it 'seen'. ", "label it 'seen' and also "),
      fc.constantFrom('pay it', 'pay it then'),
      (usd, [word, op], subject, lead, pay) => {
        const request = `when an invoice is approved ${lead}if ${subject}${word} $${usd} ${pay}`;
        const { d } = draft(request, invoices);
        assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
        assert.ok(d.spec!.limits.maxCostUsd <= usd, request);
        const payStep = (steps(d) as StepSpec[]).find((s) => s.tool === 'pay_invoice');
        assert.equal(payStep?.if, `payload.total_usd ${op} ${usd}`, request);
      },
    ),
    { numRuns: 200 },
  );
});

test('property: a payment guarded by a lower bound alone is never publishable (no cap was said)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 99_999 }),
      fc.constantFrom('over', 'above', 'more than', 'at least'),
      (usd, word) => {
        const request = `when an invoice is approved label it 'seen', and if it's ${word} $${usd} pay it`;
        const { d } = draft(request, invoices);
        assert.equal(d.publishable, false, request);
      },
    ),
    { numRuns: 200 },
  );
});
