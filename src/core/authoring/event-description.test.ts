/**
 * A required text that says what happened (an incident's title, a page's message), given no text,
 * is the event's own description, its `summary` (grammar/field-for-arg.ts), read back under
 * Assumed; only of a step the words say something of ("open a p1"), never of a bare "open a
 * ticket", never a text written to a person (`body`), never a field its author wrote (a review's
 * `title`). And a value the trigger lets in that a step's argument would refuse is asked
 * (refused-values.ts). Over a catalog of its own (a monitoring desk).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';
import { refusedTriggerValues } from './refused-values.ts';

const SERVICES = ['web', 'db', 'queue'];
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'open_ticket',
      description: 'Opens an ops ticket for a service and returns its ticket_id.',
      args: {
        type: 'object',
        required: ['service', 'priority', 'headline'],
        properties: {
          service: { enum: SERVICES },
          priority: { enum: ['p1', 'p2', 'p3'] },
          headline: { type: 'string', minLength: 1 },
        },
        additionalProperties: false,
      },
    }),
    tool({
      name: 'radio_crew',
      description: "Radios a service's crew (day or night shift) with a message.",
      args: {
        type: 'object',
        required: ['service', 'shift', 'message'],
        properties: {
          service: { enum: SERVICES },
          shift: { enum: ['day', 'night'] },
          message: { type: 'string', minLength: 1 },
        },
        additionalProperties: false,
      },
      effect: 'external',
    }),
    tool({
      name: 'email_reviewer',
      description: 'Emails the person who posted a review.',
      args: {
        type: 'object',
        required: ['body'],
        properties: { body: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      },
      effect: 'external',
    }),
  ],
  events: [
    {
      type: 'check.failed',
      payload: ['service', 'level', 'summary'],
      values: { service: ['web', 'db'], level: ['error', 'warn'] },
    },
    { type: 'review.posted', payload: ['title', 'stars'] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, desk), desk);

test("a step the words say something of takes the event's summary as its text, read back", () => {
  const d = draft('failed checks on web → open a p1 ticket and radio the night crew');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const [ticket, radio] = d.spec!.steps.map((s) => ('tool' in s ? s.args : {}));
  assert.equal(ticket!.headline, '{{event.payload.summary}}');
  assert.equal(radio!.message, '{{event.payload.summary}}');
  const assumed = d.readBack?.assumed ?? [];
  for (const a of ["open_ticket's headline", "radio_crew's message"])
    assert.ok(
      assumed.some((x) => x.startsWith(a) && x.includes("check.failed event's summary")),
      JSON.stringify(assumed),
    );
});

test('a bare action, a text to a person and a field its author wrote are asked, never defaulted', () => {
  const bare = draft('when a check fails, open a ticket');
  assert.equal(bare.publishable, false);
  assert.ok(
    bare.questions.some((q) => q.about === 'args: open_ticket.headline'),
    JSON.stringify(bare.questions),
  );
  const body = draft('when a review is posted, email the reviewer');
  assert.equal(body.publishable, false);
  assert.ok(
    body.questions.some((q) => q.about === 'args: email_reviewer.body'),
    JSON.stringify(body.questions),
  );
});

test('a value the trigger lets in that a step would refuse is asked', () => {
  // "queue" is a service the tools take, "billing" is not.
  const ok = draft('failed checks on the queue service: open a p2 ticket');
  assert.equal(ok.publishable, true, JSON.stringify(ok.questions));
  const d = draft('failed checks on the billing service: open a p2 ticket');
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.about === 'triggers: payload.service' && q.question.includes('"billing"')),
    JSON.stringify(d.questions),
  );
  // Whatever compiled the draft: the check reads the spec, a model's too.
  const spec = {
    ...ok.spec!,
    triggers: [{ event: 'check.failed', when: 'payload.level == "error" or payload.service == "mail"' }],
  };
  const qs = refusedTriggerValues(spec, desk.tools);
  assert.deepEqual(
    qs.map((q) => q.candidates),
    [SERVICES],
  );
  // A choice's branch lets in what its test says, for the steps of that branch.
  const branched = {
    ...ok.spec!,
    triggers: [{ event: 'check.failed' }],
    steps: [{ name: 'by_service', choose: [{ when: 'payload.service == "mail"', steps: ok.spec!.steps }] }],
  } as typeof spec;
  assert.equal(refusedTriggerValues(branched, desk.tools).length, 1);
  // A value the trigger excludes (under `not`, or `!=`) lets nothing in: no question.
  const not = { ...spec, triggers: [{ event: 'check.failed', when: 'not payload.service == "mail"' }] };
  assert.deepEqual(refusedTriggerValues(not, desk.tools), []);
});

test('property: no published draft lets in a value that a step reading it refuses', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...SERVICES, 'billing', 'mail', 'search', 'auth'),
      fc.constantFrom(
        'open a p2 ticket',
        'radio the day crew saying "check it"',
        'open a p1 ticket and radio the night crew',
      ),
      (service, action) => {
        const d = draft(`failed checks on the ${service} service: ${action}`);
        if (!d.publishable) return;
        for (const t of d.spec!.triggers)
          for (const m of (t.when ?? '').matchAll(/payload\.service == "([^"]*)"/g))
            assert.ok(SERVICES.includes(m[1]!), `${service}: ${t.when}`);
      },
    ),
    { numRuns: 60 },
  );
});
