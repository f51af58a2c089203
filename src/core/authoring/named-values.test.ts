/**
 * A field of the event named with its value, as people head a rule (grammar/read-named-values.ts):
 * `reason "wrong size" ->`, `reason = never arrived:`; the value kept whole and as typed, and the
 * event the field belongs to taken when no other carries it (grammar/infer-event.ts). A quoted
 * message to someone the event names ("notify the agent 'Done'") stays the message. Over a desk of
 * its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'answer_customer',
      description: 'Answers the customer on their case.',
      args: {
        type: 'object',
        required: ['case_id', 'body'],
        properties: { case_id: { type: 'string' }, body: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
      effect: 'external',
    }),
    tool({
      name: 'notify_agent',
      description: 'Notifies the agent of a case.',
      args: {
        type: 'object',
        required: ['case_id', 'message'],
        properties: { case_id: { type: 'string' }, message: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
    }),
  ],
  events: [
    { type: 'return.requested', payload: ['reason', 'agent'] },
    { type: 'customer.replied', payload: ['text'] },
  ],
};
const draft = (request: string) => draftSpec(compileRequest(request, desk), desk);

test('a field said with its value heads the rule: the value whole, the event the one carrying the field', () => {
  for (const [request, when] of [
    [
      'reason "wrong size" -> answer them: we have emailed you a return label',
      'payload.reason == "wrong size"',
    ],
    [
      'reason = never arrived: answer them: we are looking for your parcel',
      'payload.reason == "never arrived"',
    ],
    [
      "for reason 'Arrived Damaged', answer them: we are sorry, a new one is on its way",
      'payload.reason == "Arrived Damaged"',
    ],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(d.spec!.triggers, [{ event: 'return.requested', when }], request);
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes('names its reason field, and no other event carries one')),
      `${request}: ${JSON.stringify(d.readBack?.assumed)}`,
    );
  }
});

test('a quoted message to someone the event names is the message, not a test of that field', () => {
  const d = draft("when a return is requested, notify the agent 'Done'");
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'return.requested' }]);
  const [step] = d.spec!.steps;
  assert.ok(step && 'tool' in step);
  assert.equal(step.args.message, 'Done');
});
