import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { hashOf } from '../canonical/index.ts';
import { chainEntry, type Entry, type EntryKind, type EventRecord, type PayloadOf } from '../ledger/index.ts';
import { compareRuns } from './compare-runs.ts';
import { type RunDecisions, runDecisions, type StepDecision } from './run-decisions.ts';

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
    assert.match(
      c.sentences[0]!,
      /v2 would ask a person before issue_refund at step refund where v1 did not/,
    );
  });
});

describe('decisions are compared by behaviour, never by step name', () => {
  test('a version that only renames a step agrees: every decision, the status, no sentence', () => {
    const live = ledger(
      allowed('reply', 'draft_reply', { t: 'T-1042' }),
      allowed('refund', 'issue_refund', { amount_usd: 40 }),
      finished('completed'),
    );
    const renamed = ledger(
      allowed('answer', 'draft_reply', { t: 'T-1042' }),
      allowed('pay', 'issue_refund', { amount_usd: 40 }),
      finished('completed'),
    );
    const c = compareRuns(runDecisions(live), runDecisions(renamed), labels);
    assert.equal(c.agree, true, c.sentences.join('; '));
    assert.deepEqual(c.sentences, []);
    assert.deepEqual(
      c.steps.map((s) => [s.step, s.candidateStep, s.same]),
      [
        ['reply', 'answer', true],
        ['refund', 'pay', true],
      ],
    );
  });

  test('a renamed step that also changes behaviour is flagged, naming both names', () => {
    const live = ledger(allowed('refund', 'issue_refund', { amount_usd: 40 }), finished('completed'));
    const other = ledger(allowed('pay', 'issue_refund', { amount_usd: 45 }), finished('completed'));
    const c = compareRuns(runDecisions(live), runDecisions(other), labels);
    assert.equal(c.agree, false);
    assert.deepEqual(c.steps[0]?.differs, ['arguments']);
    assert.match(c.sentences[0]!, /at step pay \(refund in v1\) on T-1042 \(amount_usd: 45 instead of 40\)/);
  });

  test('another order of the same calls disagrees', () => {
    const live = ledger(allowed('a', 'x', {}), allowed('b', 'y', {}), finished('completed'));
    const swapped = ledger(allowed('a', 'y', {}), allowed('b', 'x', {}), finished('completed'));
    const c = compareRuns(runDecisions(live), runDecisions(swapped), labels);
    assert.equal(c.agree, false);
  });

  test('a step inserted in the middle is one difference: the decisions after it still line up', () => {
    const live = ledger(allowed('a', 'x', {}), allowed('b', 'y', {}), finished('completed'));
    const more = ledger(
      allowed('a', 'x', {}),
      allowed('n', 'audit', {}),
      allowed('b', 'y', {}),
      finished('completed'),
    );
    const c = compareRuns(runDecisions(live), runDecisions(more), labels);
    assert.equal(c.agree, false);
    assert.deepEqual(
      c.steps.map((s) => [s.step, s.same, s.differs]),
      [
        ['a', true, []],
        ['n', false, ['missing']],
        ['b', true, []],
      ],
    );
    assert.deepEqual(c.sentences, ['v2 would also have called audit at step n, which v1 did not on T-1042']);
  });

  test('a candidate that leaves out a call says what the live run did, and where', () => {
    const live = ledger(allowed('a', 'x', { n: 1 }), allowed('b', 'y', {}), finished('completed'));
    const fewer = ledger(allowed('b', 'y', {}), finished('completed'));
    const c = compareRuns(runDecisions(live), runDecisions(fewer), labels);
    assert.deepEqual(c.sentences, ['v2 would not have called x with n=1, as v1 did at step a on T-1042']);
  });

  // Runs over a small alphabet of tools, arguments and outcomes, so that equal decisions are common.
  const aDecision = fc.record({
    step: fc.constantFrom('a', 'b', 'c', 'd'),
    tool: fc.constantFrom('x', 'y', 'z'),
    n: fc.integer({ min: 0, max: 2 }),
    outcome: fc.constantFrom('allowed', 'allowed', 'refused', 'waiting'),
    approval: fc.boolean(),
    denied: fc.boolean(),
  });
  const toDecision = (d: typeof aDecision extends fc.Arbitrary<infer T> ? T : never): StepDecision => ({
    step: d.step,
    tool: d.tool,
    args: { n: d.n },
    argsHash: hashOf({ n: d.n }),
    outcome: d.outcome as StepDecision['outcome'],
    ...(d.outcome === 'refused' ? { code: d.n === 0 ? 'spend_cap_exceeded' : 'policy_denied' } : {}),
    approval: d.approval,
    ...(d.approval && d.denied ? { decidedBy: { decision: 'denied' as const, by: 'dana' } } : {}),
  });
  const aRun: fc.Arbitrary<RunDecisions> = fc.record({
    steps: fc.array(aDecision, { maxLength: 6 }).map((xs) => xs.map(toDecision)),
    status: fc.constantFrom('completed', 'refused', 'failed'),
    suppressed: fc.constant([]),
  });
  const renamed = (r: RunDecisions, name: (s: string) => string): RunDecisions => ({
    ...r,
    steps: r.steps.map((s) => ({ ...s, step: name(s.step) })),
  });
  /** A consistent renaming: one-to-one, so two steps never merge into one name. */
  const aRenaming = fc
    .shuffledSubarray(['p', 'q', 'r', 's', 't', 'u'], { minLength: 4, maxLength: 4 })
    .map((to) => (s: string) => to['abcd'.indexOf(s)] ?? s);

  test("property: renaming steps consistently never changes a comparison's verdict, nor what differs", () => {
    fc.assert(
      fc.property(aRun, aRun, aRenaming, aRenaming, (live, cand, f, g) => {
        const before = compareRuns(live, cand, labels);
        const after = compareRuns(renamed(live, f), renamed(cand, g), labels);
        assert.equal(after.agree, before.agree);
        assert.deepEqual(
          after.steps.map((s) => s.differs),
          before.steps.map((s) => s.differs),
        );
        assert.deepEqual(after.newRefusals.length, before.newRefusals.length);
      }),
      { numRuns: 500 },
    );
  });

  test('property: a run agrees with itself renamed, and disagrees with any change of a tool or its arguments', () => {
    fc.assert(
      fc.property(aRun, aRenaming, fc.nat(), fc.boolean(), (r, f, at, tool) => {
        assert.equal(compareRuns(r, renamed(r, f), labels).agree, true);
        const i = at % Math.max(1, r.steps.length);
        const target = r.steps[i];
        // Only a change before any denial counts: what follows a person's denial is not compared.
        if (!target || r.steps.slice(0, i).some((s) => s.decidedBy?.decision === 'denied')) return;
        const changed = tool
          ? { ...target, tool: `${target.tool}2` }
          : { ...target, args: { n: 9 }, argsHash: hashOf({ n: 9 }) };
        const steps = r.steps.map((s, k) => (k === i ? changed : s));
        // A refusal before arguments were built has none to compare: change the tool there.
        if (!tool && target.argsHash === null) return;
        assert.equal(compareRuns(r, renamed({ ...r, steps }, f), labels).agree, false);
      }),
      { numRuns: 500 },
    );
  });
});
