/**
 * Bounds on a duration read as tests on the event's field that counts time
 * (grammar/read-number-tests.ts), and a trigger's own noun said again as a clause
 * (grammar/trigger-restated.ts), over a catalog no corpus uses (a leave desk).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const leaveId = { type: 'object', required: ['leave_id'], properties: { leave_id: { type: 'string' } } };
const leaveDesk = (fields = ['length_days', 'team']): DraftCatalog => ({
  tools: [
    tool({ name: 'approve_leave', description: 'Approves a leave request.', args: leaveId }),
    tool({ name: 'flag_leave', description: 'Flags a leave request for HR.', args: leaveId }),
    tool({ name: 'request_cover', description: 'Asks the team for cover.', args: leaveId }),
  ],
  events: [{ type: 'leave.requested', payload: fields }],
});

const draft = (request: string, catalog = leaveDesk()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};

test('a bound on a duration is a test on the field that counts time, in its unit', () => {
  for (const [request, when] of [
    ['when leave is requested for more than ten days, flag it', 'payload.length_days > 10'],
    ['when leave is requested for 2 weeks or more, flag it', 'payload.length_days >= 14'],
    ['when leave is requested for a week or less approve it', 'payload.length_days <= 7'],
    ['when leave is requested for less than a fortnight, approve it', 'payload.length_days < 14'],
    ['when leave is requested for at least thirty days, flag it', 'payload.length_days >= 30'],
  ] as const) {
    const { d, compiled } = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
    assert.equal(d.spec!.limits.maxCostUsd, 0, request);
    assert.ok(
      compiled.assumptions!.some((a) => a.includes(when.replace('payload.', ''))),
      request,
    );
  }
});

test('a bound on a duration the field cannot hold, or no such field, is asked about', () => {
  for (const [request, catalog] of [
    ['when leave is requested for more than 36 hours, flag it', leaveDesk()],
    ['when leave is requested for more than ten days, flag it', leaveDesk(['team'])],
    ['when leave is requested for more than ten days, flag it', leaveDesk(['length_days', 'notice_days'])],
  ] as const) {
    const { d } = draft(request, catalog);
    assert.equal(d.publishable, false, request);
  }
});

test('a bound after a negation limits an action; it is never read as a filter', () => {
  const { d } = draft('when leave is requested approve it, but never for more than 7 days');
  assert.ok(!d.spec?.triggers[0]?.when?.includes('> 7'));
  assert.equal(d.publishable, false);
});

test("the trigger's noun said again as a clause's first word is asked about, never an action", () => {
  const { d } = draft('requests for the sales team - approve them');
  assert.equal(d.publishable, false);
  assert.ok(!d.spec?.steps.some((s) => 'tool' in s && s.tool === 'request_cover'));
});

test('property: any bound in days or weeks is that test on the day field, and never money', () => {
  const op = fc.constantFrom(
    ['more than', '>', ''],
    ['over', '>', ''],
    ['longer than', '>', ''],
    ['at least', '>=', ''],
    ['under', '<', ''],
    ['less than', '<', ''],
    ['shorter than', '<', ''],
    ['', '>=', 'or more'],
    ['', '>=', 'or longer'],
    ['', '<=', 'or less'],
    ['', '<=', 'or shorter'],
  );
  fc.assert(
    fc.property(
      op,
      fc.integer({ min: 2, max: 60 }),
      fc.constantFrom('days', 'weeks'),
      ([pre, sym, post], n, unit) => {
        const said = `${pre} ${n} ${unit} ${post}`.trim();
        const request = `when leave is requested for ${said}, flag it`;
        const { d } = draft(request);
        assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec!.triggers[0]!.when, `payload.length_days ${sym} ${unit === 'weeks' ? n * 7 : n}`);
        assert.equal(d.spec!.limits.maxCostUsd, 0);
      },
    ),
  );
});

test("'3 or more days', '5+ days', and a field whose name begins with its unit (days_late)", () => {
  for (const [request, when] of [
    ['leave requests of 3 or more days: flag them', 'payload.length_days >= 3'],
    ['leave requests of 5+ days: flag them', 'payload.length_days >= 5'],
    ['when leave is requested for more than 2 weeks, flag it', 'payload.days_off > 14'],
  ] as const) {
    const catalog = when.includes('days_off') ? leaveDesk(['days_off', 'team']) : leaveDesk();
    const { d } = draft(request, catalog);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
  }
});

test('a number said of the events that no reader takes is asked about, never dropped', () => {
  // "3 days late" is no bound ("more than", "or more") and no value of a field, and its other words
  // all name the field: without the question the draft would act on every delayed shipment.
  const shipments: DraftCatalog = {
    tools: [
      tool({
        name: 'flag_shipment',
        description: 'Flags a shipment for the ops team.',
        args: { type: 'object', required: ['shipment_id'], properties: { shipment_id: { type: 'string' } } },
      }),
    ],
    events: [{ type: 'shipment.delayed', payload: ['days_late', 'carrier'] }],
  };
  const { d } = draft('shipments 3 days late: flag them', shipments);
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  assert.ok(
    d.questions.some((q) => q.about === 'triggers.when' && q.question.includes('"3"')),
    JSON.stringify(d.questions),
  );
  const bound = draft('shipments 3 or more days late: flag them', shipments).d;
  assert.equal(bound.spec?.triggers[0]?.when, 'payload.days_late >= 3', JSON.stringify(bound.questions));
});
