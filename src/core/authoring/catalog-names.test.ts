/**
 * Words a catalog names for itself, over a billing desk of its own: an event type whose verb part
 * names its own noun (`invoice.payment_failed`, Stripe's way) is started by "when a payment fails"
 * (grammar/trigger-words.ts splitType), and "retry", a word the compiler otherwise asks about ("retry
 * later" is a timing no spec says), is the action of a tool named for it (grammar/map-tool.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const id = { type: 'string' };
const tagTool = tool({
  name: 'tag_invoice',
  description: 'Tags an invoice.',
  args: {
    type: 'object',
    required: ['invoice_id', 'tag'],
    properties: { invoice_id: id, tag: { type: 'string', pattern: '^[a-z-]{1,20}$' } },
    additionalProperties: false,
  },
});
const retryTool = tool({
  name: 'retry_charge',
  description: 'Charges the card of an invoice again.',
  args: {
    type: 'object',
    required: ['invoice_id'],
    properties: { invoice_id: id },
    additionalProperties: false,
  },
});
const events = [
  { type: 'invoice.payment_failed', payload: ['amount_usd', 'attempt'] },
  { type: 'invoice.paid', payload: ['amount_usd'] },
];
const billing: DraftCatalog = { tools: [tagTool, retryTool], events };
const draft = (request: string, catalog = billing) => draftSpec(compileRequest(request, catalog), catalog);

test('an event whose verb part names its own noun starts on that noun and verb', () => {
  for (const request of ['when a payment fails, tag it dunning', 'failed payments: tag them dunning']) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'invoice.payment_failed' }], request);
  }
  const paid = draft('when an invoice is paid, tag it settled');
  assert.deepEqual(paid.spec?.triggers, [{ event: 'invoice.paid' }]);
});

test('"retry" is the action of a tool named for it, and a timing to ask about where none is', () => {
  const d = draft('when a payment fails, retry the card');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['retry_charge'],
  );
  const none = draft('when a payment fails, tag it dunning and retry later', { tools: [tagTool], events });
  assert.equal(none.publishable, false);
  assert.ok(
    none.questions.some((q) => /retry/.test(q.question)),
    JSON.stringify(none.questions),
  );
});
