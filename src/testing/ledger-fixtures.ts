/**
 * Builders for ledgers in tests: realistic chained entries without running the engine.
 */
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { chainEntry, type EventRecord, type Head, type StoredEntry } from '../core/ledger/index.ts';

export const FIXED_TIME = '2026-01-01T00:00:00.000Z';

export function sampleEvent(overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    id: 'evt-1',
    type: 'refund.requested',
    tenant: 't1',
    source: 'test',
    subject: 'T-1001',
    payload: { refund_amount: 30, currency: 'USD' },
    time: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

/** A run root plus `steps` completed steps (two entries each), chained. */
export function buildLedger(runId: string, steps: number, tenant = 't1'): StoredEntry[] {
  const out: StoredEntry[] = [];
  let head: Head | null = null;
  const push = (e: { stored: StoredEntry }) => {
    out.push(e.stored);
    head = { seq: e.stored.seq, hash: e.stored.hash };
  };
  push(
    chainEntry(
      runId,
      null,
      'run.started',
      {
        tenant,
        workflowId: 'wf',
        version: 1,
        specHash: hashOf('spec'),
        status: 'LIVE',
        event: sampleEvent({ tenant }),
        engine: 'keel/test',
      },
      FIXED_TIME,
    ),
  );
  for (let i = 0; i < steps; i++) {
    const proposalId = hashOf({ runId, i });
    push(
      chainEntry(
        runId,
        head,
        'step.allowed',
        {
          step: `s${i}`,
          tool: 'noop',
          proposalId,
          args: { i },
          idempotencyKey: hashOf({ runId, i, k: 1 }),
          attempt: 1,
          costCents: 0,
        },
        FIXED_TIME,
      ),
    );
    push(
      chainEntry(
        runId,
        head,
        'step.completed',
        { step: `s${i}`, tool: 'noop', proposalId, output: { i }, costCents: 0 },
        FIXED_TIME,
      ),
    );
  }
  return out;
}

/** Continues a ledger with `n` more completed steps after `after`. */
export function extendLedger(runId: string, after: StoredEntry, n: number): StoredEntry[] {
  const out: StoredEntry[] = [];
  let head: Head = { seq: after.seq, hash: after.hash };
  for (let i = 0; i < n; i++) {
    const proposalId: Digest = hashOf({ runId, after: after.seq, i });
    const { stored } = chainEntry(
      runId,
      head,
      'step.completed',
      { step: `x${i}`, tool: 'noop', proposalId, output: i, costCents: 0 },
      FIXED_TIME,
    );
    out.push(stored);
    head = { seq: stored.seq, hash: stored.hash };
  }
  return out;
}
