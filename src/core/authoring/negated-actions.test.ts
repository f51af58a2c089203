/**
 * Issue 30, safety: an action under a negation ("don't refund anything yet", "dont pay", "no
 * refunds", "without refunding") is never a step, a forbidden money-moving or destructive tool is on
 * no path of a publishable draft — the offline compiler's or a model's — and the read-back says what
 * the workflow will not do. A negated bound ("don't refund more than $50") stays a cap.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { compileRequest } from './compile-request.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { draftSpec } from './draft-spec.ts';
import { negatedActions } from './negated-actions.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, catalog), catalog);
const tools = (r: string) => {
  const d = draft(r);
  const s = d.spec ?? d.partial;
  return s ? toolSteps(s).map((x) => x.tool) : [];
};

test('a forbidden action is never a step, and the read-back says the workflow will not do it', () => {
  const d = draft('For refund requests, reply "We got it." and tag it refund. Don\'t refund anything yet');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => s.tool),
    ['draft_reply', 'tag_ticket'],
  );
  assert.match(d.readBack!.text, /Assumed:[\s\S]*never calls issue_refund/);
  for (const r of [
    'when a refund is requested tag it refund, dont refund it',
    'when a refund is requested tag it refund and do NOT refund',
    'when a refund is requested tag it refund. never refund them',
    'when a refund is requested tag it refund. no refunds',
  ])
    assert.ok(!tools(r).includes('issue_refund'), r);
});

test('a negated bound is still a cap, not a ban', () => {
  for (const r of [
    'refund requests: refund them, dont refund more than $50',
    'refund requests: refund them, no refunds above 50 please',
  ]) {
    const d = draft(r);
    assert.deepEqual(
      toolSteps(d.spec!).map((s) => s.tool),
      ['issue_refund'],
      r,
    );
    assert.equal(d.spec!.limits.maxCostUsd, 50, r);
  }
  assert.deepEqual(negatedActions("don't pay more than $50; never refund without approval"), []);
  assert.deepEqual(
    negatedActions('reply, but do NOT page anyone').map((b) => b.words),
    ['do not page anyone'],
  );
});

test('"don\'t forget to <action>" asks for the action', () => {
  const d = draft('refund requests: reply "hi", and dont forget to refund them, max $20');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => s.tool),
    ['draft_reply', 'issue_refund'],
  );
});

test('asked for and forbidden at once is a question', () => {
  const d = draft("refund requests under $50: refund them. Don't refund anything");
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => /issue_refund/.test(q.question)));
});

test('a model draft that calls a forbidden money tool is not publishable', () => {
  const request = 'when a refund is requested, tag it refund. dont refund anything yet';
  const d = modelDrafted(
    {
      triggers: [{ event: 'refund.requested' }],
      steps: [
        { name: 't', tool: 'tag_ticket', args: { ticket_id: '{{event.subject}}', tag: 'refund' } },
        {
          name: 'r',
          tool: 'issue_refund',
          args: { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
        },
      ],
      limits: { maxSteps: 2, maxCostUsd: 0 },
    },
    request,
    catalog,
  );
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => q.about === 'safety' && /dont refund anything yet/.test(q.question)));
});

test('property: appending "don\'t <verb of a money or destructive tool>" never yields a publishable draft calling it', () => {
  const draftable = [
    'refund anyone under $50',
    'When a refund is requested, reply "On it" and refund them, max $40',
    'refund requests under $25: tag it refund then refund it',
    'when a ticket is resolved, close it',
    'when a refund is requested, reply "Thanks" and tag it billing',
  ];
  const bans: [string, string][] = [
    ['refund', 'issue_refund'],
    ['close', 'close_ticket'],
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...draftable),
      fc.constantFrom(...bans),
      fc.constantFrom("don't", 'dont', 'do not', 'DO NOT', 'never', "Please don't"),
      fc.constantFrom('', ' anything', ' it', ' anything yet', ' them'),
      fc.constantFrom('. ', ', and ', ' but ', '; '),
      (request, [verb, tool], neg, rest, join) => {
        const d = draft(`${request}${join}${neg} ${verb}${rest}`);
        if (d.publishable)
          assert.ok(!toolSteps(d.spec!).some((s) => s.tool === tool), `${request} ${neg} ${verb}`);
      },
    ),
    { numRuns: 200 },
  );
});

test('"skip refunding it" in a case leaves that case without the refund; "skip it" there is its whole answer', () => {
  const sampled: DraftCatalog = {
    tools: catalog.tools,
    events: [
      {
        type: 'refund.requested',
        payload: ['refund_amount', 'currency', 'reason'],
        values: { reason: ['damaged', 'late'] },
      },
    ],
  };
  const late = (r: string) => {
    const d = draftSpec(compileRequest(r, sampled), sampled);
    const [choice] = (d.spec ?? d.partial)?.steps ?? [];
    assert.ok(choice && 'choose' in choice, `${r}: ${JSON.stringify(d.spec ?? d.partial)}`);
    assert.equal(choice.choose[0]!.when, 'payload.reason == "late"', r);
    assert.deepEqual(choice.choose[0]!.steps, [], r);
    assert.deepEqual(
      choice.else?.map((s) => ('tool' in s ? s.tool : '')),
      ['issue_refund'],
      r,
    );
    return d;
  };
  // The ban is said where the refund is also asked for: the person confirms which.
  for (const r of [
    'if the reason is late, skip refunding it. otherwise refund it, max $50',
    'late ones: skip the refund. otherwise refund it, max $50',
  ])
    assert.ok(
      late(r).questions.some((q) =>
        /says "skip (?:refunding it|the refund)", and the draft calls issue_refund/.test(q.question),
      ),
      r,
    );
  const d = late('late ones: skip it. otherwise refund it, max $50');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.ok(d.readBack?.assumed?.some((a) => a.includes('"skip it" is read as: nothing is done there.')));
  // Not in a case: "skip it for late ones" after the refund is asked about, never read as nothing.
  assert.equal(
    draftSpec(compileRequest('refund it, max $50. skip it for late ones', sampled), sampled).publishable,
    false,
  );
});

test('"don\'t approve it, just pay" forbids the approval; "never pay without approval" still gates the payment', () => {
  const expenses: DraftCatalog = {
    tools: [
      tool({
        name: 'approve_expense',
        description: 'Approves an expense report.',
        args: { type: 'object', required: ['report_id'], properties: { report_id: { type: 'string' } } },
      }),
      tool({
        name: 'reimburse_employee',
        description: 'Pays an employee back for an expense report. Moves money.',
        cost: { fromArg: 'amount_usd' },
        args: {
          type: 'object',
          required: ['report_id', 'amount_usd'],
          properties: { report_id: { type: 'string' }, amount_usd: { type: 'number' } },
        },
      }),
    ],
    events: [{ type: 'expense.submitted', payload: ['amount_usd'] }],
  };
  for (const r of [
    "expense submitted: don't approve it, just reimburse it, max 300",
    'expense submitted: dont approve, just pay, max 300',
    'expense submitted: reimburse it, max 300, no approval needed',
    "expense submitted: don't get approval, just reimburse it, max 300",
  ]) {
    const d = draftSpec(compileRequest(r, expenses), expenses);
    const s = d.spec ?? d.partial;
    assert.deepEqual(s ? toolSteps(s).map((x) => x.tool) : [], ['reimburse_employee'], r);
  }
  assert.equal(negatedActions('never pay without approval').length, 0);
  // A negation that forbids no action of the catalog is a restriction, asked about, never dropped.
  const carded: DraftCatalog = {
    tools: expenses.tools.map((t) => ({ ...t, description: `${t.description} To their card.` })),
    events: [{ type: 'expense.submitted', payload: ['amount_usd', 'card_expired'] }],
  };
  const r = 'when an expense is submitted without an expired card, reimburse it, max 300';
  assert.equal(draftSpec(compileRequest(r, carded), carded).publishable, false, r);
});
