/**
 * "only" that says no more than a spec does (a spec does what is said and nothing else): after the
 * action alone ("approve only"), or left once the filter it followed was read ("for employee E-7
 * only", "verified ones only"). Every other "only" may scope words the draft does not read, and is
 * asked about (map-tool.ts, read-steps.ts): a review found 33 publishable drafts that dropped such
 * a restriction when "only" before a verb or after an object was read as saying nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND7_DIR, CORPUS_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';

/** Over the support desk's catalog and its sample events. */
const draft = (r: string) => draftOver(r, CORPUS_DIR, 'support-desk');

test('"only" after the action alone drafts the action', () => {
  for (const [r, tool] of [
    ['When a ticket is resolved, close it only', 'close_ticket'],
    ['When a ticket is resolved: close only, nothing else', 'close_ticket'],
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
  const flag = draftOver(
    'verified ones only. build the export (as json) and send the link with a three day expiry',
    BLIND7_DIR,
    'data-export-request',
  );
  assert.equal(flag.publishable, true, JSON.stringify(flag.questions));
  assert.equal(flag.spec!.triggers[0]!.when, 'payload.identity_verified == true');
});

test('an "only" that scopes a restriction, or is not about the action, is asked about', () => {
  for (const r of [
    'When a refund is requested, refund it up to $40, but only for customers in the London office',
    'When a refund is requested, refund it up to $40, only for the first one',
    'When a refund is requested, not only tag it refund',
    'When a refund is requested, tag it refund, the only thing',
    'When a refund is requested, refund it up to $40 only if I say so',
    'When a refund is requested, only tag it refund',
    'When a refund is requested, tag it refund only',
    'When a refund is requested refund it, one refund per ticket only, max $100',
    'When a refund is requested refund it, first one only, max $100',
    'When a refund is requested, only refund gold customers, max $40',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, false, r);
    assert.ok(d.questions.length > 0, r);
  }
});
