/**
 * The amount a money step moves, named by the action's object: "return the deposit" moves the
 * event's deposit_usd when the event carries several money fields (deposit_usd, arrears_usd), read
 * under Assumed; a field named only after a preposition ("a laptop out of their equipment budget")
 * is not the amount. Over the letting agency's catalog of the twelfth blind set; the requests are
 * this test's own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND12_DIR, draftOver } from './draft-corpus.ts';

const draft = (request: string) => draftOver(request, BLIND12_DIR, 'lettings');
const amount = (request: string) => {
  const d = draft(request);
  const step = (d.spec ?? d.partial)?.steps.find((s) => 'tool' in s && s.tool === 'return_deposit');
  return { d, value: step && 'args' in step ? step.args.amount_usd : undefined };
};

test('"return the deposit", "send the deposit back in full": the event\'s deposit_usd, Assumed', () => {
  for (const request of [
    'when a tenancy ends, return the deposit, max 2500',
    'when a tenancy ends, send the deposit back in full. never more than 2500',
    'tenancy ended -> give them their deposit back, up to $2,500',
  ]) {
    const { d, value } = amount(request);
    assert.equal(value, '{{event.payload.deposit_usd}}', `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.match((d.readBack?.assumed ?? []).join('\n'), /deposit_usd: the amount the words name/);
  }
});

test('a money field named after a preposition is not the amount: asked', () => {
  const { d, value } = amount('when a tenancy ends, return the money to them from the arrears, max 2500');
  assert.notEqual(value, '{{event.payload.arrears_usd}}');
  assert.equal(d.publishable, false);
});

test("an amount computed from a field, paid to someone named, or not the tool's own, is asked", () => {
  for (const request of [
    'tenancy ended: return the deposit less any damage, cap 3000',
    'tenancy ended: return the deposit minus the arrears, max 2500',
    'tenancy ended: return what is left of the deposit, max 2500',
    'tenancy ended: return the deposit to the landlord, max 2500',
    'tenancy ended: return the arrears, max 2500',
    // (pay_contractor's words never say "quote": the invoice's amount_usd is not what was said.)
    'contractor invoiced: pay the contractor the quote, max 1000',
  ])
    assert.equal(draft(request).publishable, false, request);
});

test('a possessive is not what a verb is said of: "email the tenant\'s landlord" asks which tool', () => {
  for (const request of [
    "tenancy ended: email the tenant's landlord: the tenant has moved out",
    "maintenance reported: email the landlord's tenant: a plumber is coming",
  ])
    assert.ok(
      draft(request).questions.some((q) => /Which tool should/.test(q.question)),
      request,
    );
});
