/**
 * Issue 30: a draft moves the amount its words name (money-source.ts), whatever compiled it: a
 * model's draft of "return the full deposit (not just the amount claimed)" that returns the claimed
 * amount asks, as does one that drops "the deposit" for another field. A catalog no corpus set uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { compileRequest } from './compile-request.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftSpec } from './draft-spec.ts';
import { moneySourceQuestions } from './money-source.ts';

const catalog: DraftCatalog = {
  tools: [
    tool({
      name: 'get_lease',
      description: 'Reads a lease: tenant, deposit held and move-out date.',
      effect: 'read',
      args: { type: 'object', required: ['lease_id'], properties: { lease_id: { type: 'string' } } },
      result: {
        type: 'object',
        properties: { tenant: { type: 'string' }, deposit_usd: { type: 'number' } },
      },
    }),
    tool({
      name: 'return_deposit',
      description: 'Pays money back to a tenant: the full deposit or the amount claimed.',
      args: {
        type: 'object',
        required: ['lease_id', 'amount_usd'],
        properties: { lease_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      cost: { fromArg: 'amount_usd' },
    }),
  ],
  events: [{ type: 'lease.ended', payload: ['lease_id', 'claimed_usd', 'reason'] }],
};

const lookup = { name: 'lease', tool: 'get_lease', args: { lease_id: '{{event.payload.lease_id}}' } };
const pay = (amount: string) => ({
  name: 'pay',
  tool: 'return_deposit',
  args: { lease_id: '{{event.payload.lease_id}}', amount_usd: amount },
});
const model = (amount: string, request: string) =>
  modelDrafted(
    {
      triggers: [{ event: 'lease.ended' }],
      steps: [lookup, pay(amount)],
      limits: { maxSteps: 2, maxCostUsd: 900 },
    },
    request,
    catalog,
  );

test('a money amount from a field the words negate asks, though every word is a catalog word', () => {
  const d = model(
    '{{event.payload.claimed_usd}}',
    'when a lease ends, get the lease and return the full deposit (not just the claimed amount). cap $900',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some(
      (q) => q.about === 'safety' && /not to use "claimed".*return_deposit's amount_usd/.test(q.question),
    ),
    JSON.stringify(d.questions),
  );
});

test('a named amount field the draft reads nowhere, while it moves another, asks', () => {
  const d = model(
    '{{event.payload.claimed_usd}}',
    'when a lease ends, look it up and pay back the deposit. cap $900',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => /names "deposit" \(deposit_usd\)/.test(q.question)),
    JSON.stringify(d.questions),
  );
});

test('the amount the words name, or a named field read in a condition, asks nothing', () => {
  const spec = (amount: string, when?: string): WorkflowSpec => ({
    id: 'w',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'lease.ended' }],
    steps: [lookup, { ...pay(amount), ...(when ? { if: when } : {}) }],
    limits: { maxSteps: 2, maxCostUsd: 900 },
  });
  const named = 'when a lease ends, return the full deposit (not just the claimed amount). cap $900';
  assert.deepEqual(moneySourceQuestions(spec('{{steps.lease.output.deposit_usd}}'), named, catalog), []);
  assert.deepEqual(
    moneySourceQuestions(
      spec('{{event.payload.claimed_usd}}', 'steps.lease.output.deposit_usd > 100'),
      'when a lease ends, pay the claimed amount if the deposit is over 100. cap $900',
      catalog,
    ),
    [],
  );
  // "the claimed amount" is the draft's own: no other amount named.
  assert.deepEqual(
    moneySourceQuestions(
      spec('{{event.payload.claimed_usd}}'),
      'pay back what was claimed, up to $900',
      catalog,
    ),
    [],
  );
});

test('property: an amount field said only after a negation is never the amount a draft moves unasked', () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[a-z]{4,9}$/).filter((w) => !['usd', 'cents', 'dollars'].includes(w)),
      fc.constantFrom(
        'not',
        'not just the',
        'instead of the',
        'rather than the',
        "don't use the",
        'never the',
      ),
      fc.constantFrom('amount', 'total', 'price'),
      (word, negation, kind) => {
        const field = `${word}_${kind}_usd`;
        const c: DraftCatalog = {
          ...catalog,
          events: [{ type: 'lease.ended', payload: ['lease_id', field] }],
        };
        const s: WorkflowSpec = {
          id: 'w',
          version: 1,
          status: 'DRAFT',
          triggers: [{ event: 'lease.ended' }],
          steps: [pay(`{{event.payload.${field}}}`)],
          limits: { maxSteps: 1, maxCostUsd: 900 },
        };
        const qs = moneySourceQuestions(
          s,
          `when a lease ends, return the deposit (${negation} ${word} ${kind}). cap $900`,
          c,
        );
        return qs.some((q) => q.includes(`not to use "${word} ${kind}"`));
      },
    ),
  );
});

test("\"pay the PO amount\" asks: the invoice event's amount is the invoice's, not the purchase order's", () => {
  const po = draftOver(
    'new invoices: match the PO and pay the PO amount, cap 5k',
    BLIND13_DIR,
    'invoice-approval',
  );
  assert.equal(po.publishable, false);
  assert.ok(
    po.questions.some((q) =>
      q.question.startsWith(
        'The request says "the PO amount", but schedule_payment\'s amount_usd is "{{event.payload.amount_usd}}": the invoice.received event\'s, not the PO\'s.',
      ),
    ),
    JSON.stringify(po.questions),
  );
  const own = draftOver(
    'new invoices: match the PO and pay the invoice amount, cap 5k',
    BLIND13_DIR,
    'invoice-approval',
  );
  assert.equal(own.publishable, true, JSON.stringify(own.questions));
});

test('whose amount a read step returned is the read\'s own: "the lease amount" from get_lease asks nothing', () => {
  const spec: WorkflowSpec = {
    id: 'w',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'lease.ended' }],
    steps: [lookup, pay('{{steps.lease.output.deposit_usd}}')],
    limits: { maxSteps: 2, maxCostUsd: 900 },
  };
  assert.deepEqual(
    moneySourceQuestions(spec, 'when a lease ends, pay back the lease amount. cap $900', catalog),
    [],
  );
  assert.equal(
    moneySourceQuestions(spec, 'when a lease ends, pay back the tenant amount. cap $900', catalog).length,
    1,
    'the tenant is no lease',
  );
});

test('"refund what they asked for" moves the amount the event says was asked (refund_requested_usd); "up to $100" beside it is a cap', () => {
  for (const request of [
    'complaints: refund what they asked for, up to $100',
    'complaint refund asks: refund the amount asked, capped at three hundred',
  ]) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const step = d.spec!.steps[0]!;
    assert.ok('tool' in step);
    assert.equal(step.args.amount_usd, '{{event.payload.refund_requested_usd}}', request);
  }
  // An amount computed from it is still asked.
  assert.equal(
    draftOver('complaints: refund what they asked for up to the deposit', BLIND13_DIR, 'frontdesk')
      .publishable,
    false,
  );
});

test("an event with several money fields: 'refund it' moves the one its verb names (requested_usd), never the invoice's total", () => {
  const catalog = {
    tools: [
      tool({
        name: 'refund_client',
        description: 'Refunds money to the client. Moves money: costs the amount.',
        destructive: true,
        effect: 'external',
        args: {
          type: 'object',
          required: ['client_id', 'amount_usd'],
          properties: { client_id: { type: 'string' }, amount_usd: { type: 'number', exclusiveMinimum: 0 } },
          additionalProperties: false,
        },
        cost: { fromArg: 'amount_usd' },
      }),
    ],
    events: [{ type: 'refund.requested', payload: ['client_id', 'invoice_total_usd', 'requested_usd'] }],
  };
  const d = draftSpec(compileRequest('refund requests: refund it, up to $250', catalog), catalog);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const step = d.spec!.steps[0]!;
  assert.ok('tool' in step);
  assert.equal(step.args.amount_usd, '{{event.payload.requested_usd}}');
  assert.ok(
    d.readBack?.assumed?.some((a) => a.includes('requested_usd')),
    JSON.stringify(d.readBack?.assumed),
  );
});
