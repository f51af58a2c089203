/**
 * An approval asked for right after the trigger, typed without a comma (grammar/asked-for.ts):
 * "payout requests over $2k get finance approval, then send the payout" drafts the approval step
 * before the payout, as with the comma; read as one heading, the approval had been dropped and the
 * payout drafted alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const payouts: DraftCatalog = {
  tools: [
    tool({
      name: 'send_payout',
      destructive: true,
      description: "Pays money out to a seller's bank account. Moves money.",
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['seller_id', 'amount_usd'],
        properties: { seller_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
    }),
    tool({
      name: 'request_finance_approval',
      description: 'Asks a finance lead to approve before the workflow goes on.',
      approval: 'always',
      args: { type: 'object', required: ['seller_id'], properties: { seller_id: { type: 'string' } } },
    }),
  ],
  events: [{ type: 'payout.requested', payload: ['seller_id', 'amount_usd'] }],
};

test('an approval said after the trigger without a comma is a step, never dropped', () => {
  for (const r of [
    'payout requests over $2k get finance approval, then send the payout, cap $10k per run',
    'on a payout request over $2k get finance approval, then send the payout, cap $10k per run',
    'when a payout is requested over $2k get finance approval, then send the payout, cap $10k per run',
  ]) {
    const d = draftSpec(compileRequest(r, payouts), payouts);
    const tools = (d.spec ?? d.partial)?.steps.map((s) => ('tool' in s ? s.tool : ''));
    assert.deepEqual(
      tools,
      ['request_finance_approval', 'send_payout'],
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});
