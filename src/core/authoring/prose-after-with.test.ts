/**
 * Prose for a note said after "with" without a colon ("close the ticket with the note non-USD,
 * refund manually"): the text runs to the end of its sentence, as a message said without a colon
 * does, and an action said after it ("..., and reply 'x'") stays an action of its own; "with a note
 * about it" leads no text (grammar/read-named-texts.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertAsks, BLIND5_DIR, BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

const steps = (request: string) => {
  const d = draftOver(request, BLIND5_DIR, 'support-refunds');
  return {
    d,
    steps: (d.spec ?? d.partial)!.steps.map(
      (s) => ('tool' in s ? { tool: s.tool, args: s.args } : undefined)!,
    ),
  };
};

test('"with the note <text>" is the note, to the end of its sentence, and a refund said inside it is no step', () => {
  const { d, steps: got } = steps(
    'Non-USD requests: close the ticket with the note non-USD, refund manually in the payments console',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(got, [
    {
      tool: 'close_ticket',
      args: { ticket_id: '{{event.subject}}', note: 'Non-USD, refund manually in the payments console.' },
    },
  ]);
  assert.ok(
    d.readBack?.assumed?.some((a) => a.includes('for note')),
    JSON.stringify(d.readBack?.assumed),
  );
});

test('"w/ note <text>" ends at the next action of the catalog', () => {
  const { d, steps: got } = steps(
    "refund requests: close the ticket w/ note awaiting return and reply 'We got it.'",
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    got.map((s) => s.tool),
    ['close_ticket', 'send_reply'],
  );
  assert.equal(got[0]!.args.note, 'Awaiting return.');
});

test('"with a note about it" leads no text: the note is asked', () => {
  assertAsks(
    'close the ticket with a note about the refund',
    BLIND5_DIR,
    'support-refunds',
    "close_ticket's note",
  );
});

test('a note after "with" that holds a test or an amount is not read: nothing of the test is lost', () => {
  for (const request of [
    'refund requests: close the ticket with the note refunded if they are gold',
    'refund requests: close the ticket with the note refunded under $20',
  ]) {
    const d = draftOver(request, BLIND5_DIR, 'support-refunds');
    assert.equal(d.publishable, false, request);
  }
});

test("a cap said after the note, past a comma, is the run's cap: the note ends before it", () => {
  const d = draftOver('complaint logged: refund $25 with the note sorry, max 25', BLIND13_DIR, 'frontdesk');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const step = d.spec!.steps[0]!;
  assert.ok('tool' in step);
  assert.equal(step.args.note, 'Sorry.');
  assert.equal(d.spec!.limits.maxCostUsd, 25);
});
