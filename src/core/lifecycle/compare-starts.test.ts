import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { EventRecord } from '../ledger/index.ts';
import { checkTest } from './check-test.ts';
import { startsOn, wouldNotStart, wouldStartAlone } from './compare-starts.ts';
import type { RunDecisions } from './run-decisions.ts';

const event = (amount: number, currency = 'USD'): EventRecord => ({
  id: `e-${amount}`,
  type: 'refund.requested',
  tenant: 'acme',
  source: 'helpdesk',
  subject: 'T-7',
  payload: { amount, currency },
  time: '2026-12-01T10:00:00Z',
});

const labels = (e: EventRecord) => ({ event: e, liveLabel: 'v1', candidateLabel: 'v2' });

const run: RunDecisions = {
  steps: [
    { step: 'reply', tool: 'reply', args: { t: 'T-7' }, argsHash: null, outcome: 'allowed', approval: false },
    {
      step: 'refund',
      tool: 'refund',
      args: null,
      argsHash: null,
      outcome: 'refused',
      code: 'spend_cap_exceeded',
      approval: false,
    },
  ],
  status: 'refused',
  suppressed: [],
};

describe('would each version start on this event?', () => {
  test('a version starts when any of its triggers matches: the event type, then its condition', () => {
    const narrowed = { triggers: [{ event: 'refund.requested', when: 'payload.amount <= 40' }] };
    assert.equal(startsOn(narrowed, event(40)), true);
    assert.equal(startsOn(narrowed, event(55)), false);
    assert.equal(
      startsOn({ triggers: [{ event: 'other' }, { event: 'refund.requested' }] }, event(55)),
      true,
    );
    assert.equal(startsOn({ triggers: [] }, event(1)), false);
  });

  test('for all amounts and limits, a version starts exactly when its condition holds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (amount, limit) => {
          const spec = { triggers: [{ event: 'refund.requested', when: `payload.amount <= ${limit}` }] };
          assert.equal(startsOn(spec, event(amount)), amount <= limit);
        },
      ),
    );
  });

  test('only the live version starts: a disagreement with no steps, said in plain words', () => {
    const c = wouldNotStart({ ...labels(event(55)), live: run });
    assert.equal(c.agree, false);
    assert.deepEqual(c.starts, { live: true, candidate: false });
    assert.deepEqual(c.status, { live: 'refused', candidate: 'not started', same: false });
    assert.deepEqual(c.newRefusals, []);
    assert.equal(
      c.sentences[0],
      'v2 would not start on T-7 (none of its triggers matches refund.requested e-55), where v1 started a run',
    );
  });

  test('only the candidate starts: its decisions are all there is, its refusals all new', () => {
    const c = wouldStartAlone(run, labels(event(70)));
    assert.equal(c.agree, false);
    assert.deepEqual(c.starts, { live: false, candidate: true });
    assert.deepEqual(
      c.steps.map((s) => [s.step, s.differs]),
      [
        ['reply', ['missing']],
        ['refund', ['missing']],
      ],
    );
    assert.deepEqual(c.newRefusals, [{ step: 'refund', code: 'spend_cap_exceeded' }]);
    assert.equal(
      c.sentences[0],
      'v2 would start on T-7, which v1 does not start (no trigger of v1 matches refund.requested e-70), and would have called reply with t="T-7", then refused refund (spend_cap_exceeded), ending refused',
    );
  });
});

describe('a test expects its event to start the version, unless it says starts: false', () => {
  test('starts: false holds only where no trigger matches; then nothing else is expected', () => {
    assert.deepEqual(checkTest({ starts: false }, { starts: false }), {
      passed: true,
      results: [{ expectation: 'starts', ok: true, expected: false, actual: false }],
    });
    assert.equal(checkTest({ starts: false }, { starts: true }).passed, false);
  });

  test('a test that does not say so fails where the version would not start, whatever else it expects', () => {
    const v = checkTest({ status: 'refused' }, { starts: false });
    assert.deepEqual(v, {
      passed: false,
      results: [{ expectation: 'starts', ok: false, expected: true, actual: false }],
    });
    // Where it starts, the other expectations are held against the run, and `starts` is not a line.
    assert.deepEqual(checkTest({ status: 'refused' }, { starts: true, run }), {
      passed: true,
      results: [{ expectation: 'status', ok: true, expected: 'refused', actual: 'refused' }],
    });
    assert.equal(checkTest({ starts: true, status: 'refused' }, { starts: true, run }).results.length, 2);
  });
});
