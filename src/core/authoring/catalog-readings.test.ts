/**
 * Readings that come from what the catalog declares, over a catalog no set uses (product reviews):
 * a bound on what an event counts ("flagged 5 or more times", "10+ flags": grammar/read-count-tests.ts),
 * a yes/no argument said in words ("keep an archive copy", "no archive copy": read-yes-no.ts), a
 * value the sample events show said before the event's noun ("fake reviews": which ones), an enum
 * argument taken from the one event field whose sample values are all its own, and a heading
 * that is the event's own participle ("flagged reviews:"). Each is read back under "Assumed".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const REASONS = ['fake', 'offensive', 'off-topic', 'other'];
const reviews: DraftCatalog = {
  tools: [
    tool({
      name: 'hide_review',
      description: 'Hides a review from shoppers until a moderator looks at it.',
      args: {
        type: 'object',
        required: ['review_id', 'reason'],
        properties: { review_id: { type: 'string' }, reason: { enum: REASONS } },
      },
    }),
    tool({
      name: 'delete_review',
      description: 'Deletes a review for good. Cannot be undone.',
      destructive: true,
      args: {
        type: 'object',
        required: ['review_id', 'reason', 'archive_copy'],
        properties: {
          review_id: { type: 'string' },
          reason: { enum: REASONS },
          archive_copy: { type: 'boolean' },
        },
      },
    }),
  ],
  events: [
    {
      type: 'review.flagged',
      payload: ['flag_count', 'category', 'reviewer_id'],
      values: { category: ['fake', 'offensive'] },
    },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, reviews), reviews);
const ok = (r: string) => {
  const d = draft(r);
  assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  return { spec: d.spec!, assumed: (d.readBack?.assumed ?? []).join('\n') };
};

/** A tool whose note the words (or a placeholder) fill. */
const replyToReviewer = tool({
  name: 'reply_to_reviewer',
  description: 'Replies to the reviewer.',
  args: {
    type: 'object',
    required: ['reviewer_id', 'note'],
    properties: { reviewer_id: { type: 'string' }, note: { type: 'string' } },
  },
});

test('a bound on what the event counts is a test of its count field, never money', () => {
  for (const [request, when] of [
    ['when a review gets flagged 5 or more times, hide it', 'payload.flag_count >= 5'],
    ['flagged reviews with 10+ flags -> hide them', 'payload.flag_count >= 10'],
    ['hide reviews with more than three flags', 'payload.flag_count > 3'],
    ['reviews flagged at least 2 times -> hide', 'payload.flag_count >= 2'],
    // The count reached: "flagged 5 times" is 5 flags or more, as the field counts flags.
    ['when a review gets flagged 5 times, hide it', 'payload.flag_count >= 5'],
    ['hide a review flagged three times', 'payload.flag_count >= 3'],
    // Past the number ("passes", "tops", "exceeds"), and times said in a word or with a bound.
    ['any review that passes 20 flags gets hidden', 'payload.flag_count > 20'],
    ['hide reviews flagged more than twice', 'payload.flag_count > 2'],
    ['hide reviews flagged twice', 'payload.flag_count >= 2'],
    ['hide reviews flagged 4 times or more', 'payload.flag_count >= 4'],
    ['hide reviews flagged twice or less', 'payload.flag_count <= 2'],
    ['hide reviews flagged 3 times or fewer', 'payload.flag_count <= 3'],
    ['hide reviews that exceed 5 flags', 'payload.flag_count > 5'],
  ] as const) {
    const { spec, assumed } = ok(request);
    assert.equal(spec.triggers[0]?.when, when, request);
    assert.equal(spec.limits.maxCostUsd, 0, request);
    assert.match(assumed, /flag_count/, request);
  }
});

test('an else that does nothing is no step: the test stands alone, read back under Assumed', () => {
  for (const request of [
    'hide reviews with more than three flags, otherwise do nothing',
    'hide reviews with more than three flags. else just leave them alone',
    'hide reviews with more than three flags; if not, ignore it',
    'hide reviews with more than three flags. anything else, leave it',
    'hide reviews with more than three flags, nobody else',
  ]) {
    const { spec, assumed } = ok(request);
    assert.equal(spec.triggers[0]?.when, 'payload.flag_count > 3', request);
    assert.equal(spec.steps.length, 1, request);
    assert.match(assumed, /is read as no step: nothing runs when the test before it does not hold/, request);
  }
});

