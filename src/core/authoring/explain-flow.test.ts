import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_SPEC } from '../../../test/helpers/flow-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { explainSpec } from './explain-spec.ts';

test('keel explain reads a condition and a choice in words, each branch with its steps', () => {
  const r = explainSpec(parseSpec(FLOW_SPEC, 'desk.yaml'), []);
  assert.match(
    r.steps[1]!,
    /^2\. tag_review \(add_tag\): .*; only if its refund_amount is over \$50, else skipped\.$/,
  );
  assert.deepEqual(
    r.steps.slice(2, 10).map((l) => l.replace(/ \(.*$/, '')),
    [
      '3. route: chooses one way, the first whose condition holds:',
      '   if its refund_amount is over $50:',
      '     3.1.1. ask_lead',
      `   otherwise, if step lookup's tier is "gold":`,
      '     3.2.1. gold_note',
      '     3.2.2. gold_refund',
      '   otherwise:',
      '     3.else.1. plain_refund',
    ],
  );
  assert.match(
    r.summary,
    /3\. if its refund_amount is over \$50: ask_lead; otherwise, if step lookup's tier is "gold": add_tag, then refund; otherwise: refund; 4\. send_reply\.$/,
  );
});
