/**
 * Values a draft takes from what its own steps read or move: a placeholder naming what an earlier
 * step returns ("<name>" after a lookup returning `patient_name`) or, for money ("<amount>"), the
 * amount an earlier step moved (grammar/read-placeholders.ts); the money an event owes ("refund
 * whatever's due": `balance_due_usd`) when no field is named for an amount (grammar/fill-args.ts);
 * and a tool description's list after a colon ("Reads a visit: the patient's id, name and email")
 * is not what the tool does (grammar/tool-words.ts). Over a catalog of its own (a clinic's front
 * desk); every reading is listed under Assumed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const clinic: DraftCatalog = {
  tools: [
    tool({
      name: 'get_visit',
      description: "Reads a visit: the patient's id, name and email, and what was billed.",
      effect: 'read',
      args: { type: 'object', required: ['visit_id'], properties: { visit_id: { type: 'string' } } },
      result: {
        type: 'object',
        properties: { patient_name: { type: 'string' }, billed_usd: { type: 'number' } },
      },
    }),
    tool({
      name: 'refund_patient',
      description: 'Refunds a patient for a visit. Moves money: costs the amount.',
      destructive: true,
      effect: 'external',
      args: {
        type: 'object',
        required: ['visit_id', 'amount_usd'],
        properties: { visit_id: { type: 'string' }, amount_usd: { type: 'number', exclusiveMinimum: 0 } },
        additionalProperties: false,
      },
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'message_patient',
      description: 'Sends the patient of a visit a message.',
      effect: 'external',
      args: {
        type: 'object',
        required: ['visit_id', 'text'],
        properties: { visit_id: { type: 'string' }, text: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
    }),
  ],
  events: [
    { type: 'visit.cancelled', payload: ['balance_due_usd', 'clinic'] },
    { type: 'visit.booked', payload: ['clinic', 'deposit_budget_usd'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, clinic), clinic);
const published = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  const steps = d.spec!.steps.map((s) => ('tool' in s ? s : undefined)!);
  return { steps, assumed: d.readBack?.assumed ?? [] };
};

test("a placeholder naming what an earlier step returns is that step's output", () => {
  const { steps, assumed } = published(
    "when a visit is booked, look up the visit and email them 'Hi <name>, see you soon.'",
  );
  assert.deepEqual(
    steps.map((s) => s.tool),
    ['get_visit', 'message_patient'],
  );
  assert.equal(steps[1]!.args.text, `Hi {{steps.${steps[0]!.name}.output.patient_name}}, see you soon.`);
  assert.ok(
    assumed.some((a) => a.includes('"<name>"')),
    JSON.stringify(assumed),
  );
});

test('a placeholder naming what an earlier step returns by its description alone is that output', () => {
  // get_doctor declares no result: its description says what it reads.
  const doctor = tool({
    name: 'get_doctor',
    description: "Reads the visit's doctor from the rota: doctor name, room.",
    effect: 'read',
    args: { type: 'object', required: ['visit_id'], properties: { visit_id: { type: 'string' } } },
  });
  const catalog = { ...clinic, tools: [...clinic.tools, doctor] };
  const d = draftSpec(
    compileRequest(
      "when a visit is booked, look up the doctor and message them 'You will see <doctor name> in <room>.'",
      catalog,
    ),
    catalog,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [read, message] = d.spec!.steps.map((s) => ('tool' in s ? s : undefined)!);
  assert.equal(read!.tool, 'get_doctor');
  assert.equal(
    message!.args.text,
    `You will see {{steps.${read!.name}.output.doctor_name}} in {{steps.${read!.name}.output.room}}.`,
  );
});

test('a placeholder naming what a later step returns is still asked', () => {
  const d = draft("when a visit is booked, email them 'Hi <name>, see you soon.' then look up the visit");
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('<name>')),
    JSON.stringify(d.questions),
  );
});

test("refund whatever's due: the event's one field of money owed, and '<amount>' the amount moved", () => {
  const { steps, assumed } = published(
    "when a visit is cancelled, refund whatever's due, cap $300, and email them 'We refunded $<amount>.'",
  );
  assert.equal(steps[0]!.tool, 'refund_patient');
  assert.equal(steps[0]!.args.amount_usd, '{{event.payload.balance_due_usd}}');
  // ("$" then the template: the dollar sign is the text's own.)
  assert.equal(steps[1]!.args.text, ['We refunded $', '{{event.payload.balance_due_usd}}', '.'].join(''));
  assert.ok(
    assumed.some((a) => a.includes('balance_due_usd: its one field of money')),
    JSON.stringify(assumed),
  );
});

test('a field of money that is not owed (a budget) is no amount to move: asked', () => {
  const d = draft('when a visit is booked, refund the patient, cap $300');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.about === 'args: refund_patient.amount_usd'),
    JSON.stringify(d.questions),
  );
});

test("what a description lists after a colon is not what the tool does: 'email them' is the messaging tool", () => {
  const { steps } = published("when a visit is booked, email them 'See you soon.'");
  assert.deepEqual(
    steps.map((s) => s.tool),
    ['message_patient'],
  );
});

test('an amount the words fix is the spend cap when no other bound is said, read back under Assumed', () => {
  const d = draft('when a visit is cancelled, refund the patient $20');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.limits.maxCostUsd, 20);
  assert.ok(
    (d.readBack?.assumed ?? []).some((a) => a.includes('The spend cap is $20 a run')),
    JSON.stringify(d.readBack?.assumed),
  );
  // An amount from the event, with no bound said: still asked.
  assert.equal(draft("when a visit is cancelled, refund whatever's due").publishable, false);
});

test("an id argument never takes an event's subject whose samples do not fit its form", () => {
  const credit: DraftCatalog = {
    tools: [
      tool({
        name: 'credit_patient',
        description: 'Gives a patient store credit. Costs the amount.',
        effect: 'external',
        args: {
          type: 'object',
          required: ['patient_id', 'amount_usd'],
          properties: {
            patient_id: { type: 'string', pattern: '^P-[0-9]+$' },
            amount_usd: { type: 'number', exclusiveMinimum: 0 },
          },
          additionalProperties: false,
        },
        cost: { fromArg: 'amount_usd' },
      }),
    ],
    events: [{ type: 'visit.cancelled', payload: ['clinic'], subjects: ['V-1001'] }],
  };
  const d = draftSpec(compileRequest('when a visit is cancelled, credit the patient $5', credit), credit);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.about === 'args: credit_patient.patient_id' && q.question.includes('V-1001')),
    JSON.stringify(d.questions),
  );
});
