/**
 * An amount said in an action's own words for its money argument (grammar/fill-args.ts): "$2,500",
 * "$2k", "set it to 2500", with the comma of thousands never splitting the clause
 * (grammar/read-clauses.ts). Over a catalog no corpus uses: a warehouse's stock valuation, whose
 * tool moves no money.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { readPhrases } from './grammar/normalise-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const stock: DraftCatalog = {
  tools: [
    tool({
      name: 'set_valuation',
      description: 'Sets the book value of a stock lot. Bookkeeping only: moves no money.',
      args: {
        type: 'object',
        required: ['lot_id', 'amount_usd'],
        properties: { lot_id: { type: 'string' }, amount_usd: { type: 'number', minimum: 0 } },
      },
    }),
    tool({
      name: 'notify_buyer',
      description: 'Messages the buyer about a lot.',
      args: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
      effect: 'external',
    }),
  ],
  events: [{ type: 'lot.received', payload: ['supplier', 'amount_usd'] }],
};
const amountOf = (request: string) => {
  const d = draftSpec(compileRequest(request, stock), stock);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return (d.spec!.steps[0] as { args: Record<string, unknown> }).args.amount_usd;
};

test('"$2,500", "2,500", "$2k", "to 2500": the amount said for the argument, whole', () => {
  for (const [request, usd] of [
    ['when a lot is received, set the valuation to $2,500', 2500],
    ['when a lot is received, set the valuation to 2,500', 2500],
    ['when a lot is received, set the valuation to $2k', 2000],
    ['when a lot is received, set the valuation to 2500', 2500],
    ['when a lot is received, set the valuation to $12.50', 12.5],
    ["when a lot is received, set the valuation to $1,250,000, then notify the buyer 'Valued.'", 1_250_000],
  ] as const)
    assert.equal(amountOf(request), usd, request);
});

test('property: a whole amount written with commas of thousands is that amount, and the next action stays its own', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1000, max: 99_999_999 }), (n) => {
      const written = n.toLocaleString('en-US');
      const request = `when a lot is received, set the valuation to ${written}, then notify the buyer 'Done.'`;
      const d = draftSpec(compileRequest(request, stock), stock);
      assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
      assert.deepEqual(
        d.spec!.steps.map((s) => ('tool' in s ? s.tool : '')),
        ['set_valuation', 'notify_buyer'],
      );
      assert.equal((d.spec!.steps[0] as { args: Record<string, unknown> }).args.amount_usd, n);
    }),
    { numRuns: 60 },
  );
});

test('a number "at" or "to" that is no amount, and a thousands mark of another country, never set money moved', async () => {
  const { tool: t } = await import('../../../test/authoring/catalog-tool.ts');
  const refunds: DraftCatalog = {
    tools: [
      t({
        name: 'refund_order',
        description: 'Refunds an order. Moves money.',
        destructive: true,
        cost: { fromArg: 'amount_usd' },
        args: {
          type: 'object',
          required: ['order_id', 'amount_usd'],
          properties: { order_id: { type: 'string' }, amount_usd: { type: 'number' } },
        },
      }),
    ],
    events: [{ type: 'refund.requested', payload: ['amount_usd'] }],
  };
  for (const [request, wrong] of [
    ['when a refund is requested, refund it at 9, max $100', 9],
    ['when a refund is requested, refund it to 2 customers max $100', 2],
    ['when a refund is requested, refund it to 4242, cap $500', 4242],
    ['when a refund is requested, refund $5.000', 5],
    ['when a refund is requested, refund $1.000,00', 1],
  ] as const) {
    const d = draftSpec(compileRequest(request, refunds), refunds);
    const amount = ((d.spec ?? d.partial)?.steps[0] as { args?: Record<string, unknown> } | undefined)?.args
      ?.amount_usd;
    assert.ok(!(d.publishable && amount === wrong), `${request}: published ${amount}`);
  }
});

test('"by cheque" is the method a tool lists as "check", as "by check" is', () => {
  const phrased = readPhrases('pay it by cheque, max 500');
  assert.equal(phrased.length, 'pay it by cheque, max 500'.length);
  assert.match(phrased, /\bby check\b/);
});
