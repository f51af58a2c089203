/**
 * "only" that says no more than a spec does (a spec does what is said and nothing else): after the
 * action ("approve only"), before its verb ("only tag it"), or left once the filter it followed was
 * read ("gold customers only"). Every other "only" scopes a restriction and is asked about
 * (map-tool.ts, read-steps.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND7_DIR, CORPUS_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';

/** Over the support desk's catalog and its sample events. */
const draft = (r: string) => draftOver(r, CORPUS_DIR, 'support-desk');

test('"only" after the action or before its verb drafts the action alone', () => {
  for (const [r, tool] of [
    ['When a ticket is resolved, close it only', 'close_ticket'],
    ['When a ticket is resolved: close only, nothing else', 'close_ticket'],
    ['When a refund is requested, only tag it refund', 'tag_ticket'],
    ['When a refund is requested, but only tag it refund', 'tag_ticket'],
  ] as const) {
    const d = draft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      toolSteps(d.spec!).map((s) => s.tool),
      [tool],
      r,
    );
  }
});

test('"only" left alone once the filter before it was read says nothing more', () => {
  const d = draftOver('for employee E-7 only: approve the report', BLIND7_DIR, 'expense-report');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(d.spec!.triggers[0]!.when, 'payload.employee_id == "E-7"');
  assert.deepEqual(
    toolSteps(d.spec!).map((s) => s.tool),
    ['approve_expense'],
  );
});

test('an "only" that scopes a restriction, or is not about the action, is asked about', () => {
  for (const r of [
    'When a refund is requested, refund it up to $40, but only for customers in the London office',
    'When a refund is requested, refund it up to $40, only for the first one',
    'When a refund is requested, not only tag it refund',
    'When a refund is requested, tag it refund, the only thing',
    'When a refund is requested, refund it up to $40 only if I say so',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(d.questions.length > 0, r);
  }
});
