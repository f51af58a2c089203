/**
 * Issue 30, safety: in every draft, every word of the request is read (trigger, condition, step,
 * argument, cap, assumption) or asked about — a restriction, an extra action or a schedule the
 * grammar cannot express is never dropped from a publishable draft, whether or not it moves money.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

test('a restriction, an extra action or a schedule left unread in a money draft is a question', () => {
  for (const [r, word] of [
    ['refund anyone under $50 but knock the shipping off first', 'knock'],
    ['after refunding a refund request (up to $40) fax the customer a receipt', 'fax'],
    ['refund requests on the first of every month, up to $30', 'month'],
  ] as const) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => q.question.includes(`"${word}"`)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('a draft whose every word is read stays publishable, with money or without', () => {
  for (const r of [
    'refund anyone under $50',
    'refund requets under $15: refund them',
    'When a refund is requested, reply "On it" and refund them, never spend more than $40 please',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  }
  for (const r of [
    'when a refund is requested tag it billing',
    'refund requests: tag it billing and reply "On it"',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  }
});

test('a draft that moves no money drops no restriction either: "tag refund requests about crypto" is asked', () => {
  for (const [r, word] of [
    ['when a refund is requested tag it billing, cheerfully', 'cheerfully'],
    ['tag refund requests about crypto billing', 'crypto'],
    ['refund requests that mention slurs: tag it abuse', 'slurs'],
  ] as const) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => q.question.includes(word)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('property: an unread restriction added to a draftable request that moves no money is never dropped', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('when a refund is requested tag it billing', 'refund requests: reply "On it"'),
      fc.constantFrom('about', 'that mention', 'from', 'for', 'with'),
      fc.constantFrom('crypto', 'slurs', 'resellers', 'wholesale accounts', 'gift cards'),
      (request, lead, rest) => {
        const r = request.replace(/refund (is requested|requests)/, (m) => `${m} ${lead} ${rest}`);
        const d = draft(r);
        assert.equal(d.publishable, false, `${r}: ${JSON.stringify(d.spec?.triggers)}`);
      },
    ),
  );
});

test('property: an unread clause added to a draftable money request never leaves a publishable draft without it', () => {
  const draftable = [
    'refund anyone under $50',
    'When a refund is requested, reply "On it" and refund them, max $40',
    'refund requests under $25: tag it refund then refund it',
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...draftable),
      fc.constantFrom('but', 'and', 'then', '', 'also'),
      fc.constantFrom('deduct', 'knock', 'fax', 'subtract', 'split', 'convert', 'round'),
      fc.constantFrom('the shipping', 'the tip', 'the vendor a memo', 'the fee off', 'it with the bank'),
      (request, join, verb, rest) => {
        const d = draft(`${request} ${join} ${verb} ${rest}`.replace(/\s+/g, ' '));
        if (!d.publishable) return;
        // Publishable only if some step reads the clause: never with the words dropped.
        assert.fail(`${request} ${join} ${verb} ${rest}: ${JSON.stringify(toolSteps(d.spec!))}`);
      },
    ),
    { numRuns: 150 },
  );
});

test('a destructive draft reads every word too: a restriction it cannot express is asked, never dropped', () => {
  const access: DraftCatalog = {
    tools: [
      {
        ...supportDeskCatalog()[0]!,
        name: 'grant_access',
        description: 'Grants a role on a system to an employee. Widens who can do what: destructive.',
        args: {
          type: 'object',
          required: ['employee_id', 'role'],
          properties: { employee_id: { type: 'string' }, role: { type: 'string' } },
          additionalProperties: false,
        },
        destructive: true,
        effect: 'write',
      },
    ],
    events: [{ type: 'access.requested', payload: ['role'], values: { role: ['viewer', 'editor'] } }],
  };
  const d = draftSpec(compileRequest('viewer requests from contractors get granted', access), access);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('"contractors"')),
    JSON.stringify(d.questions),
  );
  // Every word read (a value the words give an argument included): publishable.
  const ok = draftSpec(compileRequest('viewer requests get granted', access), access);
  assert.equal(ok.publishable, true, JSON.stringify(ok.questions));
});

test('a word said as a restriction is unread even when the text to send repeats it', () => {
  const r =
    'when a refund is requested, refund it up to $40 for outlet buyers, and reply "Thanks, outlet buyers!"';
  const d = draft(r);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.question.includes('"outlet"')),
    JSON.stringify(d.questions),
  );
  // So is one a quoted tag repeats: the quote is read, the word said of the events is not.
  const tag = draft('when a ticket is created, tag outlet tickets "outlet"');
  assert.equal(tag.publishable, false, JSON.stringify(tag.spec));
  assert.ok(
    tag.questions.some((q) => q.question.includes('"outlet"')),
    JSON.stringify(tag.questions),
  );
});

test('the words a reading consumed are read: a participle, a hyphenated word, a route and its response time', async () => {
  const { tool } = await import('../../../test/authoring/catalog-tool.ts');
  const desk: DraftCatalog = {
    tools: [
      tool({
        name: 'hide_post',
        description: 'Hides a post from the feed.',
        args: {
          type: 'object',
          required: ['post_id'],
          properties: { post_id: { type: 'string' }, reason: { type: 'string', enum: ['spam', 'abuse'] } },
        },
      }),
      tool({
        name: 'assign_ticket',
        description: 'Assigns a ticket to a support queue with a response target.',
        args: {
          type: 'object',
          required: ['ticket_id', 'team', 'respond_within_hours'],
          properties: {
            ticket_id: { type: 'string' },
            team: { type: 'string', enum: ['tier-1', 'tier-2'] },
            respond_within_hours: { type: 'integer', minimum: 1, maximum: 72 },
          },
        },
      }),
      tool({
        name: 'page_oncall',
        description: 'Pages the oncall engineer of a service.',
        args: { type: 'object', required: ['service'], properties: { service: { type: 'string' } } },
      }),
    ],
    events: [
      { type: 'post.reported', payload: ['report_count'] },
      { type: 'ticket.created', payload: ['priority'] },
      { type: 'alert.fired', payload: ['service'] },
    ],
  };
  for (const r of [
    'reported posts with more than 10 reports get hidden',
    // The name of an argument said with its value.
    'hide reported posts with reason spam',
    'when an alert fires, page the on-call for its service',
    'every new ticket: drop it in the tier-1 queue, 24h response target',
  ]) {
    const d = draftSpec(compileRequest(r, desk), desk);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  }
  const d = draftSpec(compileRequest('reported posts about crypto get hidden', desk), desk);
  assert.ok(
    d.questions.some((q) => q.question.includes('"crypto"')),
    JSON.stringify(d.questions),
  );
  // A hyphenated test made of grammar words, a participle no step does, a number no reader took.
  for (const [r, word] of [
    ['hide first-time reported posts', 'first-time'],
    ['when an alert fires for hidden services, page the oncall for its service', 'hidden'],
    ['hide reported posts flagged 4 times', '4'],
    // An id or a range no reading holds.
    ['hide reported posts from U-42', 'u-42'],
    ['hide reported posts with 9-10 reports', '9-10'],
  ] as const) {
    const x = draftSpec(compileRequest(r, desk), desk);
    assert.equal(x.publishable, false, `${r}: ${JSON.stringify(x.spec)}`);
    assert.ok(
      x.questions.some((q) => q.question.includes(word)),
      `${r}: ${JSON.stringify(x.questions)}`,
    );
  }
});

test('a hyphenated value a step holds ("for non-payment") and two catalog words joined ("the policyholder") are read', async () => {
  const { tool } = await import('../../../test/authoring/catalog-tool.ts');
  const policies: DraftCatalog = {
    tools: [
      tool({
        name: 'cancel_policy',
        description: 'Cancels a policy. Cannot be undone.',
        destructive: true,
        args: {
          type: 'object',
          required: ['policy_id', 'reason'],
          properties: { policy_id: { type: 'string' }, reason: { enum: ['non_payment', 'fraud'] } },
        },
      }),
      tool({
        name: 'email_holder',
        description: 'Emails the policy holder.',
        args: {
          type: 'object',
          required: ['policy_id', 'body'],
          properties: { policy_id: { type: 'string' }, body: { type: 'string' } },
        },
      }),
    ],
    events: [{ type: 'policy.lapsed', payload: ['plan'] }],
  };
  for (const r of [
    'when a policy lapses, cancel it for non-payment',
    "when a policy lapses, email the policyholder 'Your cover has lapsed.'",
  ]) {
    const d = draftSpec(compileRequest(r, policies), policies);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  }
  // A word made of a catalog word and a word of nothing ("policyblah") is still unread.
  const d = draftSpec(
    compileRequest("when a policy lapses, email the policyblahblah 'Hi.'", policies),
    policies,
  );
  assert.equal(d.publishable, false);
});

test('a count said in words that nothing reads is asked about, as one in digits is', () => {
  for (const r of [
    'when a refund is requested, refund it on attempt four, max $50',
    'when a refund is requested, refund it on attempt 4, max $50',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, `${r}: ${JSON.stringify(d.spec)}`);
    assert.match(d.questions.map((q) => q.question).join('\n'), /could not read "(?:four|4)"/, r);
  }
  // Read words stay read: a number in a money bound, and "one" (also a pronoun).
  const d = draft('when a refund is requested, refund the one they asked for, max fifty dollars');
  assert.ok(
    !d.questions.some((q) => /could not read "(?:one|fifty)"/.test(q.question)),
    JSON.stringify(d.questions),
  );
});

test('a field named whole after a negation, read nowhere in the draft, is asked about', () => {
  const trials: DraftCatalog = {
    tools: catalog.tools,
    events: [{ type: 'ticket.opened', payload: ['activated', 'seats'] }],
  };
  const d = draftSpec(
    compileRequest('when a ticket is opened, tag it trial for not activated accounts', trials),
    trials,
  );
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.match(
    d.questions.map((q) => q.question).join('\n'),
    /"activated" names the ticket\.opened event's activated/,
  );
});
