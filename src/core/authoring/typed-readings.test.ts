/**
 * Readings of requests as people type them, over generated combinations: a trigger clause typed
 * without its comma, chat abbreviations, other spellings of the catalog's verbs and conditions
 * placed after the action give the same draft as the plain phrasing. Every case also goes through
 * draftSpec, so the safety checks (draft-safety.ts) judge each reading.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { compileRequest, type DraftCatalog, draftSpec } from './index.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, catalog), catalog);
/** What a draft does, without its description (which quotes the request). */
const meaning = (request: string) => {
  const d = draft(request);
  return d.publishable && d.spec
    ? { triggers: d.spec.triggers, steps: d.spec.steps, limits: d.spec.limits }
    : { asked: true };
};

const TRIGGERS = [
  'when a refund request comes in',
  'whenever a customer asks for a refund',
  'once a refund has been requested',
  'when a refund is requested',
];
const ACTIONS = [
  'refund it up to $30',
  'refund them, max $25',
  'reply "We are on it" and refund it under $40',
  'send them a reply "Thanks"',
];

test('property: a trigger clause typed without its comma drafts as with it', () => {
  fc.assert(
    fc.property(fc.constantFrom(...TRIGGERS), fc.constantFrom(...ACTIONS), (t, a) => {
      const withComma = meaning(`${t}, ${a}`);
      assert.notDeepEqual(withComma, { asked: true }, `${t}, ${a}`);
      assert.deepEqual(meaning(`${t} ${a}`), withComma, `${t} ${a}`);
    }),
    { numRuns: 60 },
  );
});

test('the action after a trigger typed without a comma: "tag it done and then close it" is two steps', () => {
  const d = draft('when a ticket gets resolved tag it done and then close it');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec?.steps.map((s) => ('tool' in s ? [s.tool, s.args.tag] : [])),
    [
      ['tag_ticket', 'done'],
      ['close_ticket', undefined],
    ],
  );
});
