/**
 * Tests of two fields said with "or" are alternatives ("urgent or pro", "if the priority is urgent
 * or the plan is pro"): the trigger lets in either, never only events with both
 * (read-field-tests.ts, eitherOr and OR_IS). "unless ... or ..." lets in neither; "and" both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND6_DIR, CORPUS_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

const when = (r: string, dir: string, file: string) => {
  const d = draftOver(r, dir, file);
  assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
  return d.spec!.triggers[0]!.when;
};
const triage = (r: string) => when(r, BLIND6_DIR, 'ticket-triage');
const desk = (r: string) => when(r, CORPUS_DIR, 'support-desk');

test('"urgent or pro" lets in either', () => {
  for (const r of [
    "urgent OR pro → alert #oncall-support with 'hi'",
    "urgent tickets or pro ones → alert #oncall-support with 'hi'",
    "when a ticket is urgent or pro, alert #oncall-support with 'hi'",
    "if the priority is urgent or the plan is pro, alert #oncall-support with 'hi'",
  ])
    assert.equal(triage(r), 'payload.priority == "urgent" or payload.plan == "pro"', r);
});

test('"and", or no word between, still lets in only both', () => {
  for (const r of [
    "urgent pro tickets → alert #oncall-support with 'hi'",
    "if the priority is urgent and the plan is pro, alert #oncall-support with 'hi'",
  ])
    assert.match(
      triage(r)!,
      /^payload\.(?:priority|plan) == "(?:urgent|pro)" and payload\.(?:priority|plan) == /,
      r,
    );
});

test('money: "if the reason is damaged or the tier is gold" refunds either; "unless" neither', () => {
  assert.equal(
    desk(
      'When a refund is requested, refund it up to $50 if the reason is damaged or the customer tier is gold',
    ),
    'payload.reason == "damaged" or payload.customer_tier == "gold"',
  );
  assert.equal(
    desk(
      'When a refund is requested, refund it up to $50 unless the reason is damaged or the customer tier is gold',
    ),
    'payload.reason != "damaged" and payload.customer_tier != "gold"',
  );
});
