import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import type { AppendRequest } from '../ports/index.ts';
import { buildLedger, isCode } from '../testing/index.ts';
import { type CommitObserver, observedStore } from './observed-store.ts';
import { openSqliteStore } from './open-store.ts';

const create = (runId: string): AppendRequest => ({
  tenant: 't1',
  runId,
  expectedHead: null,
  entries: buildLedger(runId, 1, 't1'),
  status: 'running',
  create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: runId, eventType: 'go' },
});

test('an observed store tells its observers of commits and claims, and is otherwise the store itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-observed-'));
  const store = openSqliteStore(join(dir, 'k.db'));
  const committed: string[] = [];
  const claimed: string[] = [];
  const observers: CommitObserver[] = [
    {
      committed: () => {
        throw new Error('an observer that throws fails nothing');
      },
    },
    {
      committed: (req) => committed.push(req.runId),
      claimed: (owner, _scope, runs) => claimed.push(`${owner}:${runs.length}`),
    },
  ];
  const observed = observedStore(store, observers);
  try {
    const runId = hashOf('observed');
    await observed.ledger.append(create(runId));
    assert.deepEqual(committed, [runId], 'told after the commit');
    assert.equal((await store.runs.getRun('t1', runId))?.status, 'running', 'written to the store');
    assert.equal(
      (await observed.ledger.readEntries('t1', runId)).length,
      3,
      'other ledger methods are the store’s',
    );
    assert.equal((await observed.queue.claimRuns('w1', 1_000, 5, Date.now())).length, 1);
    assert.deepEqual(claimed, ['w1:1']);
    // Every other port, and what the adapter adds, is the store's own.
    assert.equal(observed.runs, store.runs);
    assert.equal(observed.registry, store.registry);
    assert.equal((observed as unknown as { path: string }).path, store.path);
    assert.equal(observed.stats().commits, store.stats().commits);
    await observed.close();
    await assert.rejects(store.ledger.append(create(hashOf('after'))), isCode('store_unavailable'));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
