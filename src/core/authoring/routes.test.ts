/**
 * Routing phrases and channels (grammar/read-routes.ts) over a catalog no corpus uses (a
 * facilities desk): "crew 2, 4h response", "drop it in the electrical queue, within a day", "post
 * the request's summary in #facilities". A route is read only from words that say nothing else:
 * a restriction said with it is never dropped. A route is where something goes, never a tool that
 * destroys or moves money.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { BLIND10_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { UNITS } from './request-words.ts';

const facilities: DraftCatalog = {
  tools: [
    tool({
      name: 'route_request',
      description: 'Routes a maintenance request to a crew queue, with a response time in hours.',
      args: {
        type: 'object',
        required: ['request_id', 'crew', 'respond_within_hours'],
        properties: {
          request_id: { type: 'string' },
          crew: { enum: ['crew-1', 'crew-2', 'electrical'] },
          respond_within_hours: { type: 'integer', minimum: 1, maximum: 72 },
        },
      },
    }),
    tool({
      name: 'post_update',
      description: 'Posts a message in a chat channel.',
      args: {
        type: 'object',
        required: ['channel', 'text'],
        properties: {
          channel: { type: 'string', pattern: '^#[a-z0-9-]{1,40}$' },
          text: { type: 'string', minLength: 1 },
        },
      },
      effect: 'external',
    }),
  ],
  events: [{ type: 'request.submitted', payload: ['building', 'urgency', 'summary'] }],
};

const draft = (request: string) => draftSpec(compileRequest(request, facilities), facilities);
const calls = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!.steps.map((s) => ('tool' in s ? { tool: s.tool, args: s.args } : { tool: '', args: {} }));
};

test('a team or queue of an enum, and a response time, are the routing tool and its arguments', () => {
  for (const [request, crew, hours] of [
    ['new requests -> crew 2, 4h response', 'crew-2', 4],
    ['when a request is submitted, drop it in the electrical queue, within a day', 'electrical', 24],
    ['when a request is submitted, send it to crew two with three days to respond', 'crew-2', 72],
    ['request submitted: crew1, needs a response within 8 hrs', 'crew-1', 8],
    ['when a request is submitted, give crew-1 a day to respond', 'crew-1', 24],
  ] as const) {
    const s = calls(request);
    assert.deepEqual(s, [
      { tool: 'route_request', args: { request_id: '{{event.subject}}', crew, respond_within_hours: hours } },
    ]);
  }
});

test('a channel is the #word, and a field said as what is posted is the text', () => {
  assert.deepEqual(calls("when a request is submitted post the request's summary in #facilities"), [
    { tool: 'post_update', args: { channel: '#facilities', text: '{{event.payload.summary}}' } },
  ]);
  assert.deepEqual(
    calls("when a request is submitted, post in #facilities 'New: ' followed by the summary"),
    [{ tool: 'post_update', args: { channel: '#facilities', text: 'New: {{event.payload.summary}}' } }],
  );
  // Quoted text is never the channel: it does not fit the channel's pattern.
  assert.deepEqual(calls("when a request is submitted, post 'A new request is in' to #desk"), [
    { tool: 'post_update', args: { channel: '#desk', text: 'A new request is in' } },
  ]);
});

test('a route said with a restriction, a value no enum lists, or a time nothing takes is asked about', () => {
  for (const request of [
    'gym requests go to crew 1, 2h',
    'when a request is submitted, crew 3, 2h',
    'when a request is submitted, send it to crew 2',
    "when a request is submitted post the request's summary in #facilities, within 2 hours",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: drafted ${JSON.stringify(d.spec?.steps)}`);
  }
});

test('property: any spoken form of an enum route and any hour count fill the route', () => {
  const crew = fc.constantFrom(1, 2);
  const form = fc.constantFrom(
    (n: number) => `crew ${n}`,
    (n: number) => `crew${n}`,
    (n: number) => `crew-${n}`,
    (n: number) => `crew ${UNITS[n]}`,
    (n: number) => `the crew-${n} queue`,
  );
  const hours = fc.integer({ min: 1, max: 72 });
  const said = fc.constantFrom(
    (h: number) => `${h}h response`,
    (h: number) => `${h} hr response`,
    (h: number) => `within ${h} hours`,
    (h: number) => `needs a response within ${h} hours`,
    (h: number) => `${h} hour target`,
  );
  fc.assert(
    fc.property(crew, form, hours, said, (n, f, h, s) => {
      const request = `when a request is submitted, route it to ${f(n)}, ${s(h)}`;
      assert.deepEqual(calls(request), [
        {
          tool: 'route_request',
          args: { request_id: '{{event.subject}}', crew: `crew-${n}`, respond_within_hours: h },
        },
      ]);
    }),
    { numRuns: 150 },
  );
});

test("an enum value that is no route's ('sev1', a case's level) is left to the tests: before the event's noun it says which events", () => {
  const machines: DraftCatalog = {
    tools: [
      tool({
        name: 'open_case',
        description: 'Opens a case for a machine.',
        args: {
          type: 'object',
          required: ['machine', 'level'],
          properties: { machine: { type: 'string' }, level: { enum: ['sev1', 'sev2', 'sev3'] } },
        },
      }),
      tool({
        name: 'page_tech',
        description: 'Pages the technician of a machine.',
        args: { type: 'object', required: ['machine'], properties: { machine: { type: 'string' } } },
      }),
      tool({
        name: 'notify_owner',
        description: "Sends a message to the machine's owner.",
        args: {
          type: 'object',
          required: ['user_id', 'message'],
          properties: { user_id: { type: 'string' }, message: { type: 'string' } },
        },
      }),
    ],
    events: [{ type: 'alert.fired', payload: ['machine', 'level'] }],
  };
  const d = draftSpec(compileRequest('sev1 alerts -> page the tech', machines), machines);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec?.triggers[0]?.when, 'payload.level == "sev1"');
  assert.deepEqual(
    d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['page_tech'],
  );
});

test('"48h to respond" and "crew one\'s queue" are the route\'s time and queue, never a reply', () => {
  const withReply: DraftCatalog = {
    ...facilities,
    tools: [
      ...facilities.tools,
      tool({
        name: 'reply_to_requester',
        description: 'Replies to the person who submitted the request.',
        args: { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1 } } },
        effect: 'external',
      }),
    ],
  };
  for (const [request, crew, hours] of [
    ['new requests -> crew 2, respond within 3 hours', 'crew-2', 3],
    ['new requests -> crew 2 with 48h to respond', 'crew-2', 48],
    ["when a request is submitted, put it in crew one's queue with 8h to respond", 'crew-1', 8],
  ] as const) {
    const d = draftSpec(compileRequest(request, withReply), withReply);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.steps.map((s) => ('tool' in s ? { tool: s.tool, args: s.args } : {})),
      [
        {
          tool: 'route_request',
          args: { request_id: '{{event.subject}}', crew, respond_within_hours: hours },
        },
      ],
      request,
    );
  }
});

test('"chargebacks:", a value of freeze_seller\'s reason, routes to no freeze', () => {
  // (It had added a freeze of every seller to a draft that only emailed them.)
  const d = draftOver(
    "when a chargeback is received, chargebacks: email the seller 'We got one'",
    BLIND10_DIR,
    'payouts',
  );
  assert.deepEqual(
    toolSteps((d.spec ?? d.partial)!).map((s) => s.tool),
    ['email_seller'],
  );
  assert.equal(d.publishable, false, 'the value no step takes is asked');
});
