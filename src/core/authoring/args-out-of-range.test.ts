/**
 * An argument given an event field whose sampled values its tool never takes (args-out-of-range.ts)
 * is asked about, whatever compiled the draft: every run would fail at that step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { argsOutOfRange } from './args-out-of-range.ts';
import type { DraftCatalog } from './index.ts';

const oncall = (sampled: string[]): DraftCatalog => ({
  tools: [
    tool({
      name: 'open_incident',
      description: 'Opens an incident.',
      args: {
        type: 'object',
        required: ['title', 'severity'],
        properties: { title: { type: 'string' }, severity: { enum: ['sev1', 'sev2', 'sev3'] } },
      },
    }),
  ],
  events: [{ type: 'alert.fired', payload: ['service', 'severity'], values: { severity: sampled } }],
});
const spec: WorkflowSpec = {
  id: 'x',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'alert.fired' }],
  steps: [
    { name: 'open', tool: 'open_incident', args: { title: 'Down', severity: '{{event.payload.severity}}' } },
  ],
  limits: { maxSteps: 1, maxCostUsd: 0 },
} as WorkflowSpec;

test('an event field whose samples the tool never takes is found; one sharing a value is not', () => {
  assert.deepEqual(
    argsOutOfRange(spec, oncall(['critical', 'warning'])).map((a) => [a.step, a.arg, a.field]),
    [['open', 'severity', 'severity']],
  );
  assert.deepEqual(argsOutOfRange(spec, oncall(['sev1', 'critical'])), []);
});

test('such a draft is asked about, whatever compiled it', () => {
  const catalog = oncall(['critical', 'warning']);
  const d = modelDrafted(
    spec,
    'when an alert fires open an incident titled "Down" with the alert severity',
    catalog,
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith(
        "Step open (open_incident) gives severity the event's severity, which the samples show as critical or warning",
      ),
    ),
    JSON.stringify(d.questions),
  );
});
