/**
 * Verify's approval deadline check: a recorded deadline, reminder, escalation or expiry must
 * follow from the recorded times and the pinned spec's `approval`; each way one may not is named
 * with its seq as approval_deadline_mismatch.
 */
// biome-ignore-all lint/suspicious/noThenProperty: a step's approval declares `then` (what a deadline does), as the spec writes it
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Digest } from '../canonical/index.ts';
import type { EntryKind } from '../ledger/index.ts';
import { validateSpec } from '../spec/index.ts';
import { ApprovalDeadlineCheck } from './approval-deadline-check.ts';

const P = `sha256:${'a'.repeat(64)}` as Digest;
const spec = validateSpec(
  {
    id: 'refunds',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'go' }],
    steps: [
      {
        name: 'refund',
        tool: 'refund',
        args: {},
        approval: { timeout: '24h', remind: '8h', then: { escalate: 'finance-leads', timeout: '1h' } },
      },
    ],
    limits: { maxSteps: 2, maxCostUsd: 0 },
  },
  'spec.json',
);
const T0 = '2026-01-01T09:00:00.000Z';
const request = {
  step: 'refund',
  tool: 'refund',
  proposalId: P,
  args: {},
  costCents: 0,
  reason: 'r',
  channel: 'c',
  deadline: '2026-01-02T09:00:00.000Z',
};
type Row = [EntryKind, Record<string, unknown>, string];
const good: Row[] = [
  ['approval.requested', request, T0],
  [
    'approval.reminded',
    { proposalId: P, step: 'refund', at: '2026-01-01T17:00:00.000Z' },
    '2026-01-01T17:00:00.000Z',
  ],
  [
    'approval.escalated',
    {
      proposalId: P,
      step: 'refund',
      to: 'finance-leads',
      deadline: '2026-01-02T09:00:00.000Z',
      at: '2026-01-02T09:00:01.000Z',
      next: '2026-01-02T10:00:01.000Z',
    },
    '2026-01-02T09:00:01.000Z',
  ],
  [
    'approval.expired',
    {
      proposalId: P,
      step: 'refund',
      deadline: '2026-01-02T10:00:01.000Z',
      at: '2026-01-02T10:00:01.000Z',
      reason: 'approval_timeout',
    },
    '2026-01-02T10:00:01.000Z',
  ],
];

function check(rows: Row[]) {
  const c = new ApprovalDeadlineCheck();
  rows.forEach(([k, p, at], i) => {
    c.apply(k, p, i + 1, at);
  });
  return c.result(spec);
}

describe('verify checks approval deadlines against the recorded times', () => {
  it('accepts a ledger whose deadlines follow', () => {
    assert.equal(check(good), undefined);
  });
  it('refuses each way one may not, naming the seq', () => {
    const edit = (i: number, p: Record<string, unknown>, at?: string): Row[] =>
      good.map((r, j) => (j === i ? [r[0], { ...r[1], ...p }, at ?? r[2]] : r));
    const cases: [Row[], number, RegExp][] = [
      [edit(0, { deadline: '2026-01-03T09:00:00.000Z' }).slice(0, 1), 1, /request time plus 24h/],
      [edit(1, { at: '2026-01-01T10:00:00.000Z' }, '2026-01-01T10:00:00.000Z'), 2, /sooner than every 8h/],
      [edit(1, { at: '2026-01-01T18:00:00.000Z' }), 2, /not the entry's own time/],
      [edit(2, { at: '2026-01-02T08:00:00.000Z' }, '2026-01-02T08:00:00.000Z'), 3, /before the deadline/],
      [edit(2, { to: 'friends' }), 3, /spec names finance-leads/],
      [edit(2, { next: '2026-01-09T00:00:00.000Z' }).slice(0, 3), 3, /new deadline/],
      [edit(3, { deadline: '2026-01-02T09:00:00.000Z' }), 4, /but 2026-01-02T10:00:01.000Z stood/],
    ];
    for (const [rows, seq, why] of cases) {
      const f = check(rows);
      assert.equal(f?.code, 'approval_deadline_mismatch', JSON.stringify(rows));
      assert.equal(f?.seq, seq);
      assert.match(f?.message ?? '', why);
    }
  });
});

describe("verify finds a loop's step's approval deadline by its body step", () => {
  const loopSpec = validateSpec(
    {
      id: 'refunds',
      version: 1,
      status: 'DRAFT',
      triggers: [{ event: 'go' }],
      steps: [
        {
          name: 'lines',
          forEach: { items: '{{ event.payload.lines }}', as: 'line', max: 3 },
          steps: [{ name: 'refund', tool: 'refund', args: {}, approval: { timeout: '24h', then: 'deny' } }],
        },
      ],
      limits: { maxSteps: 3, maxCostUsd: 0 },
    },
    'spec.json',
  );
  it('accepts an iteration step asked under the deadline its body step declares', () => {
    const c = new ApprovalDeadlineCheck();
    c.apply('approval.requested', { ...request, step: 'lines[1].refund' }, 1, T0);
    assert.equal(c.result(loopSpec), undefined);
  });
  it('refuses one whose deadline is not the declared one', () => {
    const c = new ApprovalDeadlineCheck();
    c.apply(
      'approval.requested',
      { ...request, step: 'lines[0].refund', deadline: '2026-01-03T09:00:00.000Z' },
      1,
      T0,
    );
    assert.match(c.result(loopSpec)?.message ?? '', /request time plus 24h/);
  });
});