test('a yes/no argument said in words is its value; said both ways, or for no step, it is asked', () => {
  const arg = (r: string) => {
    const s = ok(r).spec.steps[0]!;
    return 'args' in s ? s.args.archive_copy : undefined;
  };
  assert.equal(arg('delete fake reviews, keep an archive copy'), true);
  assert.equal(arg('delete fake reviews with no archive copy'), false);
  assert.equal(arg('delete fake reviews without an archive copy please'), false);
  // The value said after the name: "archive copy = no" is false, never the "with" before it.
  assert.equal(arg('delete fake reviews with archive copy = no'), false);
  assert.equal(arg('delete fake reviews, archive copy: yes'), true);
  assert.equal(arg('delete fake reviews, archive copy is off'), false);
  assert.equal(draft('delete fake reviews with archive copy, no archive copy').publishable, false);
  const unused = draft('hide fake reviews, keep an archive copy');
  assert.equal(unused.publishable, false);
  assert.match(unused.questions.map((q) => q.question).join('\n'), /archive_copy/);
});

test('a sample value said before the event noun says which events; the enum argument takes that field', () => {
  const { spec, assumed } = ok('hide fake reviews');
  assert.equal(spec.triggers[0]?.when, 'payload.category == "fake"');
  const step = spec.steps[0]!;
  assert.equal('args' in step ? step.args.reason : undefined, '{{event.payload.category}}');
  assert.match(assumed, /hide_review's reason is read as the review\.flagged event's category/);
  // A destructive step never runs on every event because a value was read as its argument only.
  assert.equal(
    ok('delete offensive reviews, no archive copy').spec.triggers[0]?.when,
    'payload.category == "offensive"',
  );
});

test("a heading that is the event type's own participle is the trigger, not an action", () => {
  const { spec } = ok('flagged reviews: hide them');
  assert.equal(spec.triggers[0]?.event, 'review.flagged');
  assert.deepEqual(
    spec.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['hide_review'],
  );
});

test('property: any count bound said in any form gives that exact test and a $0 cap', () => {
  const forms: [string, string][] = [
    ['{n} or more flags', '>='],
    ['{n}+ flags', '>='],
    ['at least {n} flags', '>='],
    ['more than {n} flags', '>'],
    ['fewer than {n} flags', '<'],
    ['{n} flags or fewer', '<='],
  ];
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(...forms), (n, [form, op]) => {
      const request = `hide reviews with ${form.replace('{n}', String(n))}`;
      const { spec } = ok(request);
      assert.equal(spec.triggers[0]?.when, `payload.flag_count ${op} ${n}`, request);
      assert.equal(spec.limits.maxCostUsd, 0, request);
    }),
    { numRuns: 300 },
  );
});

test('an action verb before the event noun at the start is the action, never a word qualifying the event', () => {
  const claims: DraftCatalog = {
    tools: [
      tool({
        name: 'pay_claim',
        description: 'Pays out an insurance claim.',
        effect: 'external',
        cost: { fromArg: 'amount_usd' },
        args: {
          type: 'object',
          required: ['claim_id', 'amount_usd'],
          properties: { claim_id: { type: 'string' }, amount_usd: { type: 'number' } },
        },
      }),
    ],
    events: [{ type: 'claim.submitted', payload: ['amount_usd'] }],
  };
  for (const request of ['pay claims under 200', 'pay claims, max 200']) {
    const d = draftSpec(compileRequest(request, claims), claims);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['pay_claim'],
    );
    assert.equal(d.spec?.limits.maxCostUsd, 200);
  }
});

/** The reviews catalog with a tool that takes a free-text note. */
const withNote: DraftCatalog = {
  ...reviews,
  tools: [
    ...reviews.tools,
    tool({
      name: 'reply_to_reviewer',
      description: 'Replies to the reviewer.',
      args: {
        type: 'object',
        required: ['reviewer_id', 'note'],
        properties: { reviewer_id: { type: 'string' }, note: { type: 'string', minLength: 1 } },
      },
    }),
  ],
};

