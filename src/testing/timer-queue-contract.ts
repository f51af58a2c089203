/**
 * The contract of timers in the work queue (ports/work-queue.ts): an append that starts a wait
 * (`LeaseChange` `wait`) leaves the run `waiting` with its wake time, in the same transaction; a
 * claim takes it only once that time has passed, and hands it to one owner only, however many
 * claim at once; `nextWakeAt` names the earliest wake time after now; `keel status` counts waiting
 * runs. Registered by `runStoreContract`, so SQLite and PostgreSQL are held to the same rules.
 * Each test works in a tenant of its own and in the far future, clear of the other contract tests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { chainEntry, type RunStatus, type StoredEntry } from '../core/ledger/index.ts';
import type { AppendRequest, LeaseChange, Store } from '../ports/index.ts';
import { extendLedger, sampleEvent } from './ledger-fixtures.ts';

function root(tenant: string): StoredEntry {
  const runId = hashOf({ timer: Math.random(), at: Date.now() });
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
  };
  return chainEntry(runId, null, 'run.started', payload, '2026-01-01T00:00:00.000Z').stored;
}

function create(tenant: string, e: StoredEntry, status: RunStatus, lease?: LeaseChange): AppendRequest {
  return {
    tenant,
    runId: e.runId,
    expectedHead: null,
    entries: [e],
    status,
    create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
    ...(lease ? { lease } : {}),
  };
}

function next(tenant: string, e: StoredEntry, status: RunStatus, lease?: LeaseChange): AppendRequest {
  return {
    tenant,
    runId: e.runId,
    expectedHead: { seq: e.seq, hash: e.hash },
    entries: extendLedger(e.runId, e, 1),
    status,
    ...(lease ? { lease } : {}),
  };
}

export function timerQueueContract(store: () => Store): void {
  describe('timers', () => {
    test('a waiting run is claimed once its wake time has passed, by one owner only', async () => {
      const tenant = `timers-${Math.random().toString(36).slice(2)}`;
      // Far ahead of any other test's runs and leases (their leases end near 2.8e12 ms at most).
      const t = 2.9e12 + Math.floor(Math.random() * 1e9);
      const [early, late] = [root(tenant), root(tenant)];
      // One run waits after its root (the append starting the wait), one is created waiting.
      await store().ledger.append(
        create(tenant, early, 'running', { op: 'hold', owner: 'walker', ms: 60_000 }),
      );
      await store().ledger.append(next(tenant, early, 'waiting', { op: 'wait', wakeAt: t + 5000 }));
      await store().ledger.append(create(tenant, late, 'waiting', { op: 'wait', wakeAt: t + 10_000 }));
      const q = store().queue;
      assert.deepEqual(await q.claimRuns('w1', 1000, 10, t + 4999, { tenant }), [], 'not before its time');
      assert.equal(await q.nextWakeAt(t + 4999), t + 5000);
      assert.equal(await q.nextWakeAt(t + 5000), t + 10_000, 'the next timer after now');
      const status = await q.workerStatus(t);
      assert.ok((status.timers?.waiting ?? 0) >= 2, 'keel status counts waiting runs');
      const claims = await Promise.all(
        [1, 2, 3, 4, 5].map((w) => q.claimRuns(`w${w}`, 60_000, 10, t + 5000, { tenant })),
      );
      const won = claims.flat();
      assert.deepEqual(
        won.map((r) => r.runId),
        [early.runId],
        'a due timer goes to one claimer',
      );
      assert.equal(won[0]!.entries.length, 2, 'with its ledger');
      assert.deepEqual(await q.claimRuns('w6', 1000, 10, t + 5500, { tenant }), [], 'leased while walked');
      // The plain (unscoped) claim of workers takes a due timer too, and the one-run claim.
      const plain = await q.claimRuns('w7', 1000, 1000, t + 10_000);
      assert.ok(
        plain.some((r) => r.runId === late.runId),
        'the plain claim takes due timers',
      );
      assert.ok(!plain.some((r) => r.runId === early.runId), 'never a run leased to another');
      const one = await q.claimRuns('w8', 1000, 1, t + 70_000, { tenant, runId: early.runId });
      assert.deepEqual(
        one.map((r) => r.runId),
        [early.runId],
        'the one-run claim takes a due timer',
      );
    });

    test('a run that goes on is no timer any more: never claimed as one again', async () => {
      const tenant = `timers-${Math.random().toString(36).slice(2)}`;
      const t = 2.95e12 + Math.floor(Math.random() * 1e9);
      const r = root(tenant);
      await store().ledger.append(create(tenant, r, 'waiting', { op: 'wait', wakeAt: t }));
      const [claimed] = await store().queue.claimRuns('w1', 1000, 1, t, { tenant });
      assert.equal(claimed?.runId, r.runId);
      // The walker records the wait's end and finishes the run, releasing the lease.
      await store().ledger.append(next(tenant, r, 'completed', { op: 'release' }));
      assert.deepEqual(await store().queue.claimRuns('w2', 1000, 1, t + 60_000, { tenant }), []);
      assert.equal((await store().queue.nextWakeAt(t - 1)) === t, false, 'a finished run has no timer');
    });
  });
}
