/**
 * Values tested as the events spell them (grammar/event-spelling.ts), over a subscriptions desk of
 * its own: "unless the reason is too expensive" tests `too_expensive`, "EU" tests `eu` where the
 * regions are lower case, "autopay is off" tests false, "the third attempt" tests 3. As typed,
 * each test would compare exactly and match no event: an exclusion would leave none out, and the
 * money would move for the very events the words leave out. Each reading is listed under Assumed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const account = { type: 'string', pattern: '^ACC-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'issue_credit',
      description: 'Credits an account. Moves money.',
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['account_id', 'amount_usd'],
        properties: { account_id: account, amount_usd: { type: 'number' } },
      },
    }),
    tool({
      name: 'tag_account',
      description: 'Tags an account.',
      args: {
        type: 'object',
        required: ['account_id', 'tag'],
        properties: { account_id: account, tag: { type: 'string' } },
      },
    }),
  ],
  events: [
    {
      type: 'subscription.cancelled',
      payload: ['account_id', 'reason', 'region', 'autopay', 'attempt'],
      values: {
        account_id: ['ACC-1', 'ACC-2'],
        reason: ['too_expensive', 'not_using'],
        region: ['uk', 'us'],
      },
      flags: ['autopay'],
    },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, desk), desk);
/** A model's answer that tags the account of every `event` meeting `when`. */
const tagging = (event: string, when: string, tag: string) => ({
  triggers: [{ event, when }],
  steps: [{ name: 't', tool: 'tag_account', args: { account_id: '{{event.payload.account_id}}', tag } }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});

test('a value said as people type it is tested as the events spell it, under Assumed', () => {
  for (const [request, when, said] of [
    [
      'subscription cancelled: give them a $50 credit unless the reason is too expensive',
      'payload.reason != "too_expensive"',
      'too expensive',
    ],
    [
      'subscription cancelled: give them a $50 credit unless the region is EU',
      'payload.region != "eu"',
      'EU',
    ],
    ['subscription cancelled: tag it win-back if autopay is off', 'payload.autopay == false', 'off'],
    ['subscription cancelled on the third attempt: tag it win-back', 'payload.attempt == 3', 'third'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
    assert.ok(
      d.readBack?.assumed?.some((a) =>
        a.startsWith(`"${said}" is read as the subscription.cancelled event's`),
      ),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
});

test('a value the events spell already, or a phrase that is no value, is left as it is', () => {
  const d = draft('subscription cancelled: tag it win-back unless the reason is not_using');
  assert.equal(d.spec?.triggers[0]?.when, 'payload.reason != "not_using"');
  assert.equal(
    (d.readBack?.assumed ?? []).some((a) => a.includes('as its events spell it')),
    false,
  );
});

test('a draft from any compiler that names a value otherwise than the events spell it is asked about', () => {
  const m = modelDrafted(
    tagging('subscription.cancelled', 'payload.reason != "too expensive"', 'win-back'),
    'subscription cancelled: tag it win-back unless the reason is too expensive',
    desk,
  );
  assert.equal(m.publishable, false);
  assert.ok(
    m.questions.some((q) =>
      q.question.includes(
        'names a value otherwise than the events spell it ("payload.reason != \\"too_expensive\\"")',
      ),
    ),
    JSON.stringify(m.questions),
  );
});

test('a comparison after "is" is no value of the field it names ("if the claim is under the deductible")', () => {
  const claims: DraftCatalog = {
    tools: desk.tools,
    events: [
      {
        type: 'claim.filed',
        payload: ['account_id', 'claim_type'],
        values: { claim_type: ['auto', 'home'] },
      },
    ],
  };
  for (const [request, word] of [
    ['new claim: if the claim is under the deductible, tag it small', 'deductible'],
    // Nor is a word that says whether the field has a value: "set" is no claim type.
    ['new claim: tag it small if the claim type is not set', '"set"'],
  ] as const) {
    const d = draftSpec(compileRequest(request, claims), claims);
    assert.equal(d.publishable, false, request);
    const got = d.spec ?? d.partial;
    assert.ok(!JSON.stringify([got?.triggers, got?.steps]).includes(word), JSON.stringify(got));
  }
});

test('a field that holds a number by its name tested against words is asked about, whatever compiled it', () => {
  const claims: DraftCatalog = {
    tools: desk.tools,
    events: [{ type: 'claim.filed', payload: ['account_id', 'photo_count'] }],
  };
  const m = modelDrafted(
    tagging('claim.filed', 'payload.photo_count == "zero request photos"', 'photos'),
    'new claim: if photo count is zero request photos',
    claims,
  );
  assert.equal(m.publishable, false);
  assert.ok(
    m.questions.some((q) =>
      /compares photo_count with "zero request photos", but the event gives photo_count as a number/.test(
        q.question,
      ),
    ),
    JSON.stringify(m.questions),
  );
});
