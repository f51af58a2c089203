/**
 * The model-backed compiler's branch steps (`choose:` and a tool step's `if:`), answered by the
 * recorded provider as `keel draft --compiler model` asks it: the answer schema allows them, and a
 * branching draft goes through the same checks as any other (catalog tools in every branch, the
 * cap against the words, an amount condition the right way, one money-moving call per path).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordedModelProvider } from '../../src/adapters/recorded-model/index.ts';
import {
  DRAFT_ANSWER_SCHEMA,
  type DraftCatalog,
  draftPrompt,
  draftSpec,
  readModelDraft,
} from '../../src/core/authoring/index.ts';
import { isChooseStep, toolSteps } from '../../src/core/spec/index.ts';
import { supportDeskCatalog } from './support-desk-catalog.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [{ type: 'refund.requested', payload: ['refund_amount', 'currency'] }],
};
const refund = (name: string) => ({
  name,
  tool: 'issue_refund',
  args: { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
});
const reply = (name: string, body: string) => ({
  name,
  tool: 'draft_reply',
  args: { ticket_id: '{{event.subject}}', body },
});

/** What `keel draft --compiler model` does with a provider: prompt, schema, answer, checks. */
async function modelDraft(request: string, response: unknown) {
  const provider = recordedModelProvider([{ match: request, response }]);
  const answer = await provider.complete({
    prompt: draftPrompt(request, catalog),
    schema: DRAFT_ANSWER_SCHEMA,
    catalog: catalog.tools.map((t) => ({ name: t.name, description: t.description, args: t.args })),
  });
  assert.equal(provider.requests.length, 1);
  assert.equal(provider.requests[0]!.schema, DRAFT_ANSWER_SCHEMA);
  return draftSpec(readModelDraft(answer, request, catalog), catalog);
}

test('the answer schema allows a choose step and a tool step with if; the prompt says how to use them', () => {
  const defs = DRAFT_ANSWER_SCHEMA.$defs as Record<string, { properties: Record<string, unknown> }>;
  assert.ok(defs.chooseStep?.properties.choose && defs.chooseStep.properties.else);
  assert.ok(defs.toolStep?.properties.if);
  assert.match(draftPrompt('x', catalog), /choose step/);
});

test('a model draft with a choice and an else drafts, and is checked like any draft', async () => {
  const request =
    'When a refund is requested, refund it if it is $50 or less, otherwise reply "A lead will look at it"';
  const d = await modelDraft(request, {
    triggers: [{ event: 'refund.requested' }],
    steps: [
      {
        name: 'by_amount',
        choose: [{ when: 'payload.refund_amount <= 50', steps: [refund('refund')] }],
        else: [reply('tell', 'A lead will look at it.')],
      },
    ],
    limits: { maxSteps: 1, maxCostUsd: 50 },
    questions: [],
  });
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec?.status, 'DRAFT');
  assert.ok(d.spec && isChooseStep(d.spec.steps[0]!));
  assert.deepEqual(
    toolSteps(d.spec!)
      .map((s) => s.tool)
      .sort(),
    ['draft_reply', 'issue_refund'],
  );
});

test('a tool step with if drafts; the same checks refuse an inverted bound in it', async () => {
  const ok = await modelDraft('When a refund is requested, refund it if it is under $30', {
    triggers: [{ event: 'refund.requested' }],
    steps: [{ ...refund('refund'), if: 'payload.refund_amount < 30' }],
    limits: { maxSteps: 1, maxCostUsd: 30 },
    questions: [],
  });
  assert.equal(ok.publishable, true, JSON.stringify(ok.questions));
  const inverted = await modelDraft("When a refund is requested, don't refund more than 30", {
    triggers: [{ event: 'refund.requested' }],
    steps: [{ ...refund('refund'), if: 'payload.refund_amount > 30' }],
    limits: { maxSteps: 1, maxCostUsd: 30 },
    questions: [],
  });
  assert.equal(inverted.publishable, false);
  assert.ok(inverted.questions.some((q) => /upper bound/.test(q.question)));
});

test('in a branch: an unknown tool is a question, a cap above the words is refused, two refunds on a path are refused', async () => {
  const request = 'When a refund is requested, refund up to $40, otherwise reply "No"';
  const unknown = await modelDraft(request, {
    triggers: [{ event: 'refund.requested' }],
    steps: [
      {
        name: 'c',
        choose: [{ when: 'payload.refund_amount <= 40', steps: [refund('r')] }],
        else: [{ name: 'w', tool: 'wire_money', args: {} }],
      },
    ],
    limits: { maxSteps: 1, maxCostUsd: 40 },
    questions: [],
  });
  assert.equal(unknown.publishable, false);
  assert.ok(unknown.questions.some((q) => /"wire_money", which is not in the tool catalog/.test(q.question)));
  const over = await modelDraft(request, {
    triggers: [{ event: 'refund.requested' }],
    steps: [{ name: 'c', choose: [{ when: 'payload.refund_amount <= 40', steps: [refund('r')] }] }],
    limits: { maxSteps: 1, maxCostUsd: 400 },
    questions: [],
  });
  assert.equal(over.publishable, false);
  assert.ok(over.questions.some((q) => q.about === 'safety' && /above \$40/.test(q.question)));
  const twice = await modelDraft(request, {
    triggers: [{ event: 'refund.requested' }],
    steps: [
      {
        name: 'c',
        choose: [{ when: 'payload.refund_amount <= 40', steps: [refund('r1'), refund('r2')] }],
        else: [reply('no', 'No')],
      },
    ],
    limits: { maxSteps: 2, maxCostUsd: 40 },
    questions: [],
  });
  assert.equal(twice.publishable, false);
  assert.ok(twice.questions.some((q) => /calls issue_refund 2 times/.test(q.question)));
});
