import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventRecord } from '../ledger/index.ts';
import { compareRuns } from './compare-runs.ts';
import type { RunDecisions } from './run-decisions.ts';

const EVENT: EventRecord = {
  id: 'e1',
  type: 'refund.requested',
  tenant: 't1',
  source: 's',
  subject: 'order-7',
  payload: {},
  time: '2026-01-01T00:00:00Z',
};
const run = (branch: number | 'else'): RunDecisions => ({
  steps: [],
  status: 'completed',
  suppressed: [],
  branches: [{ step: 'route', branch }],
});

test('a choice that took another branch is a disagreement, said in words; the same branch agrees', () => {
  const o = { event: EVENT, liveLabel: 'v1', candidateLabel: 'v2' };
  const c = compareRuns(run(1), run('else'), o);
  assert.equal(c.agree, false);
  assert.deepEqual(c.branches, [{ step: 'route', live: 1, candidate: 'else' }]);
  assert.deepEqual(c.sentences, ['v2 would have taken its else of route where v1 took branch 2 on order-7']);
  const same = compareRuns(run(1), run(1), o);
  assert.equal(same.agree, true);
  assert.equal(same.branches, undefined);
});
