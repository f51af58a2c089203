import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { toolSteps } from '../spec/index.ts';
import { type DraftCatalog, draftPrompt, draftSpec, readModelDraft } from './index.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [{ type: 'refund.requested', payload: ['refund_amount', 'currency'] }],
};
const NAMES = new Set(catalog.tools.map((t) => t.name));

test('a model answer is checked like any draft: DRAFT only, catalog tools only, its questions kept', () => {
  const ok = draftSpec(
    readModelDraft(
      {
        status: 'AUTONOMOUS',
        triggers: [{ event: 'refund.requested' }],
        steps: [
          { name: 'refund', tool: 'issue_refund', args: { ticket_id: '{{event.subject}}', amount_usd: 5 } },
        ],
        limits: { maxSteps: 1, maxCostUsd: 5 },
        questions: [],
      },
      'refund $5',
      catalog,
    ),
    catalog,
  );
  assert.equal(ok.publishable, true);
  assert.equal(ok.spec?.status, 'DRAFT');
  const asked = draftSpec(
    readModelDraft(
      {
        triggers: [{ event: 'order.placed' }],
        steps: [{ name: 'x', tool: 'wire_money', args: {} }],
        limits: { maxSteps: 1, maxCostUsd: 0 },
        questions: ['Which account?'],
      },
      'r',
      catalog,
    ),
    catalog,
  );
  assert.equal(asked.publishable, false);
  assert.equal(asked.partial, undefined);
  const qs = asked.questions.map((q) => q.question).join('\n');
  assert.match(qs, /Which account\?/);
  assert.match(qs, /"wire_money", which is not in the tool catalog/);
  assert.match(qs, /"order\.placed", which is not known/);
  assert.match(draftPrompt('refund $5', catalog), /refund\.requested: payload refund_amount, currency/);
});

test('property: whatever a model answers, the draft never names a tool outside the catalog and is DRAFT', () => {
  const step = fc.record({
    name: fc.constantFrom('a', 'b', 'refund', '1bad'),
    tool: fc.constantFrom(...NAMES, 'wire_money', ''),
    args: fc.dictionary(fc.constantFrom('ticket_id', 'amount_usd', 'body', 'x'), fc.jsonValue()),
  });
  const answer = fc.oneof(
    fc.jsonValue(),
    fc.record({
      triggers: fc.array(fc.record({ event: fc.constantFrom('refund.requested', 'x.y') })),
      steps: fc.array(fc.oneof(step, fc.jsonValue()), { maxLength: 4 }),
      limits: fc.oneof(fc.record({ maxSteps: fc.integer(), maxCostUsd: fc.double() }), fc.jsonValue()),
      questions: fc.array(fc.string()),
      status: fc.constantFrom('LIVE', 'DRAFT'),
    }),
  );
  fc.assert(
    fc.property(answer, (a) => {
      const d = draftSpec(readModelDraft(a, 'a request', catalog), catalog);
      for (const s of [...(d.spec ? toolSteps(d.spec) : []), ...(d.partial ? toolSteps(d.partial) : [])])
        assert.ok(NAMES.has(s.tool), s.tool);
      if (d.spec) assert.equal(d.spec.status, 'DRAFT');
      assert.ok(d.publishable || d.questions.length > 0);
    }),
    { numRuns: 300 },
  );
});
