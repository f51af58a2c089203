/**
 * The values a tenant's reviewed workflows test join the sample events' values
 * (tested-values.ts): "enterprise" is a plan once a workflow tests `payload.plan == "enterprise"`,
 * so "urgent or enterprise" drafts. Never a new field or event type, never a field samples show no
 * short text value for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND6_DIR, catalogOf, templateSamples } from '../../../test/authoring/draft-corpus.ts';
import { compileRequest } from './compile-request.ts';
import { draftSpec } from './draft-spec.ts';
import { eventShapesOf } from './event-shapes-of.ts';
import { withTestedValues } from './tested-values.ts';

const samples = [
  {
    type: 'ticket.created',
    subject: 'T-1',
    payload: { plan: 'pro', priority: 'urgent', title: 'x', seats: 3 },
  },
  {
    type: 'ticket.created',
    subject: 'T-2',
    payload: { plan: 'free', priority: 'low', title: 'y', seats: 1 },
  },
];

test('values a workflow tests join the samples values of the same field', () => {
  const [shape] = withTestedValues(eventShapesOf(samples), [
    {
      triggers: [
        { event: 'ticket.created', when: 'payload.priority == "urgent" or payload.plan == "enterprise"' },
      ],
      steps: [{ name: 'a', tool: 't', args: {}, if: 'payload.plan != "partner"' }],
    },
  ]);
  assert.deepEqual(shape!.values!.plan, ['enterprise', 'free', 'partner', 'pro']);
  // A choice nested in a parallel branch is read too.
  const [nested] = withTestedValues(eventShapesOf(samples), [
    {
      triggers: [{ event: 'ticket.created' }],
      steps: [
        {
          name: 'p',
          parallel: {
            branches: { a: [{ name: 'c', choose: [{ when: 'payload.plan == "edu"', steps: [] }] }] },
          },
        } as never,
      ],
    },
  ]);
  assert.deepEqual(nested!.values!.plan, ['edu', 'free', 'pro']);
  assert.deepEqual(shape!.values!.priority, ['low', 'urgent']);
});

test('never a new field or type, never a field with no sample values, never from steps of two event types', () => {
  const shapes = withTestedValues(eventShapesOf(samples), [
    { triggers: [{ event: 'ticket.created', when: 'payload.region == "eu" and payload.seats == "9"' }] },
    { triggers: [{ event: 'order.placed', when: 'payload.plan == "gold"' }] },
    {
      triggers: [{ event: 'ticket.created' }, { event: 'ticket.updated' }],
      steps: [{ name: 'a', tool: 't', args: {}, if: 'payload.plan == "vip"' }],
    },
    { triggers: [{ event: 'ticket.created', when: 'payload.plan == "has a space"' }] },
    { triggers: 'not a list', steps: 7 } as never,
  ]);
  assert.deepEqual(
    shapes.map((s) => s.type),
    ['ticket.created'],
  );
  assert.equal(shapes[0]!.payload.includes('region'), false);
  assert.equal(shapes[0]!.values!.seats, undefined);
  assert.deepEqual(shapes[0]!.values!.plan, ['free', 'pro']);
});

test('"urgent or enterprise" drafts once a reviewed workflow tests the enterprise plan', () => {
  // The template's samples alone: the corpus reads its workflows' values too.
  const base = {
    ...catalogOf(BLIND6_DIR, 'ticket-triage'),
    events: eventShapesOf(templateSamples('ticket-triage')),
  };
  const r = "urgent or enterprise → alert #oncall-support with 'hi'";
  const before = draftSpec(compileRequest(r, base), base);
  assert.equal(before.publishable, false, 'no sample shows an enterprise plan');
  const events = withTestedValues(base.events!, [
    { triggers: [{ event: 'ticket.created', when: 'payload.plan == "enterprise"' }] },
  ]);
  const catalog = { ...base, events };
  const d = draftSpec(compileRequest(r, catalog), catalog);
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, 'payload.priority == "urgent" or payload.plan == "enterprise"');
});
