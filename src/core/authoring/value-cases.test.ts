/**
 * Cases keyed by the values of one field, each said with its own actions (grammar/value-cases.ts):
 * "urgent tickets -> ... . low ones -> ..." is a choice with a branch per case, read back under
 * Assumed; values of two fields, or a sentence that is no case, leave the request to the other
 * readers; the actions' words are still read by the checks that read every word. Over a catalog of
 * its own (a helpdesk's queue).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { contextFor } from './grammar/request-context.ts';
import { readValueCases } from './grammar/value-cases.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const ticket = { type: 'string', pattern: '^HD-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'tag_ticket',
      description: 'Tags a ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'tag'],
        properties: { ticket_id: ticket, tag: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'delete_ticket',
      description: 'Deletes a ticket for good.',
      args: {
        type: 'object',
        required: ['ticket_id'],
        properties: { ticket_id: ticket },
        additionalProperties: false,
      },
      destructive: true,
    }),
  ],
  events: [
    {
      type: 'ticket.opened',
      payload: ['priority', 'queue'],
      values: { priority: ['urgent', 'normal', 'low'], queue: ['billing', 'tech'] },
      subjects: ['HD-1', 'HD-2'],
    },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, desk), desk);

test('cases keyed by one field are a choice, a branch per case, read back', () => {
  const d = draft('urgent tickets -> tag it hot. low ones -> tag it cold');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'ticket.opened' }]);
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  assert.deepEqual(
    choice.choose.map((b) => [b.when, b.steps.map((s) => ('tool' in s ? s.args.tag : undefined))]),
    [
      ['payload.priority == "urgent"', ['hot']],
      ['payload.priority == "low"', ['cold']],
    ],
  );
  assert.equal(choice.else, undefined);
  assert.ok(
    d.readBack?.assumed?.some((a) => a.includes('choice on priority') && a.includes('run nothing')),
    JSON.stringify(d.readBack?.assumed),
  );
});

test('comma groups with marks of their own are cases too', () => {
  const d = draft('urgent -> tag it hot, low -> tag it cold');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  assert.deepEqual(
    choice.choose.map((b) => b.when),
    ['payload.priority == "urgent"', 'payload.priority == "low"'],
  );
});

test('cases on lines of their own, and a last line that does nothing', () => {
  const d = draft('for tickets:\nurgent -> tag it hot\nlow -> tag it cold\nanything else leave it');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  assert.deepEqual(
    choice.choose.map((b) => b.when),
    ['payload.priority == "urgent"', 'payload.priority == "low"'],
  );
  assert.equal(choice.else, undefined);
  // A line that goes on after a bullet is the bullet's list, as before.
  const listed = draft('urgent tickets\n- tag it hot\n- delete it');
  assert.deepEqual(
    listed.partial?.steps.map((s) => ('tool' in s ? s.tool : '')) ??
      listed.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
    ['tag_ticket', 'delete_ticket'],
  );
});

test('values of two fields, or a sentence that is no case, are no such choice', () => {
  const two = draft('urgent tickets -> tag it hot. billing ones -> tag it money');
  assert.ok(
    !two.spec?.steps.some((s) => 'choose' in s && s.name === 'by_priority'),
    JSON.stringify(two.spec),
  );
  const more = draft('urgent tickets -> tag it hot. low ones -> tag it cold. also tag every ticket seen');
  assert.ok(
    !more.spec?.steps.some((s) => 'choose' in s && s.name === 'by_priority'),
    JSON.stringify(more.spec),
  );
});

test("a case's words are still read: a destructive case with a word no reader takes is asked", () => {
  const d = draft('low tickets -> delete it, obviously after the weekend. urgent ones -> tag it hot');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('destructive') && q.question.includes('weekend')),
    JSON.stringify(d.questions),
  );
  // ...of the choice the cases made.
  assert.ok(
    (d.spec ?? d.partial)?.steps.some((s) => 'choose' in s && s.name === 'by_priority'),
    JSON.stringify(d.spec ?? d.partial),
  );
});

test("an else said apart is the choice's else", () => {
  const d = draft('urgent -> tag it hot. low -> tag it cold. everything else -> tag it meh');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [choice] = d.spec!.steps;
  assert.ok(choice && 'choose' in choice, JSON.stringify(d.spec!.steps));
  assert.equal(choice.choose.length, 2);
  assert.deepEqual(
    choice.else?.map((s) => ('tool' in s ? s.args.tag : undefined)),
    ['meh'],
  );
});

test("words before a later case's values are never dropped: the request is left to the other readers", () => {
  for (const request of [
    'urgent -> tag it hot. unless a manager objects: low -> delete it',
    'urgent -> tag it hot. after a week: low -> delete it',
    'urgent -> tag it hot. tech queue only: low -> delete it',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    assert.ok(!(d.spec ?? d.partial)?.steps.some((s) => 'choose' in s && s.name === 'by_priority'), request);
  }
});

test('a case reading given up leaves nothing behind in the request context', () => {
  // "frobnicate" is no action: the cases are given up, and what the attempt read is forgotten.
  const ctx = contextFor(desk);
  const text = 'urgent: tag it hot. low: frobnicate it';
  assert.equal(readValueCases(text, { text }, text, 'ticket.opened', text, ctx), undefined);
  assert.deepEqual([ctx.questions, ctx.notes, ctx.assumptions], [[], [], []]);
});

test('a line break ends a sentence only before a case of its own, never after a word that leads on', () => {
  // "under⏎$50" stays one bound; "don't⏎delete" stays one ban; a list's numbers are no values.
  const wrapped = draft("tag urgent tickets 'hot' and don't\ndelete them");
  assert.ok(
    !(wrapped.spec ?? wrapped.partial)?.steps.some((s) => 'tool' in s && s.tool === 'delete_ticket'),
    JSON.stringify(wrapped),
  );
  const listed = draft("1. urgent tickets: tag it 'hot'\n2. low ones: tag it 'cold'");
  assert.ok(!listed.questions.some((q) => /"1"|"2"/.test(q.question)), JSON.stringify(listed.questions));
});
