/**
 * What a project's sample events tell the compiler beyond their fields (event-shapes-of.ts), over a
 * catalog of its own (a shop's helpdesk): the subjects they show tell which id an argument's
 * `pattern` takes (grammar/id-by-pattern.ts), and fields they give as true or false are yes/no
 * tests a word says ("verified", "unverified": grammar/flag-fields.ts). Each reading is listed
 * under Assumed; where the samples do not tell, the compiler still asks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec, eventShapesOf } from './index.ts';

const ticketId = { type: 'string', pattern: '^T-[0-9]+$' };
const samples = [
  {
    type: 'return.requested',
    subject: 'T-17',
    payload: { order_id: 'A-1001', amount_usd: 30, member: true, channel: 'chat' },
  },
  {
    type: 'return.requested',
    subject: 'T-18',
    payload: { order_id: 'A-1002', amount_usd: 12, member: false, channel: 'email' },
  },
  { type: 'customer.replied', subject: 'T-17', payload: { text: 'thanks' } },
];
const tools = [
  tool({
    name: 'answer_ticket',
    description: 'Answers the customer on a helpdesk ticket.',
    args: {
      type: 'object',
      required: ['ticket_id', 'body'],
      properties: { ticket_id: ticketId, body: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
    effect: 'external',
  }),
  tool({
    name: 'accept_return',
    description: 'Accepts the return of an order.',
    args: {
      type: 'object',
      required: ['order_id'],
      properties: { order_id: { type: 'string', pattern: '^A-[0-9]{4}$' } },
      additionalProperties: false,
    },
  }),
];
const shop: DraftCatalog = { tools, events: eventShapesOf(samples) };

const draft = (request: string, catalog = shop) => draftSpec(compileRequest(request, catalog), catalog);

test('sample events show their subjects and the fields they give as true or false', () => {
  assert.deepEqual(eventShapesOf(samples), [
    { type: 'customer.replied', payload: ['text'], values: { text: ['thanks'] }, subjects: ['T-17'] },
    {
      type: 'return.requested',
      payload: ['amount_usd', 'channel', 'member', 'order_id'],
      values: { channel: ['chat', 'email'], order_id: ['A-1001', 'A-1002'] },
      subjects: ['T-17', 'T-18'],
      flags: ['member'],
    },
  ]);
});

test('an id argument is the one of the subject and the id fields whose samples fit its pattern, under Assumed', () => {
  const d = draft('when a return is requested, accept it and answer them: thanks, we got your parcel');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const args = d.spec!.steps.map((s) => ('tool' in s ? s.args : {}));
  assert.deepEqual(args, [
    { order_id: '{{event.payload.order_id}}' },
    { ticket_id: '{{event.subject}}', body: 'Thanks, we got your parcel.' },
  ]);
  assert.ok(
    d.readBack?.assumed?.some((a) =>
      /answer_ticket's ticket_id is read as the return\.requested event's subject: .*T-17.*\^T-\[0-9\]\+\$.*order_id's \(A-1001, A-1002\) do not/.test(
        a,
      ),
    ),
    JSON.stringify(d.readBack?.assumed),
  );
});

test('where the samples do not tell an id apart, the compiler still asks', () => {
  // Subjects and order ids both fit: which one is the ticket is the person's to say.
  const both = eventShapesOf(
    samples.map((s) => ({ ...s, subject: (s.payload as { order_id?: string }).order_id ?? s.subject })),
  );
  const loose = [
    {
      ...tools[0]!,
      args: {
        ...tools[0]!.args,
        properties: { ticket_id: { type: 'string', pattern: '^[A-Z]-[0-9]+$' }, body: { type: 'string' } },
      },
    },
    tools[1]!,
  ];
  for (const catalog of [
    { tools: loose, events: both },
    // No samples at all: fields only.
    { tools, events: [{ type: 'return.requested', payload: ['order_id', 'amount_usd'] }] },
  ]) {
    const d = draft('when a return is requested, answer them: thanks, we got your parcel', catalog);
    assert.ok(
      d.questions.some((q) => /answer_ticket's ticket_id: its subject or order_id/.test(q.question)),
      JSON.stringify(d.questions),
    );
  }
});

test('a word naming a yes/no field the samples show is a test of it, never dropped', () => {
  for (const [request, value] of [
    ['when a member asks for a return, accept it', true],
    ['member returns only: accept them', true],
    ['returns (members only): accept them', true],
    ['when a return is requested and they are a member, accept it', true],
    ['when a non-member asks for a return, accept it', false],
    ["when a return is requested and they're not a member, accept it", false],
    ["accept returns, but only if they're not a member", false],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.triggers,
      [{ event: 'return.requested', when: `payload.member == ${value}` }],
      request,
    );
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes(`return.requested event's member being ${value}`)),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
});

test('a yes/no field after a negation another reader took is still turned around', () => {
  const d = draft('accept the return if the customer is not a member');
  assert.doesNotMatch(JSON.stringify(d.spec ?? d.partial), /payload\.member == true/);
});

test('a yes/no field said both ways is left to the question; a branch on it is a choice', () => {
  const both = draft('members and non-members: accept their returns');
  assert.equal(both.publishable, false, JSON.stringify(both.spec));
  const d = draft('when a member asks for a return accept it, otherwise answer them: sorry, members only');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  assert.equal(choice.choose[0]!.when, 'payload.member == true');
  assert.deepEqual(
    choice.else?.map((s) => ('tool' in s ? s.tool : '')),
    ['answer_ticket'],
  );
});

test('"writes back" and "got back to us" are the customer replying', () => {
  for (const request of [
    'when the customer writes back, answer them: thanks, we are on it',
    'once the customer has written back, answer them: thanks, we are on it',
    'if a customer got back to us, answer them: thanks, we are on it',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'customer.replied' }], request);
  }
});

test("the event's own noun names the events, never a yes/no field that ends with it", () => {
  const flagged = [
    { type: 'return.requested', subject: 'T-1', payload: { order_id: 'A-1001', first_return: true } },
    { type: 'return.requested', subject: 'T-2', payload: { order_id: 'A-1002', first_return: false } },
  ];
  const catalog: DraftCatalog = { tools, events: eventShapesOf(flagged) };
  const d = draft('when a return is requested, accept the return', catalog);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'return.requested' }]);
});

test('"without autopay", "with no autopay": a yes/no field named after a word that says which way', () => {
  const renewals = [
    {
      type: 'renewal.failed',
      subject: 'T-1',
      payload: { order_id: 'A-1001', autopay: true, paper_invoice: true },
    },
    {
      type: 'renewal.failed',
      subject: 'T-2',
      payload: { order_id: 'A-1002', autopay: false, paper_invoice: false },
    },
  ];
  const catalog: DraftCatalog = { tools, events: eventShapesOf(renewals) };
  for (const request of [
    'failed renewals without autopay: answer them: please pay by card',
    'failed renewals with no autopay: answer them: please pay by card',
  ]) {
    const d = draft(request, catalog);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.triggers,
      [{ event: 'renewal.failed', when: 'payload.autopay == false' }],
      request,
    );
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes("renewal.failed event's autopay being false")),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
  // Said no beside the field's word, or after it: turned around, never read as yes.
  for (const [request, when] of [
    [
      'failed renewals with no paper invoice: answer them: please pay by card',
      'payload.paper_invoice == false',
    ],
    ['when a renewal fails and autopay is no, answer them: please pay by card', 'payload.autopay == false'],
    ['when a renewal fails without autopay, answer them: please pay by card', 'payload.autopay == false'],
  ] as const) {
    const d = draft(request, catalog);
    assert.equal(d.spec?.triggers[0]?.when, when, `${request}: ${JSON.stringify(d.questions)}`);
  }
  // A word that says neither way is asked about, never compared with the field.
  const d = draft('failed renewals with premium autopay: answer them: please pay by card', catalog);
  assert.equal(d.publishable, false);
  assert.doesNotMatch(JSON.stringify(d.spec ?? d.partial ?? {}), /autopay == \\"premium\\"/);
  // Whatever compiled it, a draft comparing a yes/no field with a word is asked about.
  const m = modelDrafted(
    {
      triggers: [{ event: 'renewal.failed', when: 'payload.autopay == "without"' }],
      steps: [
        { name: 'a', tool: 'answer_ticket', args: { ticket_id: '{{event.subject}}', body: 'Please pay.' } },
      ],
      limits: { maxSteps: 1, maxCostUsd: 0 },
    },
    'failed renewals without autopay: answer them: please pay',
    catalog,
  );
  assert.equal(m.publishable, false);
  assert.ok(
    m.questions.some((q) =>
      /compares autopay with "without", but the event gives autopay as true or false/.test(q.question),
    ),
    JSON.stringify(m.questions),
  );
});
