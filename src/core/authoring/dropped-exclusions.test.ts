/**
 * What a request's own words say and its draft drops (dropped-exclusions.ts, fields-read-nowhere.ts,
 * draft-safety.ts). An exclusion no test of the draft says: "cancel for
 * non-payment, but not premium plans" drafted as a cancellation of every lapsed policy is asked
 * about, whatever compiled it; one a test says ("but not basic plans": `plan != "basic"`), a bound
 * ("but not more than $50") or a forbidden action ("tag it but not cancel it") is no such
 * exclusion. Over a lapsed-policies desk of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { compileRequest } from './compile-request.ts';
import { droppedExclusion, testedThoughNotMattering } from './dropped-exclusions.ts';
import { fieldsReadNowhere, possessionsReadNowhere } from './fields-read-nowhere.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const policy = { type: 'string', pattern: '^POL-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'cancel_policy',
      destructive: true,
      description: 'Cancels a policy whose premiums are not paid.',
      args: {
        type: 'object',
        required: ['policy_id', 'reason'],
        properties: { policy_id: policy, reason: { type: 'string', enum: ['non_payment', 'fraud'] } },
      },
    }),
    tool({
      name: 'tag_policy',
      description: 'Tags a policy.',
      args: {
        type: 'object',
        required: ['policy_id', 'tag'],
        properties: { policy_id: policy, tag: { type: 'string' } },
      },
    }),
  ],
  events: [
    {
      type: 'policy.lapsed',
      payload: ['plan', 'missed_payments', 'open_claims'],
      values: { plan: ['basic', 'standard'] },
      subjects: ['POL-1'],
    },
  ],
};
const spec = (when?: string): WorkflowSpec =>
  ({
    id: 'x',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'policy.lapsed', ...(when ? { when } : {}) }],
    steps: [
      { name: 'c', tool: 'cancel_policy', args: { policy_id: '{{event.subject}}', reason: 'non_payment' } },
    ],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  }) as WorkflowSpec;

test('an exclusion no test says is found; one a test says, a bound or a forbidden action is not', () => {
  assert.equal(
    droppedExclusion('cancel for non-payment, but not premium plans', spec()),
    'but not premium plans',
  );
  assert.equal(droppedExclusion('cancel them, not premium though', spec()), ', not premium though');
  assert.equal(
    droppedExclusion('cancel if 3 or more missed, except premium', spec('payload.missed_payments >= 3')),
    'except premium',
  );
  assert.equal(droppedExclusion('cancel it but not basic plans', spec('payload.plan != "basic"')), undefined);
  // A test that keeps what the words leave out is the opposite, not a reading of them.
  assert.equal(
    droppedExclusion('cancel it, except plan "basic"', spec('payload.plan == "basic"')),
    'except plan "basic"',
  );
  assert.equal(
    droppedExclusion(
      "cancel it unless it's over 3 missed or it's a basic plan",
      spec('payload.plan == "basic"'),
    ),
    "unless it's over 3 missed or it's a basic plan",
  );
  assert.equal(
    droppedExclusion('cancel it unless the plan is basic', spec('payload.plan != "basic"')),
    undefined,
  );
  // A test is read as it acts: under a "not", `==` leaves out what it names, and a number test
  // written literal first points the way it reads.
  assert.equal(
    droppedExclusion('cancel it unless the plan is basic', spec('not (payload.plan == "basic")')),
    undefined,
  );
  assert.equal(
    droppedExclusion(
      'cancel lapsed policies unless the plan is basic or there are under 3 missed payments',
      spec('3 > payload.missed_payments and payload.plan != "basic"'),
    ),
    'unless the plan is basic or there are under 3 missed payments',
  );
  assert.equal(droppedExclusion('cancel it but not more than twice', spec()), undefined);
  // Named by a value, the field alone is no reading: "standard" is kept where only "basic" is left out.
  assert.equal(
    droppedExclusion(
      'cancel it except basic or standard plans',
      spec('payload.plan != "basic" and payload.plan == "standard"'),
    ),
    'except basic or standard plans',
  );
  // No exclusion: a quoted text, a double negative, another value for a step's argument.
  assert.equal(
    droppedExclusion('email them "Unless you upgrade, you lose <seats> seats."', spec()),
    undefined,
  );
  assert.equal(droppedExclusion('cancel it unless the plan is not basic', spec()), undefined);
  assert.equal(droppedExclusion('cancel it for non-payment, not as fraud', spec(), desk.tools), undefined);
  assert.equal(
    droppedExclusion('cancel it for non-payment, not premium', spec(), desk.tools),
    ', not premium',
  );
});

test('a draft that acts on the events the words leave out is asked about, whatever compiled it', () => {
  const request = 'policy lapsed: cancel for non-payment, but not premium plans';
  const offline = draftSpec(compileRequest(request, desk), desk);
  const model = modelDrafted(spec(), request, desk);
  for (const d of [offline, model]) {
    assert.equal(d.publishable, false, JSON.stringify(d.spec));
    assert.ok(
      d.questions.some((q) =>
        q.question.startsWith('The request says "but not premium plans", but no test of the draft leaves'),
      ),
      JSON.stringify(d.questions),
    );
  }
  // Said by a test, or a forbidden action: no such question.
  for (const r of [
    'policy lapsed: cancel for non-payment, but not basic plans',
    'policy lapsed: tag it lapsed but not cancel it',
  ]) {
    const d = draftSpec(compileRequest(r, desk), desk);
    assert.ok(
      !d.questions.some((q) => /no test of the draft leaves those events out/.test(q.question)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('a field named in its words and read nowhere is found and asked about; one tested, sent or said not to matter is not', () => {
  const r = 'when a policy lapses and there are no open claims, cancel it for non-payment';
  assert.deepEqual(fieldsReadNowhere(r, spec(), desk), ['open_claims']);
  assert.deepEqual(fieldsReadNowhere(r, spec('payload.open_claims == 0'), desk), []);
  assert.deepEqual(fieldsReadNowhere('cancel it, regardless of open claims', spec(), desk), []);
  const d = modelDrafted(spec(), r, desk);
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      /names the event's open_claims \("open claims"\), but the draft reads it nowhere/.test(q.question),
    ),
    JSON.stringify(d.questions),
  );
});

test('a test of what the words say does not matter is asked about, whatever compiled it', () => {
  const r = 'when a policy lapses, cancel it for non-payment whether or not they have open claims';
  assert.equal(
    testedThoughNotMattering(r, spec('payload.open_claims == 0')),
    'whether or not they have open claims',
  );
  assert.equal(testedThoughNotMattering(r, spec()), undefined);
  assert.equal(
    testedThoughNotMattering('cancel it regardless of which plan', spec('payload.plan == "basic"')),
    'regardless of which plan',
  );
  const when = 'payload.open_claims == 0';
  const d = modelDrafted(
    { triggers: spec(when).triggers, steps: spec().steps, limits: spec().limits },
    r,
    desk,
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith(
        'The request says "whether or not they have open claims", but the draft tests it',
      ),
    ),
    JSON.stringify(d.questions),
  );
});

test('"unless A and B" is read only by tests joined with "or": each tested apart with "and" leaves out either', () => {
  const r = 'cancel it unless the plan is basic and there are at most 2 missed payments';
  assert.equal(
    droppedExclusion(r, spec('payload.plan != "basic" and payload.missed_payments > 2')),
    'unless the plan is basic and there are at most 2 missed payments',
  );
  assert.equal(
    droppedExclusion(r, spec('payload.plan != "basic" or payload.missed_payments > 2')),
    undefined,
  );
  // An action after the "and" is no second test.
  assert.equal(
    droppedExclusion('cancel it unless the plan is basic and tag it kept', spec('payload.plan != "basic"')),
    undefined,
  );
});

test('"unless A or <a number test>" drafted with the number test as said is asked about, whatever compiled it', () => {
  const r = 'cancel lapsed policies unless the plan is basic or there are under 3 missed payments';
  assert.equal(
    droppedExclusion(r, spec('payload.missed_payments < 3 and payload.plan != "basic"')),
    'unless the plan is basic or there are under 3 missed payments',
  );
  assert.equal(
    droppedExclusion(r, spec('payload.missed_payments >= 3 and payload.plan != "basic"')),
    undefined,
  );
  assert.equal(
    droppedExclusion('cancel it unless they have 5+ open claims', spec('payload.open_claims >= 5')),
    'unless they have 5+ open claims',
  );
  const d = modelDrafted(
    {
      triggers: [{ event: 'policy.lapsed', when: 'payload.missed_payments < 3 and payload.plan != "basic"' }],
      steps: spec().steps,
      limits: spec().limits,
    },
    `policy lapsed: ${r}`,
    desk,
  );
  assert.equal(d.publishable, false, JSON.stringify(d.questions));
});

test('something the events are said to have that the catalog names and the draft checks nowhere is asked about', () => {
  const r = 'when a policy lapses, cancel policies that have open claims for non-payment';
  assert.deepEqual(possessionsReadNowhere(r, spec(), desk), ['that have open claims']);
  assert.deepEqual(possessionsReadNowhere(r, spec('payload.open_claims > 0'), desk), []);
  // A word the catalog does not name is another check's to ask about.
  assert.deepEqual(possessionsReadNowhere('cancel policies that have pets', spec(), desk), []);
  const d = modelDrafted(spec(), r, desk);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith('The request says "that have open claims", but the draft checks it nowhere'),
    ),
    JSON.stringify(d.questions),
  );
});

test('something the events are said to have is read only by a test: a step that looks it up leaves the rest in', () => {
  const r = 'when a policy lapses, cancel policies that have open claims after tagging them';
  const tagged: WorkflowSpec = {
    ...spec(),
    steps: [
      {
        name: 't',
        tool: 'tag_policy',
        args: { policy_id: '{{event.subject}}', tag: '{{event.payload.open_claims}}' },
      },
      ...spec().steps,
    ],
  } as WorkflowSpec;
  assert.deepEqual(possessionsReadNowhere(r, tagged, desk), ['that have open claims']);
});
