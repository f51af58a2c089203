/**
 * An id argument that names what an earlier step of the draft opened or created is that step's
 * output, not the event's subject (grammar/earlier-outputs.ts): an alert's subject is no incident,
 * so a page about the incident just opened carries the incident's id. Over a catalog of its own (a
 * shop's warehouse); each reading is listed under Assumed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const warehouse: DraftCatalog = {
  tools: [
    tool({
      name: 'create_case',
      description: 'Creates a case for the warehouse team and returns its id.',
      args: {
        type: 'object',
        required: ['sku', 'title'],
        properties: { sku: { type: 'string' }, title: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'notify_team',
      description: 'Notifies the warehouse team about a case.',
      args: {
        type: 'object',
        required: ['case_id', 'text'],
        properties: { case_id: { type: 'string' }, text: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
      effect: 'external',
    }),
  ],
  events: [
    { type: 'stock.depleted', payload: ['sku', 'summary'] },
    { type: 'case.escalated', payload: ['sku', 'summary'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, warehouse), warehouse);
const args = (request: string) => {
  const d = draft(request);
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return { args: d.spec!.steps.map((s) => ('tool' in s ? s.args : {})), assumed: d.readBack?.assumed ?? [] };
};

test("an id of what an earlier step created is that step's output, not the event's subject", () => {
  const { args: got, assumed } = args(
    'when stock is depleted, create a case titled "restock" and notify the team: please restock it',
  );
  assert.equal(got[1]!.case_id, '{{steps.create.output.case_id}}');
  assert.ok(
    assumed.some((a) =>
      a.includes("case_id is what create (create_case) made: the stock.depleted event's subject is no case"),
    ),
    JSON.stringify(assumed),
  );
});

test("an id of the event's own thing stays the event's subject", () => {
  // A case.escalated event is about a case: its subject is that case.
  const { args: got } = args('when a case is escalated, notify the team: please look at it now');
  assert.equal(got[0]!.case_id, '{{event.subject}}');
  // Nothing created a case before the notice: the subject, as before.
  const { args: alone } = args('when stock is depleted, notify the team: please restock it');
  assert.equal(alone[0]!.case_id, '{{event.subject}}');
});
