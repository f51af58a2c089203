/**
 * A sentence that leaves some events out ("skip alcohol.", "ignore anything from search.")
 * (grammar/read-asides.ts readIgnored): a test on the trigger that it is not so, and the words after
 * it that name the rest ("everything else under 150 ->", "for the rest:") are every event the
 * workflow starts for, no other case. Only as the request's first sentence, and only of a value the samples show. Over a catalog no
 * corpus uses: a canteen's purchase approvals.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const canteen: DraftCatalog = {
  tools: [
    tool({
      name: 'approve_purchase',
      description: 'Approves a purchase order.',
      args: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } },
    }),
    tool({
      name: 'pay_supplier',
      description: 'Pays the supplier for a purchase order. Moves money.',
      destructive: true,
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['order_id', 'amount_usd'],
        properties: { order_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
    }),
  ],
  events: [
    {
      type: 'purchase.requested',
      payload: ['category', 'amount_usd', 'supplier'],
      values: { category: ['produce', 'alcohol', 'equipment'], supplier: ['acme', 'freshco'] },
    },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, canteen), canteen);

test('"skip alcohol. everything else under 150 -> ...": the left-out events are tested out, the rest is every other event', () => {
  for (const [request, when] of [
    [
      'skip alcohol. everything else under 150 → approve + pay',
      'payload.category != "alcohol" and payload.amount_usd < 150',
    ],
    [
      'ignore anything from freshco. for the rest: approve it and pay it, up to $300',
      'payload.supplier != "freshco"',
    ],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, when, request);
    assert.deepEqual(
      d.spec?.steps.map((s) => ('tool' in s ? s.tool : 'choose')),
      ['approve_purchase', 'pay_supplier'],
      request,
    );
  }
});

test('only the first sentence, and only a value the samples show, leaves events out: "skip the payment." is asked, never a filter', () => {
  for (const request of [
    'skip organic. everything else under 150 → approve + pay',
    'when a purchase is requested, approve and pay it up to $100. skip paying.',
    'when a purchase is requested, approve and pay it up to $100. skip alcohol.',
    'alcohol? skip it. everything else under 150 → approve + pay',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec?.triggers)}`);
    assert.doesNotMatch(
      JSON.stringify((d.spec ?? d.partial)?.triggers ?? []),
      /category == \\"alcohol\\"/,
      request,
    );
  }
});

test('"but not for <value> <the events\' noun>" after an action leaves those events out, never the opposite', () => {
  for (const request of [
    'when a purchase is requested, approve and pay it up to $100 but not for alcohol purchases',
    'when a purchase is requested, approve and pay it up to $100, but never alcohol ones',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, 'payload.category != "alcohol"', request);
  }
});
