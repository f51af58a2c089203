/**
 * Two bounds on one field the same way in the trigger ("2 or more reports ... once it has 20+
 * reports, also ..."): one was said of some steps only, so the draft asks instead of holding
 * every step back to the stricter one (grammar/repeated-bounds.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND10_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { askRepeatedBounds } from './grammar/repeated-bounds.ts';
import type { RequestContext } from './grammar/request-context.ts';

const draft = (r: string) => draftOver(r, BLIND10_DIR, 'content-moderation');

test('a second bound said before a later step is asked, not added to the trigger', () => {
  const r =
    'hide posts with 2 or more reports, and once it has 20+ reports also message the author: Hidden for review';
  const d = draft(r);
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('report_count >= 2 and report_count >= 20')),
    JSON.stringify(d.questions),
  );
});

test('bounds that make a range, or are alternatives, are no question', () => {
  const asked = (when: string[]) => {
    const ctx = { questions: [] } as unknown as RequestContext;
    askRepeatedBounds(when, 'post.reported', ctx);
    return ctx.questions.length;
  };
  assert.equal(asked(['payload.report_count >= 2 and payload.report_count < 20']), 0);
  assert.equal(asked(['payload.report_count > 50 or payload.report_count > 10 and payload.x == "a"']), 0);
  assert.equal(asked(['payload.report_count >= 2', 'payload.amount_usd >= 20']), 0);
  assert.equal(asked(['payload.report_count >= 2', 'payload.report_count > 9']), 1);
  assert.equal(asked(['payload.amount_usd < 50 and payload.amount_usd <= 20']), 1);
});
