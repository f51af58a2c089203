import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../canonical/index.ts';
import { chainEntry, type Entry, type EntryKind, type EventRecord, type PayloadOf } from '../ledger/index.ts';
import { compareRuns } from './compare-runs.ts';
import { runDecisions } from './run-decisions.ts';

const EVENT: EventRecord = {
  id: 'e1',
  type: 'refund.requested',
  tenant: 'acme',
  source: 'helpdesk',
  subject: 'T-1042',
  payload: {},
  time: '2026-12-01T10:00:00Z',
};

/** A ledger from (kind, payload) pairs; proposal ids are filled from the step. */
function ledger(...items: [EntryKind, Record<string, unknown>][]): Entry[] {
  const runId = hashOf({ n: Math.random() });
  const out: Entry[] = [];
  let prev: { seq: number; hash: `sha256:${string}` } | null = null;
  const all: [EntryKind, Record<string, unknown>][] = [
    [
      'run.started',
      {
        tenant: 'acme',
        workflowId: 'w',
        version: 1,
        specHash: hashOf('s'),
        status: 'LIVE',
        event: EVENT,
        engine: 'keel/test',
      },
    ],
    ...items,
  ];
  for (const [kind, payload] of all) {
    const { entry }: { entry: Entry } = chainEntry(
      runId,
      prev,
      kind,
      payload as PayloadOf<typeof kind>,
      '2026-12-01T10:00:00Z',
    );
    out.push(entry as Entry);
    prev = { seq: entry.seq, hash: entry.hash };
  }
  return out;
}

const pid = (step: string, args: unknown) => hashOf({ step, args });
const allowed = (
  step: string,
  tool: string,
  args: Record<string, unknown>,
): [EntryKind, Record<string, unknown>] => [
  'step.allowed',
  { step, tool, proposalId: pid(step, args), args, idempotencyKey: hashOf(step), attempt: 1, costCents: 0 },
];
const refused = (step: string, tool: string, code: string): [EntryKind, Record<string, unknown>] => [
  'step.refused',
  { step, tool, proposalId: null, check: 'spend_cap', code, message: code },
];
const finished = (status: string): [EntryKind, Record<string, unknown>] => [
  'run.finished',
  { status, outputs: {} },
];
const labels = { event: EVENT, liveLabel: 'v1', candidateLabel: 'v2' };

describe('comparing a candidate with a live run', () => {
  test('the same decisions agree', () => {
    const a = ledger(
      allowed('reply', 'draft_reply', { t: 'T-1042' }),
      allowed('refund', 'issue_refund', { amount_usd: 40 }),
      finished('completed'),
    );
    const b = ledger(
      allowed('reply', 'draft_reply', { t: 'T-1042' }),
      allowed('refund', 'issue_refund', { amount_usd: 40 }),
      finished('completed'),
    );
    const c = compareRuns(runDecisions(a), runDecisions(b), labels);
    assert.equal(c.agree, true);
    assert.deepEqual(c.sentences, []);
  });

  test('other arguments: a field-level diff and a sentence', () => {
    const a = ledger(
      allowed('refund', 'issue_refund', { amount_usd: 40, ticket: 'T-1042' }),
      finished('completed'),
    );
    const b = ledger(
      allowed('refund', 'issue_refund', { amount_usd: 45, ticket: 'T-1042' }),
      finished('completed'),
    );
    const c = compareRuns(runDecisions(a), runDecisions(b), labels);
    assert.equal(c.agree, false);
    assert.deepEqual(c.steps[0]?.differs, ['arguments']);
    assert.deepEqual(c.steps[0]?.fields, [{ field: 'amount_usd', a: 40, b: 45 }]);
    assert.match(
      c.sentences[0]!,
      /v2 would have called issue_refund with amount_usd=45.* where v1 called issue_refund with amount_usd=40.* on T-1042/,
    );
  });

  test('a refusal only the candidate makes is counted as new', () => {
    const a = ledger(allowed('refund', 'issue_refund', { amount_usd: 40 }), finished('completed'));
    const b = ledger(refused('refund', 'issue_refund', 'spend_cap_exceeded'), finished('refused'));
    const c = compareRuns(runDecisions(a), runDecisions(b), labels);
    assert.deepEqual(c.newRefusals, [{ step: 'refund', code: 'spend_cap_exceeded' }]);
    assert.equal(c.status.same, false);
    const back = compareRuns(runDecisions(b), runDecisions(a), labels);
    assert.deepEqual(back.newRefusals, [], 'a refusal the live run made too is not new');
  });

  test('another tool, a missing step and an extra step disagree', () => {
    const a = ledger(allowed('a', 'x', {}), allowed('b', 'y', {}), finished('completed'));
    const other = ledger(allowed('a', 'z', {}), allowed('b', 'y', {}), finished('completed'));
    assert.deepEqual(compareRuns(runDecisions(a), runDecisions(other), labels).steps[0]?.differs, ['tool']);
    const shorter = ledger(allowed('a', 'x', {}), finished('completed'));
    assert.equal(compareRuns(runDecisions(a), runDecisions(shorter), labels).agree, false);
    assert.equal(compareRuns(runDecisions(shorter), runDecisions(a), labels).agree, false);
  });

  test('after a person denied the live run, nothing more is compared', () => {
    const request = {
      step: 'close',
      tool: 'close_ticket',
      proposalId: pid('close', {}),
      args: {},
      costCents: 0,
      reason: 'destructive',
      channel: 'cli',
    };
    const live = ledger(
      ['approval.requested', request],
      ['approval.resolved', { proposalId: request.proposalId, decision: 'denied', by: 'dana' }],
      [
        'step.refused',
        {
          step: 'close',
          tool: 'close_ticket',
          proposalId: request.proposalId,
          check: 'approval',
          code: 'approval_denied',
          message: 'denied',
        },
      ],
      finished('refused'),
    );
    const shadow = ledger(
      ['approval.simulated', { ...request, assumed: 'approved', by: 'shadow' }],
      allowed('close', 'close_ticket', {}),
      allowed('notify', 'send_mail', {}),
      finished('completed'),
    );
    const c = compareRuns(runDecisions(live), runDecisions(shadow), labels);
    assert.deepEqual(c.stoppedAt, { step: 'close', by: 'dana' });
    assert.equal(
      c.agree,
      true,
      'both would wait for a person at close; what followed the denial is not evidence',
    );
  });

  test('one asks a person and the other does not', () => {
    const request = {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: pid('refund', {}),
      args: {},
      costCents: 0,
      reason: 'destructive',
      channel: 'cli',
    };
    const live = ledger(allowed('refund', 'issue_refund', {}), finished('completed'));
    const shadow = ledger(
      ['approval.simulated', { ...request, assumed: 'approved', by: 'shadow' }],
      ['step.allowed', { ...allowed('refund', 'issue_refund', {})[1], proposalId: request.proposalId }],
      finished('completed'),
    );
    const c = compareRuns(runDecisions(live), runDecisions(shadow), labels);
    assert.deepEqual(c.steps[0]?.differs, ['approval']);
    assert.match(c.sentences[0]!, /v2 would ask a person before issue_refund where v1 did not/);
  });
});
