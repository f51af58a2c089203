/**
 * A trigger that names its event by the verb instead of the noun (grammar/event-verb-forms.ts), over
 * catalogs no set uses: a shop's order.shipped / order.returned ("shipments", "returns", "when
 * something ships") and a club's member.joined / member.left ("new joiners", "all leavers",
 * "someone leaving", "on join"), or by a value only one event's fields hold ("dhl:", "damaged:").
 * Taken only when exactly one event fits, and read back under
 * "Assumed"; a verb that fits both events, or none, or a clause that says another verb of its
 * own, still asks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { namesEventVerb, verbFormsOf } from './grammar/event-verb-forms.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const idArg = (name: string) =>
  ({ type: 'object', required: [name], properties: { [name]: { type: 'string' } } }) as const;
const shop: DraftCatalog = {
  tools: [
    tool({
      name: 'notify_warehouse',
      description: 'Tells the warehouse about an order.',
      args: idArg('order_id'),
    }),
    tool({
      name: 'send_survey',
      description: 'Sends the customer a feedback survey.',
      args: idArg('order_id'),
    }),
  ],
  events: [
    { type: 'order.shipped', payload: ['order_id', 'carrier'], values: { carrier: ['dhl', 'ups'] } },
    { type: 'order.returned', payload: ['order_id', 'reason'], values: { reason: ['damaged', 'lost'] } },
  ],
};
const club: DraftCatalog = {
  tools: [
    tool({
      name: 'send_welcome_kit',
      description: 'Posts a welcome kit to a member.',
      args: idArg('member_id'),
    }),
    tool({ name: 'close_locker', description: 'Closes a member locker.', args: idArg('member_id') }),
  ],
  events: [
    { type: 'member.joined', payload: ['member_id', 'plan'] },
    { type: 'member.left', payload: ['member_id', 'plan'] },
  ],
};
const draft = (r: string, c: DraftCatalog) => draftSpec(compileRequest(r, c), c);

test('an event named by a form of its verb or its doer starts the workflow, read back under Assumed', () => {
  for (const [request, catalog, event] of [
    ['shipments: send a survey', shop, 'order.shipped'],
    ['returns -> notify the warehouse', shop, 'order.returned'],
    ['when something ships, send a survey', shop, 'order.shipped'],
    ['new joiners: send a welcome kit', club, 'member.joined'],
    ['every new joiner gets a welcome kit', club, 'member.joined'],
    ['when somebody joins, send the welcome kit', club, 'member.joined'],
    ['all leavers: close their locker', club, 'member.left'],
    ['someone leaving -> close the locker', club, 'member.left'],
    ['on join, send a welcome kit', club, 'member.joined'],
  ] as const) {
    const d = draft(request, catalog);
    assert.equal(d.spec?.triggers[0]?.event, event, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.match((d.readBack?.assumed ?? []).join('\n'), new RegExp(event.replace('.', '\\.')), request);
  }
});

test('a heading that is only a value starts on the one event whose fields hold it, under Assumed', () => {
  for (const [request, event, when] of [
    ['dhl: send a survey', 'order.shipped', 'payload.carrier == "dhl"'],
    ['damaged: notify the warehouse', 'order.returned', 'payload.reason == "damaged"'],
  ] as const) {
    const d = draft(request, shop);
    assert.equal(d.spec?.triggers[0]?.event, event, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, when, request);
    assert.equal(d.publishable, true, request);
    assert.match((d.readBack?.assumed ?? []).join('\n'), /names no event/, request);
  }
  // A value no event's fields show is still a question.
  assert.ok(draft('fedex: send a survey', shop).questions.some((q) => q.about === 'triggers'));
});

test('a verb no event has, or a verb of its own said with it, is still a question', () => {
  for (const [request, catalog] of [
    ['when something arrives, send a survey', shop],
    ['when something ships or gets returned, send a survey', shop],
    ['when someone comes back from leave, send a welcome kit', club],
    ['new folks: send a welcome kit', club],
  ] as const) {
    const d = draft(request, catalog);
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => q.about === 'triggers'),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('every form of an event verb names it: the verb, its -s, -ing, -ed forms and its doer', () => {
  const hired = { type: 'employee.hired', payload: [] };
  const leaving = { type: 'employee.leaving', payload: [] };
  for (const w of ['hire', 'hires', 'hiring', 'hired', 'joiner', 'starters', 'joins'])
    assert.ok(namesEventVerb(w, hired) && !namesEventVerb(w, leaving), w);
  for (const w of ['leave', 'leaves', 'leaver', 'leavers', 'left', 'departs', 'quitting'])
    assert.ok(namesEventVerb(w, leaving) && !namesEventVerb(w, hired), w);
  assert.ok(!namesEventVerb('new', hired));
  assert.deepEqual(
    ['shipments', 'shipper', 'ships', 'shipping'].map((w) => verbFormsOf(w).includes('ship')),
    [true, true, true, true],
  );
  // Any regular verb: its -s, -ing, -ed forms and its doer all come back to it.
  fc.assert(
    fc.property(fc.constantFrom('return', 'deliver', 'join', 'cancel', 'order', 'sign'), (v) => {
      const shape = { type: `thing.${v}ed`, payload: [] };
      return [v, `${v}s`, `${v}ing`, `${v}ed`, `${v}er`, `${v}ers`].every((w) => namesEventVerb(w, shape));
    }),
  );
});

test('an event named by its act said as a noun: cancellations, escalations, approvals', () => {
  const desk: DraftCatalog = {
    tools: [tool({ name: 'tag_case', description: 'Tags a case.', args: idArg('case_id') })],
    events: [
      { type: 'booking.cancelled', payload: [] },
      { type: 'case.escalated', payload: [] },
      { type: 'loan.approved', payload: [] },
    ],
  };
  for (const [request, event] of [
    ['cancellations: tag the case', 'booking.cancelled'],
    ['on every escalation, tag the case', 'case.escalated'],
    ['approvals -> tag the case', 'loan.approved'],
  ] as const) {
    const d = draft(request, desk);
    assert.equal(d.spec?.triggers[0]?.event, event, `${request}: ${JSON.stringify(d.questions)}`);
  }
  assert.ok(verbFormsOf('cancellations').includes('cancel'));
  assert.ok(verbFormsOf('submissions').includes('submit'));
  assert.equal(namesEventVerb('renewals', { type: 'plan.cancelled', payload: [] }), false);
});

test('"pay new claims": the event whose whole noun is said, over one whose noun is said only in part', () => {
  const desk: DraftCatalog = {
    tools: [
      tool({
        name: 'notify_adjuster',
        description: 'Tells the adjuster about a claim.',
        args: idArg('claim_id'),
      }),
    ],
    events: [
      { type: 'claim.documents_received', payload: ['claim_id'] },
      { type: 'claim.filed', payload: ['claim_id'] },
      { type: 'claim.reopened', payload: ['claim_id'] },
    ],
  };
  const of = (r: string) => draftSpec(compileRequest(r, desk), desk);
  const d = of('notify the adjuster of new claims');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'claim.filed' }]);
  assert.ok(d.readBack?.assumed?.some((a) => a.startsWith('The workflow starts on claim.filed')));
  // Said in whole for two events, it is still asked.
  assert.equal(of('notify the adjuster of claims').publishable, false);
});
