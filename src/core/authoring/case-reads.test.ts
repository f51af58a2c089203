/**
 * A read said inside a case ("up to 2k: match the PO and pay") serves the steps after it in that
 * case: it is not read a second time before the choice (implied-reads.ts, ownInCase). The draft
 * had matched every invoice twice, once before the choice and once in the case.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND6_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';
import { toolSteps } from '../spec/flow-steps.ts';

test('"up to 2k: match the PO and pay": one match, in the case, read by the payment', () => {
  const d = draftOver(
    'up to 2k: match the PO and pay. anything bigger: email the vendor: Over our limit, finance will review',
    BLIND6_DIR,
    'invoice-approval',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const steps = toolSteps(d.spec!);
  const matches = steps.filter((s) => s.tool === 'match_purchase_order');
  assert.equal(matches.length, 1);
  assert.equal(
    steps.find((s) => s.tool === 'schedule_payment')!.args!.po_matched,
    `{{steps.${matches[0]!.name}.output.matched}}`,
  );
  assert.equal('choose' in d.spec!.steps[0]!, true, 'the choice comes first, no read before it');
  assert.equal(d.spec!.limits.maxSteps, 2);
});
