/**
 * Questions a person would find needless, read instead, over a catalog no corpus uses (a clinic's
 * referrals): a value of the catalog said short ("cardio" for cardiology, Assumed), never one that
 * begins two values or is a word of the catalog's own; a count led by "w/" or "once it's got"; a
 * ban said of its subject ("checkups dont need paging"), or with "dont bother" / "no need to"; an
 * action said in the passive before a comma ("anything up to $500 gets paid,") that no event of the
 * catalog happens by; "no audit hold needed" and "a copy retained under audit hold".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { toolSteps } from '../spec/index.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const SPECIALTY = { enum: ['cardiology', 'dermatology', 'neurology', 'neurosurgery', 'other'] };
const clinic: DraftCatalog = {
  tools: [
    tool({
      name: 'book_visit',
      description: 'Books a specialist visit for a patient.',
      args: {
        type: 'object',
        required: ['patient_id', 'specialty'],
        properties: { patient_id: { type: 'string' }, specialty: SPECIALTY },
      },
    }),
    tool({
      name: 'message_patient',
      description: 'Sends a message to a patient.',
      args: {
        type: 'object',
        required: ['patient_id', 'text'],
        properties: { patient_id: { type: 'string' }, text: { type: 'string', minLength: 1 } },
      },
      effect: 'external',
    }),
    tool({
      name: 'page_specialist',
      description: 'Pages the on-call specialist.',
      args: {
        type: 'object',
        required: ['specialty', 'summary'],
        properties: { specialty: SPECIALTY, summary: { type: 'string', minLength: 1 } },
      },
      effect: 'external',
    }),
    tool({
      name: 'reimburse_patient',
      description: "Reimburses a patient's travel costs. Moves money: destructive, costs the amount.",
      args: {
        type: 'object',
        required: ['patient_id', 'amount_usd'],
        properties: { patient_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      destructive: true,
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'purge_chart',
      description:
        "Deletes a patient's chart for good, keeping a copy only for audit hold. Cannot be undone.",
      args: {
        type: 'object',
        required: ['patient_id', 'audit_hold'],
        properties: { patient_id: { type: 'string' }, audit_hold: { type: 'boolean' } },
      },
      destructive: true,
    }),
  ],
  events: [{ type: 'referral.received', payload: ['patient_id', 'specialty', 'visit_count', 'amount_usd'] }],
};

const draft = (request: string) => {
  const compiled = compileRequest(request, clinic);
  const d = draftSpec(compiled, clinic);
  return {
    ...d,
    when: compiled.spec?.triggers[0]?.when,
    tools: compiled.spec ? toolSteps(compiled.spec).map((s) => s.tool) : [],
    args: compiled.spec ? toolSteps(compiled.spec).map((s) => s.args) : [],
    assumed: (compiled.assumptions ?? []).join('\n'),
    asked: d.questions.map((q) => q.question).join('\n'),
  };
};

test('a value of the catalog said short is that value, Assumed', () => {
  for (const request of ['cardio referrals: book a visit', 'book a visit for derm referrals']) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${d.asked}`);
    assert.match(d.when ?? '', /payload\.specialty == "(?:cardiology|dermatology)"/);
    assert.match(d.assumed, /said short/);
  }
  // As a heading before a count said "once it's got".
  const d = draft("cardio: book a visit once it's got more than 2 visits");
  assert.equal(d.publishable, true, d.asked);
  assert.equal(d.when, 'payload.visit_count > 2 and payload.specialty == "cardiology"');
});

test('a short form that begins two values, or is a word of the catalog, is asked about', () => {
  // "neuro": neurology or neurosurgery.
  const neuro = draft('neuro referrals: book a visit');
  assert.equal(neuro.publishable, false);
  assert.match(neuro.asked, /neuro/);
  // Shorter than four letters: never read.
  assert.equal(draft('cdio referrals: book a visit').publishable, false);
});

test('"w/ N or more" and "once it has N" lead to a count test, cut with it', () => {
  const d = draft('derm w/ 3 or more visits - book a visit');
  assert.equal(d.publishable, true, d.asked);
  assert.equal(d.when, 'payload.visit_count >= 3 and payload.specialty == "dermatology"');
});

test('a ban said of its subject, or with "dont bother" / "no need to", drafts no step of it', () => {
  const paging = draft('cardio referrals dont need paging. just book a visit');
  assert.equal(paging.publishable, true, paging.asked);
  assert.deepEqual(paging.tools, ['book_visit']);
  assert.match(paging.assumed, /read as a ban: the workflow never calls page_specialist/);
  const bother = draft('when a referral is received, book a visit, dont bother messaging the patient');
  assert.equal(bother.publishable, true, bother.asked);
  assert.deepEqual(bother.tools, ['book_visit']);
  assert.match(bother.assumed, /never calls message_patient/);
  const noNeed = draft('when a referral is received, book a visit. no need to page the specialist');
  assert.deepEqual(noNeed.tools, ['book_visit']);
  assert.match(noNeed.assumed, /never calls page_specialist/);
  // A subject that names an action is no ban's subject: "book a visit, they dont need ..." reads on.
  const both = draft('when a referral is received, book visits dont need paging');
  assert.notDeepEqual(both.tools, ['book_visit']);
});

test('an action said in the passive before a comma is the action, when no event happens that way', () => {
  const d = draft('anything up to $500 gets reimbursed, dont bother messaging the patient');
  assert.equal(d.publishable, true, d.asked);
  assert.deepEqual(d.tools, ['reimburse_patient']);
  assert.equal(d.spec?.limits.maxCostUsd, 500);
});

test('"no audit hold needed" and "a copy retained under audit hold" say the yes/no', () => {
  const no = draft('when a referral is received, purge the chart, no audit hold needed');
  assert.equal(no.publishable, true, no.asked);
  assert.equal(no.args[0]?.audit_hold, false);
  const yes = draft(
    'when a referral is received, purge the chart. We want a copy retained under audit hold.',
  );
  assert.equal(yes.args[0]?.audit_hold, true, yes.asked);
  assert.doesNotMatch(yes.asked, /retained/);
});

test('property: a word is read short exactly when it is four letters or more and begins one value only', () => {
  const prefix = fc
    .constantFrom(...SPECIALTY.enum)
    .chain((v) => fc.integer({ min: 1, max: v.length }).map((n) => v.slice(0, n)));
  fc.assert(
    fc.property(fc.oneof(prefix, fc.stringMatching(/^[a-z]{1,9}$/)), (w) => {
      const d = draft(`${w} referrals: book a visit`);
      const starts = SPECIALTY.enum.filter((v) => v.startsWith(w) && v.length >= w.length + 3);
      assert.equal(/said short/.test(d.assumed), w.length >= 4 && starts.length === 1, w);
    }),
    { numRuns: 300 },
  );
});
