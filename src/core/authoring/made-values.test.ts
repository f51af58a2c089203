/**
 * A value said before the thing a tool makes ("build a json export") is not read as a test of the
 * events that share the thing's noun (export.requested's format) without a question: the words may
 * say what to make (event-value-args.ts, askMadeValues). Said of the events ("json requests") or
 * with the action ("as json"), it is no question.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND10_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';

const draft = (r: string) => draftOver(r, BLIND10_DIR, 'data-export-request');

test('"build a json export": which of the two readings is meant is asked', () => {
  for (const r of [
    'find records, build a json export, email the link, expiring in 3 days',
    'when an export is requested build a csv export and send the link for 24 hours',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(
      d.questions.some((q) => /is said of what build_export makes/.test(q.question)),
      `${r}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('a value said with the action, or of the events, drafts as before', () => {
  const made = draft('find records, build an export as json, email the link, expiring in 3 days');
  assert.equal(made.publishable, true, JSON.stringify(made.questions));
  assert.equal(made.spec!.triggers[0]!.when, undefined);
  assert.equal(toolSteps(made.spec!).find((s) => s.tool === 'build_export')!.args!.format, 'json');
  const events = draft(
    'for json requests: find records, build the export, email the link, expiring in 3 days',
  );
  assert.equal(events.publishable, true, JSON.stringify(events.questions));
  assert.equal(events.spec!.triggers[0]!.when, 'payload.format == "json"');
});

test('a value said of the events as well as of what is made tests the events, no question', () => {
  for (const r of [
    'json requests: find the records, build a json export and send the link for 48 hours',
    'find records, build a JSON export, send the link, 48 hours, json only',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, 'payload.format == "json"', r);
  }
});

test('"send an instant payout" is asked too; "instant payout requests" tests the events', () => {
  const payouts = (r: string) => draftOver(r, BLIND10_DIR, 'payouts');
  const sent = payouts('payout requests: send an instant payout, cap 1k');
  assert.equal(sent.publishable, false);
  assert.ok(sent.questions.some((q) => /said of what send_payout makes/.test(q.question)));
  const events = payouts('instant payout requests: send the payout, cap 1k');
  assert.equal(events.publishable, true, JSON.stringify(events.questions));
  assert.equal(events.spec!.triggers[0]!.when, 'payload.speed == "instant"');
});
