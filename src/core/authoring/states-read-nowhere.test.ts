/**
 * A state said of the events that the draft reads nowhere (states-read-nowhere.ts): "reimburse
 * approved expenses" drafted on expense.submitted, with no test, is asked about, whatever compiled
 * it; the event's own verb ("submitted expenses") or a test naming it ("matched" read from a
 * step's output) reads it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './index.ts';
import { statesReadNowhere } from './states-read-nowhere.ts';

const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'reimburse',
      description: 'Reimburses an expense. Moves money.',
      cost: { fromArg: 'amount_usd' },
      args: {
        type: 'object',
        required: ['report_id', 'amount_usd'],
        properties: { report_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
    }),
  ],
  events: [{ type: 'expense.submitted', payload: ['amount_usd', 'approved'] }],
};
const spec = (when?: string): WorkflowSpec =>
  ({
    id: 'x',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'expense.submitted', ...(when ? { when } : {}) }],
    steps: [
      {
        name: 'pay',
        tool: 'reimburse',
        args: { report_id: '{{event.subject}}', amount_usd: '{{event.payload.amount_usd}}' },
      },
    ],
    limits: { maxSteps: 1, maxCostUsd: 300 },
  }) as WorkflowSpec;

test('a participle before the event noun is read by the event verb or a test, else found', () => {
  assert.deepEqual(statesReadNowhere('reimburse approved expenses up to $300', spec()), [
    'approved expenses',
  ]);
  assert.deepEqual(
    statesReadNowhere('reimburse approved expenses up to $300', spec('payload.approved == true')),
    [],
  );
  assert.deepEqual(statesReadNowhere('reimburse submitted expenses up to $300', spec()), []);
});

test('such a draft is asked about, whatever compiled it', () => {
  const s = spec();
  const d = modelDrafted(s, 'reimburse approved expenses up to $300', desk);
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith('The request says "approved expenses", but the workflow starts on'),
    ),
    JSON.stringify(d.questions),
  );
});
