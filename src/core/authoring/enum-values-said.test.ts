/**
 * A value a tool's enum takes, said in the words, for an argument named like a field the event
 * carries whose samples show other values of the same list ("production viewer requests ... get
 * granted" where requests come for analytics and payroll): said of the events it is a test, said
 * for every one the value to use, and either reading guessed wrong grants access on a system
 * nobody asked for. Asked (grammar/fill-args.ts). A value of another list (an incident's "sev1"
 * beside an alert's "critical") and a value the samples show stay read as before. Over a catalog of
 * its own (a lab's instrument bookings).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const INSTRUMENTS = ['microscope', 'centrifuge', 'sequencer'];
const lab: DraftCatalog = {
  tools: [
    tool({
      name: 'book_instrument',
      description: 'Books an instrument for a researcher.',
      args: {
        type: 'object',
        required: ['researcher_id', 'instrument', 'level'],
        properties: {
          researcher_id: { type: 'string' },
          instrument: { enum: INSTRUMENTS },
          level: { enum: ['l1', 'l2'] },
          room: { enum: ['lab-a', 'lab-b'] },
        },
        additionalProperties: false,
      },
    }),
  ],
  events: [
    {
      type: 'booking.requested',
      payload: ['instrument', 'level', 'room'],
      values: { instrument: ['microscope', 'centrifuge'], level: ['basic', 'advanced'] },
    },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, lab), lab);

test('an enum value the samples do not show, for a field of one list with the argument, is asked', () => {
  const d = draft('sequencer booking requests get booked at l1');
  assert.equal(d.publishable, false, JSON.stringify(d.spec));
  const q = d.questions.find((x) => x.about === 'args: book_instrument.instrument');
  assert.ok(q, JSON.stringify(d.questions));
  assert.match(q.question, /"sequencer" the instrument of the booking\.requested events/);
  assert.ok(!q.question.includes('"q'), q.question);
});

test('a value of another list than the field (level l1 beside basic/advanced) is the argument', () => {
  const d = draft('when a booking is requested, book the instrument at l1');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const step = d.spec!.steps[0]!;
  assert.ok('tool' in step);
  assert.equal(step.args.level, 'l1');
  assert.equal(step.args.instrument, '{{event.payload.instrument}}');
});

test('an optional enum argument takes no field of its name whose values no sample shows', () => {
  // The event's room may hold anything ("Lab A", "basement"): a run with another value would stop
  // at the step. Left out, as an optional argument the words do not ask for.
  const d = draft('when a booking is requested, book the instrument at l1');
  const step = d.spec!.steps[0]!;
  assert.ok('tool' in step);
  assert.equal(step.args.room, undefined, JSON.stringify(step.args));
});
