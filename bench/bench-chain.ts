/**
 * A synthetic run ledger for the ledger benchmarks: a root and `n - 1` completed steps, chained,
 * produced one entry at a time so a million-entry ledger never sits in memory whole.
 */
import { type Digest, hashOf } from '../src/core/canonical/index.ts';
import { chainEntry, type EventRecord, type Head, type StoredEntry } from '../src/core/ledger/index.ts';
import { runIdFor } from '../src/core/run/index.ts';

const AT = '2026-01-01T00:00:00.000Z';
const EVENT: EventRecord = {
  id: 'e',
  type: 't',
  tenant: 'bench',
  source: '',
  subject: '',
  payload: {},
  time: AT,
};

/**
 * The id the synthetic run's root derives (verify recomputes it), for benches that store the
 * ledger; `specHash` is that of the version the run pins (a stored one, for benches that verify).
 */
export const benchRunId = (specHash: Digest = hashOf('bench')) => runIdFor('bench', 'bench', specHash, EVENT);

export function* benchChain(
  runId: string,
  n: number,
  specHash: Digest = hashOf('bench'),
): Generator<StoredEntry> {
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant: 'bench',
      workflowId: 'bench',
      version: 1,
      specHash,
      status: 'LIVE',
      event: EVENT,
      engine: 'bench',
    },
    AT,
  ).stored;
  yield root;
  let head: Head = { seq: 0, hash: root.hash };
  for (let i = 1; i < n; i++) {
    const { stored }: { stored: StoredEntry } = chainEntry(
      runId,
      head,
      'step.completed',
      {
        step: `s${i}`,
        tool: 'step_a',
        proposalId: root.hash,
        output: { ok: true, ticket: `T-${i}` },
        costCents: 0,
      },
      AT,
    );
    yield stored;
    head = { seq: stored.seq, hash: stored.hash };
  }
}
