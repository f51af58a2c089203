/**
 * Bounds no reader takes are never dropped: "under 1000 pay it. over 1000 email them" left "over
 * 1000" in the email's clause and drafted an email to every applicant; "never extend by more than a
 * week" became a test that the event's days are over 7. A yes/no an earlier read returns is never
 * the amount a step pays ("pay verified grants": `verified` is which ones, not how much). Over a
 * catalog of its own (a foundation's grants and memberships).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const obj = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  required,
  properties,
  additionalProperties: false,
});
const foundation: DraftCatalog = {
  tools: [
    tool({
      name: 'check_applicant',
      description: 'Checks an applicant against the register.',
      effect: 'read',
      args: obj({ applicant_id: { type: 'string' } }, ['applicant_id']),
      result: obj({ verified: { type: 'boolean' }, grant_total: { type: 'number' } }, []),
    }),
    tool({
      name: 'pay_grant',
      description: 'Pays a grant out to the applicant.',
      args: obj({ applicant_id: { type: 'string' }, amount_usd: { type: 'number' } }, [
        'applicant_id',
        'amount_usd',
      ]),
      cost: { fromArg: 'amount_usd' },
      destructive: true,
    }),
    tool({
      name: 'email_applicant',
      description: 'Emails the applicant.',
      args: obj({ applicant_id: { type: 'string' }, text: { type: 'string' } }, ['applicant_id', 'text']),
    }),
    tool({
      name: 'extend_membership',
      description: 'Extends a membership by a number of days.',
      args: obj({ member_id: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 30 } }, [
        'member_id',
        'days',
      ]),
    }),
  ],
  events: [
    { type: 'grant.applied', payload: ['applicant_id', 'amount_usd'] },
    { type: 'membership.ending', payload: ['member_id', 'days_left'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, foundation), foundation);

test('a bound said with an action that no reader takes is asked about, never dropped', () => {
  for (const request of [
    "grant applications: under 1000 pay it. over 1000 email them 'Your grant is under review.'",
    "grant applications: under 1000 pay it. 1000 and up just email them 'Your grant is under review.'",
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) => /I could not read "(?:over 1000|1000 and up)" as a test/.test(q.question)),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  // A bound a reader takes is not asked about again.
  const read = draft('when a grant is applied for, pay it, up to $1000');
  assert.equal(read.publishable, true, JSON.stringify(read.questions));
});

test('a limit said after a negation a few words back is no test of the event', () => {
  const d = draft(
    'memberships ending with 3 days or less left - extend them by 10 days. we never extend any membership by more than a week though',
  );
  const when = JSON.stringify(d.spec?.triggers ?? d.partial?.triggers);
  assert.doesNotMatch(when, /days_left > 7/);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
});

test('a yes/no an earlier read returns is never the amount a step pays', () => {
  const d = draft('when a grant is applied for, check the applicant, then pay verified grants, up to $500');
  const pay = (d.spec ?? d.partial)?.steps.find((s) => 'tool' in s && s.tool === 'pay_grant');
  assert.ok(pay && 'tool' in pay, JSON.stringify(d.spec ?? d.partial));
  assert.notEqual(pay.args.amount_usd, '{{steps.check_applicant.output.verified}}');
  assert.doesNotMatch(JSON.stringify(pay.args.amount_usd), /verified/);
});
