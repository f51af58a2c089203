/**
 * Bounds on a field named in words (grammar/read-field-numbers.ts): "a risk score over 90", "risk
 * score 90 or above", "score 70+" are trigger conditions on that field, never money; a field the
 * trigger event does not carry is asked about. Over a catalog of its own (a card issuer's fraud
 * desk).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const txn = { type: 'string', pattern: '^TX-[0-9]+$' };
const desk: DraftCatalog = {
  tools: [
    tool({
      name: 'hold_transaction',
      description: 'Holds a card transaction for review.',
      args: { type: 'object', required: ['transaction_id'], properties: { transaction_id: txn } },
    }),
  ],
  events: [
    {
      type: 'transaction.scored',
      payload: ['risk_score', 'amount_usd', 'country'],
      values: { country: ['US', 'GB'] },
      subjects: ['TX-1'],
    },
    { type: 'card.reported', payload: ['days_open'], subjects: ['TX-2'] },
  ],
};
const draft = (r: string) => draftSpec(compileRequest(r, desk), desk);

test('a bound said of a field named in words is a test of that field, read back, and spends nothing', () => {
  for (const [request, when] of [
    ['when a transaction is scored with a risk score over 90, hold it', 'payload.risk_score > 90'],
    ['transaction scored w/ risk score 90 or above -> hold it', 'payload.risk_score >= 90'],
    ['when a transaction is scored and the score is at least 70, hold it', 'payload.risk_score >= 70'],
    ['hold scored transactions with a risk score of 95+', 'payload.risk_score >= 95'],
    ['hold scored transactions with a risk score of 20 or below', 'payload.risk_score <= 20'],
    ['hold scored transactions with a risk score of at most 20', 'payload.risk_score <= 20'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
    assert.equal(d.spec!.limits.maxCostUsd, 0, request);
    assert.ok(
      d.readBack?.assumed?.some((a) => a.includes('risk_score')),
      JSON.stringify(d.readBack?.assumed),
    );
  }
});

test('a field the trigger event does not carry is asked; a negated bound is no filter', () => {
  const other = draft('when a card is reported with a risk score over 90, hold it');
  assert.equal(other.publishable, false);
  assert.ok(
    other.questions.some((q) => q.question.includes('risk_score')),
    JSON.stringify(other.questions),
  );
  const negated = draft('when a transaction is scored, hold it, but never one with a risk score over 90');
  assert.equal(negated.publishable, false, JSON.stringify(negated.spec));
});

test('property: every way of saying a bound on the named field tests it with the right comparison', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(
        ['over', '>'],
        ['above', '>'],
        ['more than', '>'],
        ['at least', '>='],
        ['under', '<'],
        ['below', '<'],
        ['less than', '<'],
      ),
      fc.integer({ min: 1, max: 999 }),
      fc.constantFrom('risk score', 'score'),
      ([word, op], n, name) => {
        const d = draft(`when a transaction is scored with a ${name} ${word} ${n}, hold it`);
        assert.equal(d.publishable, true, `${name} ${word} ${n}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec!.triggers[0]!.when, `payload.risk_score ${op} ${n}`);
        assert.equal(d.spec!.limits.maxCostUsd, 0);
      },
    ),
  );
});

test('the field said as a verb ("scoring 80+"), the number said first ("3 or more failed checks"), and "no <field>"', () => {
  const checks: DraftCatalog = {
    tools: desk.tools,
    events: [
      {
        type: 'transaction.scored',
        payload: ['risk_score', 'failed_checks', 'open_disputes', 'country'],
        values: { country: ['US', 'GB'] },
        subjects: ['TX-1'],
      },
    ],
  };
  for (const [request, when] of [
    ['transactions scoring 80+ -> hold it', 'payload.risk_score >= 80'],
    ['when a transaction is scored with 3 or more failed checks, hold it', 'payload.failed_checks >= 3'],
    ['hold scored transactions with more than 2 failed checks', 'payload.failed_checks > 2'],
    ['when a transaction is scored with no open disputes, hold it', 'payload.open_disputes == 0'],
    [
      'hold scored transactions with 2 or more failed checks and no open disputes',
      'payload.failed_checks >= 2 and payload.open_disputes == 0',
    ],
  ] as const) {
    const d = draftSpec(compileRequest(request, checks), checks);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
  }
});

test('a negated "no <field>" and a number said first of a step, not the events, are never trigger tests', () => {
  const checks: DraftCatalog = {
    tools: desk.tools,
    events: [{ type: 'transaction.scored', payload: ['failed_checks', 'open_disputes'], subjects: ['TX-1'] }],
  };
  for (const request of [
    'when a transaction is scored, hold it, but not if no open disputes',
    'when a transaction is scored, hold it, but never if no open disputes',
    'when a transaction is scored, hold it after 3 or more failed checks',
  ]) {
    const d = draftSpec(compileRequest(request, checks), checks);
    const when = (d.spec ?? d.partial)?.triggers[0]?.when ?? '';
    assert.doesNotMatch(when, /open_disputes == 0|failed_checks >= 3/, request);
  }
});

test('"no <field>" said of the events without "with" is still their test ("(no open disputes)", "when there are no open disputes")', () => {
  const checks: DraftCatalog = {
    tools: desk.tools,
    events: [{ type: 'transaction.scored', payload: ['open_disputes'], subjects: ['TX-1'] }],
  };
  for (const request of [
    'when a transaction is scored and there are no open disputes, hold it',
    'when a transaction is scored (no open disputes), hold it',
  ]) {
    const d = draftSpec(compileRequest(request, checks), checks);
    assert.equal((d.spec ?? d.partial)?.triggers[0]?.when, 'payload.open_disputes == 0', request);
  }
});
