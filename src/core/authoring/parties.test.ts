/**
 * A role the catalog names, said before an event's noun ("when a guest complains"), says who the
 * event is about, never a class of it (party-words.ts): the draft had tested the complaint's
 * category against "guest", a workflow that would never run. A value the samples show still
 * tests its field ("noise complaints"). Nor does a party alone name the one event named for it
 * (infer-event.ts): "when a guest checks out" had run on guest.no_show.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';

test('"when a guest complains": every complaint, no category "guest"', () => {
  const d = draftOver('when a guest complains, credit them $50', BLIND13_DIR, 'frontdesk');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(d.spec!.triggers, [{ event: 'complaint.logged' }]);
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => [s.tool, s.args!.amount_usd]),
    [['issue_credit', 50]],
  );
});

test('"noise complaints" still tests the category the samples show', () => {
  const d = draftOver('noise complaints: credit them $20', BLIND13_DIR, 'frontdesk');
  assert.equal(d.spec?.triggers[0]?.when, 'payload.category == "noise"', JSON.stringify(d));
});

test('"when a guest checks out" names no event by its party alone: guest.no_show is not assumed', () => {
  for (const request of ['when a guest checks out, credit $20', 'guest cancelled: refund $100']) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some(
        (q) => q.about === 'triggers' || q.question.includes('Which event starts this workflow'),
      ),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  // Its verb said too, it is that event.
  const d = draftOver('guest no-shows: charge a night', BLIND13_DIR, 'frontdesk');
  assert.equal((d.spec ?? d.partial)?.triggers[0]?.event, 'guest.no_show');
});

test('"staff complaints" where no tool or event names staff: a kind of complaint, never who complained', () => {
  for (const request of ['staff complaints: refund $20', 'when a staff complaint is logged, refund $20']) {
    const d = draftOver(request, BLIND13_DIR, 'frontdesk');
    assert.equal(
      d.spec?.triggers[0]?.when,
      'payload.category == "staff"',
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('"customer complaints" at a hotel: the guests who complained, never a category "customer"', () => {
  const d = draftOver('customer complaints: refund what they asked up to $40', BLIND13_DIR, 'frontdesk');
  assert.equal(d.spec?.triggers[0]?.when, undefined, JSON.stringify(d.spec?.triggers ?? d.questions));
});
