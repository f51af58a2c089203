/**
 * explainSpec's amounts read as a person reads them: thousands separated by commas, cents only when
 * there are any, and the same number as the spec's (property over caps up to $10,000,000); an event
 * type reads as a sentence about the thing it names, whatever words come before its participle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatCents } from '../money.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { eventWords, explainSpec } from './explain-spec.ts';

const spec = (maxCostUsd: number): WorkflowSpec =>
  ({
    id: 'pay',
    version: 1,
    status: 'DRAFT',
    triggers: [],
    steps: [],
    limits: { maxSteps: 1, maxCostUsd },
  }) as unknown as WorkflowSpec;

const capOf = (cents: number) =>
  /Spends at most \$([\d,.]+) a run/.exec(explainSpec(spec(cents / 100), []).text)?.[1];

test('amounts carry thousands separators and cents only when there are any', () => {
  assert.equal(capOf(100_000), '1,000');
  assert.equal(capOf(1_000_000), '10,000');
  assert.equal(capOf(123_456_750), '1,234,567.50');
  assert.equal(capOf(99_999), '999.99');
  assert.equal(capOf(5_000), '50');
});

test('the amount read back is the spec cap, for any cap', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (cents) => {
      const shown = capOf(cents)!;
      assert.match(shown, /^\d{1,3}(,\d{3})*(\.\d{2})?$/);
      assert.equal(shown.replaceAll(',', ''), formatCents(cents));
    }),
  );
});

test('an amount in a condition is read as written: never rounded to a cent it is not', () => {
  const when = (condition: string) =>
    explainSpec(
      {
        ...spec(50),
        triggers: [{ event: 'refund.requested', when: condition }],
      } as unknown as WorkflowSpec,
      [],
    ).text;
  assert.match(when('payload.amount_usd < 19.99'), /its amount_usd is under \$19\.99\b/);
  assert.match(when('payload.amount_usd < 49.999'), /its amount_usd is under \$49\.999\b/);
  assert.match(when('payload.amount_usd >= 1234.5'), /its amount_usd is at least \$1,234\.50\b/);
});

test('an event type reads as a sentence about its thing: the words before the participle name it too', () => {
  const cases: [string, string][] = [
    ['refund.requested', 'a refund is requested'],
    // It had read "a helpdesk is ticket opened".
    ['helpdesk.ticket_opened', 'a helpdesk ticket is opened'],
    ['helpdesk.ticket.opened', 'a helpdesk ticket is opened'],
    ['order.payment_failed', 'an order payment has failed'],
    ['user_account.closed', 'a user account is closed'],
    ['invoice.received', 'an invoice is received'],
    ['order.shipped_late', 'an event order.shipped_late arrives'],
    ['tick', 'an event tick arrives'],
  ];
  for (const [type, words] of cases) assert.equal(eventWords(type), words, type);
});
