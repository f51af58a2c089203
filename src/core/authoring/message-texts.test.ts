/**
 * Message texts said without quotes (grammar/read-message-text.ts) and messaging verbs mapped to
 * the catalog's one messaging tool, over a catalog no corpus uses (a clinic's bookings): "DM them:
 * sorry, your slot moved", "let them know we'll call", "email them that ...". Words inside such a
 * text are never read as a condition, a duration, a cap or a step (a fast-check property).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { asSentence } from './grammar/read-message-text.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const clinic: DraftCatalog = {
  tools: [
    tool({
      name: 'message_patient',
      description: 'Messages the patient about their booking.',
      args: {
        type: 'object',
        required: ['patient_id', 'text'],
        properties: { patient_id: { type: 'string' }, text: { type: 'string', minLength: 1 } },
      },
      effect: 'external',
    }),
    tool({
      name: 'flag_booking',
      description: 'Flags a booking for the front desk.',
      args: {
        type: 'object',
        required: ['booking_id', 'flag'],
        properties: { booking_id: { type: 'string' }, flag: { type: 'string', pattern: '^[a-z-]{1,30}$' } },
      },
    }),
    tool({
      name: 'refund_deposit',
      description: 'Refunds the deposit of a booking.',
      args: {
        type: 'object',
        required: ['booking_id', 'amount_usd'],
        properties: { booking_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      destructive: true,
      cost: { fromArg: 'amount_usd' },
    }),
  ],
  events: [{ type: 'booking.cancelled', payload: ['reason', 'deposit_amount', 'patient_id'] }],
};

const draft = (request: string, catalog = clinic) => draftSpec(compileRequest(request, catalog), catalog);
const steps = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!.steps.map((s) => ('tool' in s ? { tool: s.tool, args: s.args } : { tool: '', args: {} }));
};

test('a text after a messaging verb and a colon is the message, as a sentence', () => {
  for (const [request, text] of [
    [
      'When a booking is cancelled, DM them: sorry to see you go, a new slot opens within 2 days',
      'Sorry to see you go, a new slot opens within 2 days.',
    ],
    [
      'booking cancelled -> tell them: No show fees apply unless you call 24 hours ahead. Please rebook online!',
      'No show fees apply unless you call 24 hours ahead. Please rebook online!',
    ],
    ['When a booking is cancelled email them: Got it, thanks', 'Got it, thanks.'],
    ['cancelled bookings: ping the patient: your slot is free again', 'Your slot is free again.'],
  ] as const) {
    const s = steps(request);
    assert.deepEqual(
      s.map((x) => x.tool),
      ['message_patient'],
      request,
    );
    assert.equal(s[0]!.args?.text, text, request);
    const d = draft(request);
    assert.equal(d.spec!.triggers[0]!.when, undefined, `${request}: no word of the text is a test`);
    assert.ok(
      d.readBack!.assumed!.some((a) => a.includes(JSON.stringify(text))),
      `${request}: the text is read back`,
    );
  }
});

test('without a colon, words said to the person after the verb are the message', () => {
  for (const [request, text] of [
    ["When a booking is cancelled, let them know we'll call to rebook", "We'll call to rebook."],
    [
      'When a booking is cancelled, let them know the deposit goes back to the card',
      'The deposit goes back to the card.',
    ],
    [
      'When a booking is cancelled, message them your deposit is safe with us',
      'Your deposit is safe with us.',
    ],
    ['When a booking is cancelled, ping them that the slot is free again', 'The slot is free again.'],
  ] as const) {
    const s = steps(request);
    assert.equal(s[0]!.tool, 'message_patient', request);
    assert.equal(s[0]!.args?.text, text, request);
  }
});

test('the text ends where the next action of the catalog starts', () => {
  const s = steps(
    "When a booking is cancelled, DM them: sorry about that, flag it 'no-show'. Refund the deposit, max $40",
  );
  assert.deepEqual(
    s.map((x) => x.tool),
    ['message_patient', 'flag_booking', 'refund_deposit'],
  );
  assert.equal(s[0]!.args?.text, 'Sorry about that.');
  assert.equal(s[1]!.args?.flag, 'no-show');
  const d = draft('When a booking is cancelled, tell them: we are sorry. Then refund the deposit, up to $30');
  assert.deepEqual(
    d.spec?.steps.map((x) => ('tool' in x ? x.tool : '')),
    ['message_patient', 'refund_deposit'],
    JSON.stringify(d.questions),
  );
  assert.equal(d.spec?.limits.maxCostUsd, 30);
});

test('a messaging verb no tool names is the one messaging tool; an action no tool does stays a question', () => {
  for (const verb of ['DM', 'email', 'ping', 'message', 'msg']) {
    const s = steps(`When a booking is cancelled, ${verb} them "We are sorry."`);
    assert.equal(s[0]!.tool, 'message_patient', verb);
  }
  const text = draft('When a booking is cancelled, text them: we are sorry');
  assert.equal(text.publishable, false, 'no tool sends a text message');
  assert.ok(!text.spec?.steps.some((s) => 'tool' in s && s.tool === 'refund_deposit'));
  // Two tools that send messages: which one is the person's to say.
  const two: DraftCatalog = {
    ...clinic,
    tools: [
      ...clinic.tools,
      tool({
        name: 'notify_doctor',
        description: 'Notifies the doctor of a change.',
        args: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
      }),
    ],
  };
  assert.equal(draft('When a booking is cancelled, DM them: we are sorry', two).publishable, false);
});

test('words that do not speak to the person are no text', () => {
  // "let the doctor know once ...": nobody the catalog can message, and "once" leads a time, not words.
  assert.equal(draft('let the doctor know once a booking is cancelled').publishable, false);
  // "message them with the reason": the reason field, not the words "with the reason".
  const d = draft('When a booking is cancelled, message them with the reason');
  assert.notEqual(
    d.spec?.steps[0] && 'args' in d.spec.steps[0] ? d.spec.steps[0].args.text : '',
    'With the reason.',
  );
});

test('property: no word inside an unquoted text is read as a test, a cap, a duration or a step', () => {
  const trap = fc.constantFrom(
    'within',
    '2',
    'days',
    'hours',
    'otherwise',
    'no',
    'unless',
    'if',
    'please',
    'resubmit',
    '30',
    '$50',
    'over',
    'under',
    'a',
    'week',
    'never',
    'only',
    'twice',
    'tomorrow',
    'approved',
    'urgent',
    'we',
    'will',
    'call',
    'you',
    'fraud',
    'max',
  );
  const verb = fc.constantFrom('DM them', 'tell them', 'message them', 'email them', 'ping them', 'reply');
  fc.assert(
    fc.property(verb, fc.array(trap, { minLength: 2, maxLength: 12 }), (v, words) => {
      // Numbers or lone letters ("DM them: 2 2", "a a") are no sentence: the text is asked for (the test below).
      fc.pre(words.some((w) => /^[a-z]{2,}$/.test(w)));
      const said = words.join(' ');
      const request = `When a booking is cancelled, ${v}: ${said}`;
      const d = draft(request);
      assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
      assert.equal(d.spec!.steps.length, 1, request);
      const step = d.spec!.steps[0]!;
      assert.ok('tool' in step && step.tool === 'message_patient', request);
      assert.equal(step.args.text, asSentence(said), request);
      assert.equal(d.spec!.triggers[0]!.when, undefined, request);
      assert.equal(d.spec!.limits.maxCostUsd, 0, request);
    }),
    { numRuns: 200 },
  );
});

test('numbers or lone letters after a messaging verb are no text: the text is asked for, nothing else is read from them', () => {
  for (const said of ['2 2', 'a a']) {
    const d = draft(`When a booking is cancelled, DM them: ${said}`);
    assert.equal(d.publishable, false, said);
    assert.match(d.questions.map((q) => q.question).join('\n'), /message_patient's text/, said);
    assert.equal(d.partial?.triggers[0]?.when, undefined, said);
  }
});

test("a text that starts with the event's noun is still the text; 'send them:' sends it", () => {
  // "reply Booking cancelled, ...": the noun heads no channel ("email bookings: ..."), so the words are sent.
  assert.deepEqual(
    steps('when a booking is cancelled, reply Booking cancelled, we are sorry for the trouble'),
    [
      {
        tool: 'message_patient',
        args: {
          patient_id: '{{event.payload.patient_id}}',
          text: 'Booking cancelled, we are sorry for the trouble.',
        },
      },
    ],
  );
  // "send" leads a text only before a colon; the text is a message, for the catalog's one messaging tool.
  assert.deepEqual(steps('when a booking is cancelled, send them: sorry, we had to cancel your booking'), [
    {
      tool: 'message_patient',
      args: { patient_id: '{{event.payload.patient_id}}', text: 'Sorry, we had to cancel your booking.' },
    },
  ]);
  const link = draft('when a booking is cancelled, send them a link');
  assert.equal(link.publishable, false, 'no colon: "a link" is no text to send');
});

test('"message every patient with a friendly note so they know we saw it" gives no text: asked', () => {
  // The words after the verb say whom and how, not what: sent as they are, a patient would read
  // "Every patient with a friendly note so they know we saw it."
  const d = draft(
    'when a booking is cancelled, message every patient with a friendly note so they know we saw it',
  );
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.about === 'args: message_patient.text'),
    JSON.stringify(d.questions),
  );
});

test('a comma after whom the words go to leads words said to them ("message them, your slot ...")', () => {
  const got = steps('when a booking is cancelled, message them, your slot is free again, sorry');
  assert.deepEqual(
    got.map((x) => x.tool),
    ['message_patient'],
  );
  assert.equal(got[0]!.args.text, 'Your slot is free again, sorry.');
  // Words that speak to nobody after the comma are no text: the next action.
  const two = steps('when a booking is cancelled, message them "Cancelled.", then flag it "cancelled"');
  assert.deepEqual(
    two.map((x) => x.tool),
    ['message_patient', 'flag_booking'],
  );
});

test('mid-clause, a spaced dash after the verb and whom it goes to leads a text as a colon does', () => {
  const got = steps('when a booking is cancelled message them - sorry, your slot at <reason> is gone');
  assert.equal(got[0]!.tool, 'message_patient');
  assert.equal(got[0]!.args.text, 'Sorry, your slot at {{event.payload.reason}} is gone.');
});

test('a channel may come between the verb and the colon, and a spaced dash leads a text as a colon does', () => {
  const desk: DraftCatalog = {
    tools: [
      tool({
        name: 'post_to_channel',
        description: 'Posts a message in a chat channel.',
        args: {
          type: 'object',
          required: ['channel', 'text'],
          properties: {
            channel: { type: 'string', pattern: '^#[a-z0-9-]+$' },
            text: { type: 'string', minLength: 1 },
          },
          additionalProperties: false,
        },
        effect: 'external',
      }),
    ],
    events: [{ type: 'ticket.created', payload: ['title'] }],
  };
  for (const [request, text] of [
    [
      'when a ticket is created, post in #escalations: heads up, ticket <title> just came in',
      'Heads up, ticket {{event.payload.title}} just came in.',
    ],
    [
      'when a ticket is created, post in #escalations - new ticket: <title>',
      'New ticket: {{event.payload.title}}.',
    ],
  ] as const) {
    const d = draft(request, desk);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const step = d.spec!.steps[0]!;
    assert.ok('tool' in step);
    assert.deepEqual(step.args, { channel: '#escalations', text }, request);
  }
});

test('a spaced dash inside words said to the person, "afterwards" before the colon, "every <whom>" and a capitalised start', () => {
  for (const [request, text] of [
    // The dash is inside the text: the words before it already speak to the person.
    [
      'booking cancelled: email Sorry your slot is gone - we will call you to rebook',
      'Sorry your slot is gone - we will call you to rebook.',
    ],
    [
      'booking cancelled: flag it "cancelled". dm them afterwards: Your slot is free again',
      'Your slot is free again.',
    ],
    [
      'message every patient Got your cancellation - the desk will call shortly',
      'Got your cancellation - the desk will call shortly.',
    ],
    // "telling them" leads the words, as "saying" does; it is no part of them.
    [
      'when a booking is cancelled, just message them telling them we will call you to rebook',
      'We will call you to rebook.',
    ],
    // A capitalised word after a verb typed in lower case and whom it goes to starts the text.
    ['when a booking is cancelled, tell them Cancellation confirmed', 'Cancellation confirmed.'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const message = d.spec!.steps.find((s) => 'tool' in s && s.tool === 'message_patient');
    assert.ok(message && 'tool' in message, request);
    assert.equal(message.args?.text, text, request);
  }
  // Lower case after whom is no text by its capital: the words are asked for.
  const d = draft('when a booking is cancelled, tell them cancellation confirmed');
  assert.equal(d.publishable, false);
});

test('an unquoted text never swallows a restriction: "unless ..." ends it, "Not if ..." starts none', () => {
  const dash = draft('booking cancelled: message them we are sorry - unless the reason is weather');
  const message =
    dash.spec?.steps.find((s) => 'tool' in s && s.tool === 'message_patient') ??
    dash.partial?.steps.find((s) => 'tool' in s && s.tool === 'message_patient');
  assert.ok(message && 'tool' in message, JSON.stringify(dash));
  assert.equal(message.args?.text, 'We are sorry.');
  // A restriction said to the person is their words.
  const yours = draft('booking cancelled: message them we can only rebook once unless you call us');
  assert.equal(
    (yours.spec ?? yours.partial)?.steps.find((s) => 'tool' in s)?.args?.text,
    'We can only rebook once unless you call us.',
  );
  const not = draft('booking cancelled: tell them Not if they cancelled late');
  const said = (not.spec ?? not.partial)?.steps.find((s) => 'tool' in s && s.tool === 'message_patient');
  assert.ok(!(said && 'tool' in said && String(said.args?.text).startsWith('Not if')), JSON.stringify(not));
  // A spaced dash before an action of the catalog ends the text.
  const close = draft(
    "booking cancelled: message them sorry for the trouble - we are on it - flag it 'cancelled'",
  );
  assert.equal(close.publishable, true, JSON.stringify(close.questions));
  assert.deepEqual(
    close.spec!.steps.map((s) => ('tool' in s ? [s.tool, s.args.text ?? s.args.flag] : [])),
    [
      ['message_patient', 'Sorry for the trouble - we are on it.'],
      ['flag_booking', 'cancelled'],
    ],
  );
});

test('the action said again before the words ("message them, just let them know ...") is one step with those words', () => {
  for (const [request, text] of [
    [
      "when a booking is cancelled, message every patient, just let them know we'll call to rebook",
      "We'll call to rebook.",
    ],
    [
      "when a booking is cancelled, message the patient, tell them we'll call to rebook",
      "We'll call to rebook.",
    ],
    ["when a booking is cancelled, message them, please let them know we'll call", "We'll call."],
  ] as const) {
    const got = steps(request);
    assert.deepEqual(
      got.map((x) => x.tool),
      ['message_patient'],
      request,
    );
    assert.equal(got[0]!.args.text, text, request);
  }
  // Words that report what to say ("roughly when we'll call them") are no text: asked.
  for (const request of [
    "when a booking is cancelled, message them and let them know roughly when we'll call them",
    "when a booking is cancelled, let them know what we'll do",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    assert.doesNotMatch(JSON.stringify(d.spec ?? d.partial ?? {}), /Roughly|What we/, request);
  }
});

test('another person told after the first ("..., then message the front desk we ...") is never the first one\'s text; a sentence with an action of its own ends a text', () => {
  const d = draft(
    'when a booking is cancelled, message the patient, then message the front desk we have a free slot',
  );
  const [first] = (d.spec ?? d.partial)?.steps ?? [];
  assert.doesNotMatch(first && 'args' in first ? String(first.args.text ?? '') : '', /free slot/i);
  const e = draft(
    "when a booking is cancelled, message them: sorry. with a deposit over 50, flag it 'refund-check'",
  );
  const text = ((e.spec ?? e.partial)?.steps ?? [])
    .map((s) => ('args' in s ? String(s.args.text ?? '') : ''))
    .join('|');
  assert.doesNotMatch(text, /deposit over/i);
});

test('", and <verb> in #channel" ends a text', () => {
  const withChannel: DraftCatalog = {
    ...clinic,
    tools: [
      ...clinic.tools,
      tool({
        name: 'post_channel',
        description: 'Posts to a team channel.',
        args: {
          type: 'object',
          required: ['channel', 'text'],
          properties: { channel: { type: 'string', pattern: '^#[a-z-]+$' }, text: { type: 'string' } },
        },
      }),
    ],
  };
  const e = draftSpec(
    compileRequest(
      "when a booking is cancelled, message them we'll call, and post in #desk: slot free",
      withChannel,
    ),
    withChannel,
  );
  assert.equal(e.publishable, true, JSON.stringify(e.questions));
  assert.deepEqual(
    e.spec!.steps.map((s) => ('args' in s ? [s.tool, s.args.text] : [])),
    [
      ['message_patient', "We'll call."],
      ['post_channel', 'Slot free.'],
    ],
  );
});
