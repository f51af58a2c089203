/**
 * A destructive step's fixed value that the draft's own test contradicts (constants-over-events.ts):
 * "grant editor access on analytics or crm" drafted as a CRM grant for the events that ask for
 * analytics is asked about, whatever compiled it; a fixed value over the event's own with no test
 * of that field ("grant read access" to every request) is a reading the words can mean, left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { constantsOverEvents } from './constants-over-events.ts';
import type { DraftCatalog } from './index.ts';

const SYSTEMS = ['analytics', 'crm', 'payroll'];
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'grant_access',
      destructive: true,
      description: 'Grants a role on a system to an employee.',
      args: {
        type: 'object',
        required: ['employee_id', 'system'],
        properties: { employee_id: { type: 'string' }, system: { enum: SYSTEMS } },
      },
    }),
  ],
  events: [{ type: 'access.requested', payload: ['system', 'role'], values: { system: SYSTEMS } }],
};
const spec = (system: string, when?: string): WorkflowSpec =>
  ({
    id: 'x',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'access.requested', ...(when ? { when } : {}) }],
    steps: [{ name: 'grant', tool: 'grant_access', args: { employee_id: '{{event.subject}}', system } }],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  }) as WorkflowSpec;

test('a fixed value the draft tests the event for another value of is found; one with no such test is not', () => {
  assert.deepEqual(constantsOverEvents(spec('crm', 'payload.system == "analytics"'), desk), [
    {
      step: 'grant',
      tool: 'grant_access',
      arg: 'system',
      value: 'crm',
      event: 'access.requested',
      field: 'system',
      said: 'analytics',
    },
  ]);
  // Another field tested for a value the argument takes too: "payroll" requests granted "crm".
  assert.deepEqual(
    constantsOverEvents(spec('crm', 'payload.role == "payroll"'), desk).map((c) => [c.field, c.said]),
    [['role', 'payroll']],
  );
  assert.deepEqual(constantsOverEvents(spec('crm', 'payload.role == "admin"'), desk), []);
  assert.deepEqual(constantsOverEvents(spec('crm', 'payload.system == "crm"'), desk), []);
  assert.deepEqual(constantsOverEvents(spec('crm'), desk), []);
  assert.deepEqual(
    constantsOverEvents(spec('{{event.payload.system}}', 'payload.system == "crm"'), desk),
    [],
  );
});

test('such a draft is asked about, whatever compiled it', () => {
  const s = spec('crm', 'payload.system == "analytics"');
  const d = modelDrafted(s, 'grant access on analytics or crm', desk);
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) =>
      q.question.startsWith('Step grant (grant_access) gives system "crm", but the workflow runs'),
    ),
    JSON.stringify(d.questions),
  );
});
