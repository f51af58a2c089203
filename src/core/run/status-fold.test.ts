import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hashOf } from '../canonical/index.ts';
import type { Entry, EntryKind } from '../ledger/index.ts';
import { foldRun } from './run-state.ts';
import { StatusFold } from './status-fold.ts';

const P1 = hashOf('p1');
const P2 = hashOf('p2');
const payloads: Partial<Record<EntryKind, unknown[]>> = {
  'step.allowed': [
    { step: 'a', tool: 't', proposalId: P1, args: {}, idempotencyKey: P1, attempt: 1, costCents: 0 },
  ],
  'step.completed': [{ step: 'a', tool: 't', proposalId: P1, output: 1, costCents: 0 }],
  'step.failed': [{ step: 'a', tool: 't', proposalId: P1, error: { code: 'x', message: 'y' } }],
  'source.drawn': [{ source: 'clock', name: 'now', value: 'x' }],
  'approval.requested': [
    { step: 'a', tool: 't', proposalId: P1, args: {}, costCents: 0, reason: 'r', channel: 'cli' },
  ],
  'approval.resolved': [
    { proposalId: P1, decision: 'approved', by: 'x' },
    { proposalId: P2, decision: 'denied', by: 'y' },
  ],
  'step.refused': [{ step: 'a', tool: 't', proposalId: P1, check: 'validate', code: 'c', message: 'm' }],
  'run.suspended': [
    {
      reason: 'outcome_unknown',
      step: 'a',
      tool: 't',
      proposalId: P1,
      idempotencyKey: P1,
      message: 'm',
    },
  ],
  'step.reconciled': [
    { step: 'a', tool: 't', proposalId: P1, happened: true, via: 'operator', by: 'x', output: 1 },
    { step: 'a', tool: 't', proposalId: P1, happened: false, via: 'tool', by: 't' },
  ],
  'run.finished': [
    { status: 'completed', outputs: {} },
    { status: 'refused', outputs: {} },
    { status: 'failed', outputs: {} },
    { status: 'cancelled', outputs: {}, reason: 'cancelled by x: y' },
  ],
};
const pick = fc.constantFrom(
  ...Object.entries(payloads).flatMap(([kind, ps]) => ps!.map((p) => [kind as EntryKind, p] as const)),
);

test('StatusFold agrees with foldRun on the status of any sequence of entries', () => {
  fc.assert(
    fc.property(fc.array(pick, { maxLength: 30 }), (seq) => {
      const root = {
        v: 1,
        runId: 'r',
        seq: 0,
        kind: 'run.started',
        prevHash: null,
        payloadHash: P1,
        hash: P1,
        at: '',
        payload: {
          tenant: 't',
          workflowId: 'w',
          version: 1,
          specHash: P1,
          status: 'LIVE',
          event: {},
          engine: 'e',
        },
      } as unknown as Entry;
      const entries = [
        root,
        ...seq.map(([kind, payload], i) => ({ ...root, seq: i + 1, kind, payload }) as Entry),
      ];
      const fold = new StatusFold();
      for (const e of entries) fold.apply(e.kind, e.payload);
      assert.equal(fold.status, foldRun(entries).status);
    }),
    { numRuns: 500 },
  );
});
