/**
 * A trigger that names the noun of the catalog's only event about it, and a verb of its own. The
 * event is assumed (and read back under "Assumed") only when the verb fits it: "a ticket is closed"
 * fits ticket.resolved, "a refund comes in" fits refund.requested; "a ticket is escalated", "comes
 * in", "is reopened" or "new tickets" do not fit ticket.resolved and are a question, never a run on
 * the wrong event. And an amount in another currency is asked about once, with the amount as said.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { EVENT_VERB_GROUPS } from './request-words.ts';

const catalog: DraftCatalog = {
  tools: [
    tool({
      name: 'tag_ticket',
      description: 'Adds a tag to a ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'tag'],
        properties: { ticket_id: { type: 'string' }, tag: { type: 'string' } },
      },
    }),
    tool({
      name: 'issue_refund',
      description: 'Refunds money to the customer of a ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'amount_usd'],
        properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      cost: { fromArg: 'amount_usd' },
      destructive: true,
    }),
  ],
  events: [
    { type: 'ticket.resolved', payload: ['ticket_id'] },
    { type: 'refund.requested', payload: ['ticket_id', 'refund_amount'] },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, catalog), catalog);

test('a verb that fits the only event of its noun drafts it, read back under Assumed', () => {
  for (const [request, event] of [
    ['when a ticket is closed, tag it done', 'ticket.resolved'],
    ["when a ticket's resolved, tag it done", 'ticket.resolved'],
    ['tickets: tag them billing', 'ticket.resolved'],
    ['whenever a new refund comes in, refund it, max $20', 'refund.requested'],
    ['new refund requests: refund up to $20', 'refund.requested'],
  ] as const) {
    const d = draft(request);
    assert.deepEqual(
      d.spec?.triggers.map((t) => t.event),
      [event],
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('the read-back says which word named the event, or that none did', () => {
  const said = draft('after a ticket gets closed out as resolved, label it billing');
  assert.ok(
    said.readBack?.assumed?.some((a) =>
      a.startsWith(
        'The workflow starts on ticket.resolved: "resolved" in "after a ticket gets closed out as resolved" names its verb',
      ),
    ),
    JSON.stringify(said.readBack?.assumed),
  );
  const none = draft('tickets: tag them billing');
  assert.ok(
    none.readBack?.assumed?.some((a) => a.includes('"tickets" names no event\'s verb')),
    JSON.stringify(none.readBack?.assumed),
  );
});

test('a verb of its own that does not fit the only event of its noun is a question naming it', () => {
  for (const [request, said] of [
    ['when a ticket is escalated, tag it urgent', 'escalated'],
    ['when a ticket comes in, tag it new', 'comes'],
    ['when a ticket is reopened, tag it urgent', 'reopened'],
    ['new tickets: tag them billing', 'new'],
    ['when a ticket gets approved, tag it ok', 'approved'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    const q = d.questions.find((x) => x.about === 'triggers');
    assert.ok(q, `${request}: ${JSON.stringify(d.questions)}`);
    assert.match(
      q.question,
      new RegExp(`says "${said}", and the only event about ticket is ticket\\.resolved`),
    );
    assert.ok(!d.readBack?.text.includes('The workflow starts on ticket.resolved'), request);
  }
});

test('for every listed event verb in -ed but those of resolved and closed, ticket.resolved is never assumed', () => {
  const verbs = EVENT_VERB_GROUPS.filter((g) => !g.includes('resolved') && !g.includes('closed'))
    .flat()
    .filter((v) => /^[a-z]+ed$/.test(v));
  fc.assert(
    fc.property(fc.constantFrom(...verbs), fc.constantFrom('is', 'was', 'gets', 'got'), (v, aux) => {
      const d = draft(`when a ticket ${aux} ${v}, tag it billing`);
      const assumed = d.spec?.triggers.some((t) => t.event === 'ticket.resolved') && d.publishable;
      assert.ok(!assumed, `"${aux} ${v}" drafted ticket.resolved: ${d.readBack?.text}`);
    }),
    { numRuns: 200 },
  );
});

test('an amount in another currency is one question, with the amount as the request says it', () => {
  for (const [request, amount] of [
    ['refund anyone under 20 pounds', '20 pounds'],
    ['refund anyone under £20', '£20'],
    ['refund anyone under €12.50', '€12.50'],
    ['refund up to 20 quid', '20 quid'],
    ['refund anyone under fifty euros', 'fifty euros'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, false, request);
    assert.deepEqual(
      d.questions.map((q) => q.question),
      [
        `The request names ${amount}, but the tools and the spend cap count US dollars. What is the amount in dollars?`,
      ],
      request,
    );
  }
});
