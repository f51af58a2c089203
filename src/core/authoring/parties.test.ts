/**
 * A role the catalog names, said before an event's noun ("when a guest complains"), says who the
 * event is about, never a class of it (party-words.ts): the draft had tested the complaint's
 * category against "guest", a workflow that would never run. A value the samples show still
 * tests its field ("noise complaints").
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
