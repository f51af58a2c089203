/**
 * A destructive step's fixed value that the draft's own test contradicts (constants-over-events.ts):
 * "grant editor access on analytics or crm" drafted as a CRM grant for the events that ask for
 * analytics is asked about, whatever compiled it. So is a fixed system given to every request with
 * no test of the event's own ("grant crm access whenever it is requested"), but a fixed level
 * beside it ("grant read access" to every request) or one the words say goes to every event
 * ("regardless of the system asked for") is a reading the words can mean, left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { modelDrafted } from '../../../test/authoring/model-drafted.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { constantsOverEvents, untestedConstants } from './constants-over-events.ts';
import type { DraftCatalog } from './index.ts';

const SYSTEMS = ['analytics', 'crm', 'payroll'];
/** A destructive grant taking `properties`, all required. */
const grantAccess = (properties: Record<string, unknown>) =>
  tool({
    name: 'grant_access',
    destructive: true,
    description: 'Grants a role on a system to an employee.',
    args: { type: 'object', required: Object.keys(properties), properties },
  });
const desk: DraftCatalog = {
  tools: [grantAccess({ employee_id: { type: 'string' }, system: { enum: SYSTEMS } })],
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

test('a fixed system given to every event, whatever system it asks for, is asked about, whatever compiled it', () => {
  const r = 'grant crm access whenever it is requested';
  assert.deepEqual(untestedConstants(r, spec('crm'), desk), [
    { step: 'grant', tool: 'grant_access', arg: 'system', value: 'crm', event: 'access.requested' },
  ]);
  assert.deepEqual(untestedConstants(r, spec('crm', 'payload.system == "crm"'), desk), []);
  assert.deepEqual(untestedConstants(r, spec('{{event.payload.system}}'), desk), []);
  assert.deepEqual(untestedConstants('regardless of the system asked for, grant crm', spec('crm'), desk), []);
  const d = modelDrafted(spec('crm'), r, desk);
  assert.equal(d.publishable, false);
  assert.ok(d.questions.some((q) => /gives system "crm" on every access\.requested event/.test(q.question)));
  // A level fixed alone, beside the event's own system, is the words' policy ("grant read access").
  const levels: DraftCatalog = {
    tools: [grantAccess({ system: { enum: SYSTEMS }, role: { enum: ['read', 'write'] } })],
    events: [{ type: 'access.requested', payload: ['system', 'role'] }],
  };
  const grant = (args: Record<string, string>) =>
    ({ ...spec('crm'), steps: [{ name: 'grant', tool: 'grant_access', args }] }) as WorkflowSpec;
  assert.deepEqual(
    untestedConstants(
      'grant read access',
      grant({ system: '{{event.payload.system}}', role: 'read' }),
      levels,
    ),
    [],
  );
  assert.equal(
    untestedConstants('grant crm read access', grant({ system: 'crm', role: 'read' }), levels).length,
    2,
  );
});