test('text said for an argument by its name ("note: ...") is that argument, never an action', () => {
  for (const [request, note] of [
    ['flagged reviews: reply to the reviewer, note: we are looking into it', 'We are looking into it.'],
    [
      'when a review is flagged, reply to the reviewer, note = thanks for the heads up; hide it',
      'Thanks for the heads up.',
    ],
  ] as const) {
    const d = draftSpec(compileRequest(request, withNote), withNote);
    const reply = d.spec?.steps.find((s) => 'tool' in s && s.tool === 'reply_to_reviewer');
    assert.ok(reply && 'args' in reply, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(reply.args.note, note, request);
    assert.match((d.readBack?.assumed ?? []).join('\n'), /is read as the text .* for note/);
  }
});

test('a text after "with the note", with no colon, that may hold a test or an action is not read as the note: asked', () => {
  // ("with note thanks unless it is offensive": the note ends at "unless", whose test is kept.)
  const kept = draftSpec(
    compileRequest(
      'flagged reviews: reply to the reviewer with note thanks unless it is offensive',
      withNote,
    ),
    withNote,
  );
  assert.deepEqual(kept.spec?.triggers, [
    { event: 'review.flagged', when: 'payload.category != "offensive"' },
  ]);
  for (const request of [
    'flagged reviews: reply to the reviewer with note thanks if it is fake',
    'flagged reviews: reply to the reviewer with note thanks, but only for fake ones',
    'flagged reviews: reply to the reviewer with the note thanks so hide it',
    'flagged reviews: reply to the reviewer with the note thanks or hide it',
  ]) {
    const d = draftSpec(compileRequest(request, withNote), withNote);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec?.steps)}`);
  }
});

test("a heading naming one event's noun is that event, though an action's words name another; 'post ...: <text>' is the text", () => {
  const site: DraftCatalog = {
    tools: [
      tool({
        name: 'post_notice',
        description: 'Posts a notice on the visitor board.',
        effect: 'external',
        args: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string', minLength: 1 } },
        },
      }),
    ],
    events: [
      { type: 'alarm.raised', payload: ['site', 'level'], values: { level: ['critical', 'minor'] } },
      { type: 'post.published', payload: ['author'] },
    ],
  };
  const d = draftSpec(
    compileRequest('critical alarms: post on the visitor board: Site 3 is closed, sorry about that', site),
    site,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec?.triggers, [{ event: 'alarm.raised', when: 'payload.level == "critical"' }]);
  const step = d.spec!.steps[0]!;
  assert.equal('args' in step ? step.args.message : undefined, 'Site 3 is closed, sorry about that.');
  assert.match((d.readBack?.assumed ?? []).join('\n'), /The workflow starts on alarm\.raised/);
});

test('an alternative the words give ("otherwise", "anything else") with no branch in the draft is asked, a model draft too', () => {
  const hide = { name: 'h', tool: 'hide_review', args: { review_id: '{{event.subject}}', reason: 'fake' } };
  const del = {
    name: 'd',
    tool: 'delete_review',
    args: { review_id: '{{event.subject}}', reason: 'fake', archive_copy: true },
  };
  const model = (request: string, steps: unknown[]) =>
    modelDrafted(
      {
        triggers: [{ event: 'review.flagged', when: 'payload.flag_count >= 10' }],
        steps,
        limits: { maxSteps: steps.length, maxCostUsd: 0 },
      },
      request,
      reviews,
    );
  for (const request of [
    'reviews with 10+ flags: hide them. Otherwise, delete them and keep an archive copy',
    'reviews with 10+ flags -> hide; anything else -> delete, keep an archive copy',
  ]) {
    const d = model(request, [hide, del]);
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => q.about === 'safety' && /has no branch for it/.test(q.question)),
      request,
    );
  }
  // "Otherwise" inside the text sent, or "otherwise nothing", is no alternative.
  const reply = {
    name: 'r',
    tool: 'reply_to_reviewer',
    args: { reviewer_id: '{{event.payload.reviewer_id}}', note: 'Thanks, otherwise all is well.' },
  };
  const withNote: DraftCatalog = {
    ...reviews,
    tools: [...reviews.tools, replyToReviewer],
  };
  for (const request of [
    'reviews with 10+ flags: reply to the reviewer: thanks, otherwise all is well',
    'reviews with 10+ flags: reply to the reviewer "Thanks, otherwise all is well." otherwise nothing',
  ]) {
    const d = modelDrafted(
      {
        triggers: [{ event: 'review.flagged', when: 'payload.flag_count >= 10' }],
        steps: [reply],
        limits: { maxSteps: 1, maxCostUsd: 0 },
      },
      request,
      withNote,
    );
    assert.ok(!d.questions.some((q) => /has no branch for it/.test(q.question)), request);
  }
});

test('a text the request gives that no step uses is asked about, never dropped', () => {
  for (const request of [
    'hide fake reviews & msg the owner: review hidden',
    'hide fake reviews, then "all done"',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => /no step of the draft uses it/.test(q.question)),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('a verb naming an action no tool does is asked about, never the tool another action in its object names', () => {
  const d = draft('flagged reviews: email the owner the deletion notice');
  assert.equal(d.publishable, false);
  const s = d.spec ?? d.partial;
  assert.ok(
    !(s?.steps ?? []).some((x) => 'tool' in x && x.tool === 'delete_review'),
    JSON.stringify(s?.steps),
  );
});

test('a placeholder in a text names what the run fills in; one naming nothing the event carries is asked', () => {
  const withNote: DraftCatalog = {
    ...reviews,
    tools: [replyToReviewer],
  };
  const note = (request: string) => {
    const d = draftSpec(compileRequest(request, withNote), withNote);
    const s = (d.spec ?? d.partial)?.steps[0];
    return { d, note: s && 'args' in s ? s.args.note : undefined };
  };
  const ok1 = note('flagged reviews: reply to the reviewer "Review <review id> has <flag count> flags"');
  assert.equal(ok1.d.publishable, true, JSON.stringify(ok1.d.questions));
  assert.equal(ok1.note, 'Review {{event.subject}} has {{event.payload.flag_count}} flags');
  assert.match((ok1.d.readBack?.assumed ?? []).join('\n'), /"<flag count>" in reply_to_reviewer's note/);
  const unknown = note('flagged reviews: reply to the reviewer "Hi <first name>"');
  assert.equal(unknown.d.publishable, false);
  assert.match(unknown.d.questions.map((q) => q.question).join('\n'), /<first name>, which names nothing/);
});

test('a placeholder that is the event\'s noun is its subject, before a field that only holds the noun ("<review>" is no review_type)', () => {
  const typed: DraftCatalog = {
    tools: [replyToReviewer],
    events: [{ type: 'review.flagged', payload: ['review_type', 'reviewer_id'] }],
  };
  const d = draftSpec(
    compileRequest(
      'flagged reviews: reply to the reviewer "Review <review> is hidden; its type was <review type>."',
      typed,
    ),
    typed,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const s = d.spec!.steps[0]!;
  assert.equal(
    'args' in s ? s.args.note : undefined,
    'Review {{event.subject}} is hidden; its type was {{event.payload.review_type}}.',
  );
});

test("a value of the action's own said right after its amount is its argument, never a test of the event's field", () => {
  const billing: DraftCatalog = {
    tools: [
      tool({
        name: 'issue_credit',
        description: 'Credits an account. Moves money.',
        cost: { fromArg: 'amount_usd' },
        args: {
          type: 'object',
          required: ['account_id', 'amount_usd'],
          properties: {
            account_id: { type: 'string' },
            amount_usd: { type: 'number' },
            reason: { enum: ['goodwill', 'retention'] },
          },
        },
      }),
    ],
    events: [{ type: 'subscription.cancelled', payload: ['plan', 'reason'] }],
  };
  const d = draftSpec(
    compileRequest('when a subscription is cancelled, credit them $50 for retention', billing),
    billing,
  );
  assert.equal(d.spec?.triggers[0]?.when, undefined, JSON.stringify(d.spec ?? d.partial));
  const step = d.spec?.steps[0];
  assert.equal(step && 'args' in step ? step.args.reason : undefined, 'retention');
});

test("a tool's list of the same name that shares no value with the samples is another scale, never the event's values", () => {
  const SEVS = ['sev1', 'sev2', 'sev3'];
  const oncall: DraftCatalog = {
    tools: [
      tool({
        name: 'open_incident',
        description: 'Opens an incident.',
        args: {
          type: 'object',
          required: ['title', 'severity'],
          properties: { title: { type: 'string' }, severity: { enum: SEVS } },
        },
      }),
    ],
    events: [
      {
        type: 'alert.fired',
        payload: ['service', 'severity'],
        values: { severity: ['critical', 'warning'] },
      },
    ],
  };
  const d = draftSpec(compileRequest('sev1 alerts: open a sev1 incident titled "down"', oncall), oncall);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(!(d.spec ?? d.partial)?.triggers[0]?.when?.includes('sev1'), JSON.stringify(d.partial));
  // Where the list and the samples share a value, the list is the event's.
  const same: DraftCatalog = {
    ...oncall,
    events: [
      { type: 'alert.fired', payload: ['service', 'severity'], values: { severity: ['sev1', 'sev3'] } },
    ],
  };
  const s = draftSpec(compileRequest('sev2 alerts: open a sev2 incident titled "down"', same), same);
  assert.ok(
    s.questions.some((q) => q.candidates?.includes('only alert.fired events whose severity is "sev2"')),
    JSON.stringify(s.questions),
  );
});

test('a yes/no a tool fixes, said the other way, is asked about; said its way, it is read', () => {
  const grants: DraftCatalog = {
    tools: [
      tool({
        name: 'grant_access',
        destructive: true,
        description: 'Grants access to a system.',
        args: {
          type: 'object',
          required: ['employee_id', 'active'],
          properties: { employee_id: { type: 'string' }, active: { const: true } },
        },
      }),
    ],
    events: [{ type: 'access.requested', payload: ['system'] }],
  };
  const d = draftSpec(
    compileRequest('when access is requested, grant access w/ active = no', grants),
    grants,
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith('The request says "active = no", but active is always true'),
    ),
    JSON.stringify(d.questions),
  );
  const yes = draftSpec(
    compileRequest('when access is requested, grant access, active: yes', grants),
    grants,
  );
  assert.ok(!yes.questions.some((q) => /always true/.test(q.question)), JSON.stringify(yes.questions));
});
