/**
 * An amount said as a range of the events ("over $20 and under $300") bounds them on both sides:
 * the lower bound and the upper bound are both the trigger's tests, where the upper bound alone is
 * (bounded-events.ts). The lower bound before it had hidden the upper one: a draft approved every
 * expense over $20, the $300 only a spend cap refusing the reimbursement after the approval.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draft } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import { BLIND9_DIR, draftOver as draft, TUNING_DIR } from './draft-corpus.ts';

const tools = (d: Draft) => toolSteps((d.spec ?? d.partial)!).map((s) => s.tool);

test('"approve and reimburse expenses over $20 and under $300": the trigger tests both bounds', () => {
  const d = draft('approve and reimburse expenses over $20 and under $300', TUNING_DIR, 'expense-report');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(tools(d), ['approve_expense', 'reimburse_employee']);
  assert.equal(d.spec!.triggers[0]!.when, 'payload.amount_usd > 20 and payload.amount_usd < 300');
  assert.equal(d.spec!.limits.maxCostUsd, 300);
});

test('"lost packages with an order total over $100 and under $500: reship the order": drafted, both bounds tested', () => {
  // No step moves money: the bounds can only say which events. It had asked which field $500 bounds.
  for (const request of [
    'Lost packages with an order total over $100 and under $500: reship the order',
    'lost packages over $100 and under $500: reship the order',
  ]) {
    const d = draft(request, BLIND9_DIR, 'shipping');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(tools(d), ['reship_order']);
    assert.equal(
      d.spec!.triggers[0]!.when,
      'payload.order_total_usd > 100 and payload.order_total_usd < 500',
      request,
    );
  }
});

test('a lower bound said of another thing than the events still leaves the upper bound asked', () => {
  // Words before the upper bound that name no event ("team budget") keep the question.
  const d = draft('approve expenses over $20, team budget under $300', TUNING_DIR, 'expense-report');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => /holds the amount "\$300" bounds/.test(q.question)),
    JSON.stringify(d.questions),
  );
});
