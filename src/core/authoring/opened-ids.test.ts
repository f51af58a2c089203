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
});

test("an id of a thing no step makes, while a tool would, is asked, never the event's subject", () => {
  // A stock.depleted event's subject is no case, and create_case would make one: which case?
  const d = draft('when stock is depleted, notify the team: please restock it');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some(
      (q) => q.about === 'args: notify_team.case_id' && q.question.includes('create_case would'),
    ),
    JSON.stringify(d.questions),
  );
  // Said in words, it is what the words say.
  const { args: said } = args(
    'when stock is depleted, notify the team. use the stock id as the case id and the summary as the text',
  );
  assert.equal(said[0]!.case_id, '{{event.subject}}');
  // Two steps make one: which, asked, never the subject.
  const two = draft(
    'when stock is depleted, create a case titled "restock" and create a case titled "audit", then notify the team: please look',
  );
  assert.equal(two.publishable, false);
  assert.ok(
    two.questions.some((q) => /Which case should .* take: what/.test(q.question)),
    JSON.stringify(two.questions),
  );
});

test('in a branch, an id is what a step before it in that branch made, never another branch', () => {
  const sited: DraftCatalog = {
    ...warehouse,
    events: [
      { type: 'stock.depleted', payload: ['sku', 'summary', 'site'], values: { site: ['east', 'west'] } },
    ],
  };
  const d = draftSpec(
    compileRequest(
      'east -> create a case titled "restock". west -> create a case titled "move" and notify the team: please look',
      sited,
    ),
    sited,
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  const west = choice.choose[1]!.steps;
  const made = west[0]!.name;
  assert.equal('tool' in west[1]! ? west[1].args.case_id : undefined, `{{steps.${made}.output.case_id}}`);
});
