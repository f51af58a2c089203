/**
 * Verify's check of a wait for an event's end (BranchCheck, `wait_mismatch`): the event recorded
 * in `wait.ended` must be of the type and tenant waited for, inside the window, not taken before,
 * and the match decided again on it must hold and read what the entry records; a spec whose wait
 * has another match refuses it too. Fed payloads directly, as verify streams them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRecord, PayloadOf } from '../ledger/index.ts';
import { validateSpec } from '../spec/index.ts';
import { BranchCheck } from './branch-check.ts';

const MATCH = 'event.subject == run.event.subject';
const own: EventRecord = {
  id: 't1',
  type: 'ticket.opened',
  tenant: 'acme',
  source: 'desk',
  subject: 'T-1',
  payload: {},
  time: '2026-01-01T00:00:00Z',
};
const reply = (o: Partial<EventRecord> = {}): EventRecord => ({
  ...own,
  id: 'r1',
  type: 'customer.replied',
  ...o,
});
const started: PayloadOf<'wait.started'> = {
  step: 'await_reply',
  kind: 'event',
  event: 'customer.replied',
  match: MATCH,
  fireAt: '2026-01-03T00:00:00.000Z',
  timeout: '48h',
  since: '2026-01-01T00:00:00.000Z',
};
const spec = validateSpec(
  {
    id: 'desk',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'ticket.opened' }],
    steps: [{ name: 'await_reply', wait: { event: 'customer.replied', match: MATCH, timeout: '48h' } }],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  },
  'spec.json',
);

function check(ended: PayloadOf<'wait.ended'>, s = started, withSpec = spec) {
  const c = new BranchCheck();
  c.apply('run.started', { event: own }, 0);
  c.apply('wait.started', s, 1);
  c.apply('wait.ended', ended, 2);
  return c.result(withSpec);
}

const good: PayloadOf<'wait.ended'> = {
  step: 'await_reply',
  reason: 'event',
  at: '2026-01-01T02:00:00.000Z',
  event: reply(),
  arrivedAt: '2026-01-01T02:00:00.000Z',
  reads: { 'event.subject': 'T-1', 'run.event.subject': 'T-1' },
};

describe('verify: a wait for an event', () => {
  it('passes the event it could take', () => {
    assert.equal(check(good), undefined);
    assert.equal(
      check({ step: 'await_reply', reason: 'timeout', at: '2026-01-03T00:00:00.000Z' }),
      undefined,
    );
  });

  it('refuses an event it could not take, naming the seq', () => {
    const bad: [Partial<PayloadOf<'wait.ended'>>, RegExp][] = [
      [
        { event: reply({ subject: 'T-2' }), reads: { 'event.subject': 'T-2', 'run.event.subject': 'T-1' } },
        /does not hold/,
      ],
      [{ reads: { 'event.subject': 'T-9', 'run.event.subject': 'T-1' } }, /reads/],
      [{ event: reply({ type: 'other' }) }, /waited for customer\.replied/],
      [{ event: reply({ tenant: 'evil' }) }, /tenant evil/],
      [{ arrivedAt: '2025-12-31T00:00:00.000Z' }, /before its window/],
      [{ arrivedAt: '2026-01-04T00:00:00.000Z' }, /after its timeout/],
    ];
    for (const [change, why] of bad) {
      const f = check({ ...good, ...change });
      assert.equal(f?.code, 'wait_mismatch', JSON.stringify(change));
      assert.equal(f?.seq, 2);
      assert.match(f!.message, why);
    }
    const early = check({ step: 'await_reply', reason: 'timeout', at: '2026-01-02T00:00:00.000Z' });
    assert.match(early?.message ?? '', /before its timeout/);
  });

  it('refuses a recorded match the pinned spec does not have', () => {
    const f = check({ ...good, reads: {} }, { ...started, match: undefined } as PayloadOf<'wait.started'>);
    assert.equal(f?.code, 'wait_mismatch');
    assert.match(f!.message, /the spec has no wait for an event await_reply/);
  });
});
