/**
 * A sentence that leaves some events out ("skip alcohol.", "ignore anything from search.")
 * (grammar/read-asides.ts readIgnored): a test on the trigger that it is not so, and the words after
 * it that name the rest ("everything else under 150 ->", "for the rest:") are every event the
 * workflow starts for, no other case. A word the samples do not show is read back under Assumed. Over a catalog no
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

test('a left-out word the samples do not show is read as a value of the field, and said under Assumed', () => {
  const d = draft('skip organic. everything else under 150 → approve + pay');
  assert.equal(d.spec?.triggers[0]?.when, 'payload.category != "organic" and payload.amount_usd < 150');
  assert.match((d.readBack?.assumed ?? []).join('\n'), /"organic" is read as purchase\.requested's category/);
});
