/**
 * Values tested as alternatives that the words never join (alternatives-not-said.ts): "reported
 * for harassment, remove it for spam" drafted as a removal of harassment or spam posts is asked
 * about, whatever compiled it; "spam or harassment", "auth, search" said together are read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { alternativesNotSaid } from './alternatives-not-said.ts';

const spec = (when: string): WorkflowSpec =>
  ({
    id: 'x',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'post.reported', when }],
    steps: [{ name: 'r', tool: 'remove_post', args: { post_id: '{{event.subject}}' } }],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  }) as WorkflowSpec;
const either = 'payload.category == "harassment" or payload.category == "spam"';

test('alternatives the words say apart are found; said together, they are not', () => {
  assert.deepEqual(
    alternativesNotSaid('when a post is reported for harassment, remove it for spam', spec(either)),
    [either],
  );
  for (const r of [
    'remove posts reported for harassment or spam',
    'remove posts reported for harassment, spam',
    'remove harassment/spam posts',
    'remove posts reported for harassment and spam',
  ])
    assert.deepEqual(alternativesNotSaid(r, spec(either)), [], r);
  assert.deepEqual(alternativesNotSaid('x', spec(`(${either}) and payload.report_count > 3`)), []);
});
