/**
 * The contract of the work queue (ports/work-queue.ts): leases on runs, worker heartbeats, `keel
 * status` figures and wake-ups. Registered by `runStoreContract`, so SQLite and PostgreSQL are
 * held to the same rules: a run is leased to one owner at a time, an expired lease makes it
 * claimable again, renewals keep only what is still held, and an append can hold or release a
 * lease atomically.
 *
 * The contract store is shared with the other contract tests, whose running runs are claimable
 * too: each test first drains the queue with a far-future lease, so it sees only its own runs.

 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { chainEntry, type RunStatus, type StoredEntry } from '../core/ledger/index.ts';
import type { AppendRequest, LeaseChange, Store } from '../ports/index.ts';
import { extendLedger, sampleEvent } from './ledger-fixtures.ts';

let n = 0;
const FAR = 1e12;

function root(tenant: string, at: string): StoredEntry {
  const runId = hashOf({ lease: n++, salt: Math.random() });
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
  };
  return chainEntry(runId, null, 'run.started', payload, at).stored;
}

function create(
  e: StoredEntry,
  status: RunStatus = 'running',
  lease?: LeaseChange,
  tenant = 't1',
): AppendRequest {
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

/** Appends one entry after `e`, optionally changing the lease. */
function next(e: StoredEntry, lease?: LeaseChange, status: RunStatus = 'running'): AppendRequest {
  return {
    tenant: 't1',
    runId: e.runId,
    expectedHead: { seq: e.seq, hash: e.hash },
    entries: extendLedger(e.runId, e, 1),
    status,
    ...(lease ? { lease } : {}),
  };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const ids = (xs: readonly { runId: string }[]) => xs.map((x) => x.runId).sort();

export function workQueueContract(store: () => Store): void {
  describe('leases and workers', () => {
    /** Leases every run claimable within the next minute to nobody in particular, far into the future. */
    const drain = async (now = Date.now()) => {
      while ((await store().queue.claimRuns('drained', FAR, 1000, now + 60_000)).length === 1000);
    };

    test('claims running runs without a live lease, oldest first, each to one owner at a time', async () => {
      const now = Date.now();
      await drain(now);
      const [a, b, c] = [root('t1', at(1)), root('t1', at(2)), root('t1', at(3))];
      for (const e of [c, a, b]) await store().ledger.append(create(e));
      await store().ledger.append(create(root('t1', at(0)), 'completed'));
      await store().ledger.append(create(root('t1', at(0)), 'waiting_approval'));
      await store().ledger.append(create(root('t1', at(0)), 'outcome_unknown'));
      const first = await store().queue.claimRuns('w1', 1000, 2, now);
      assert.deepEqual(ids(first), ids([a, b].map((e) => ({ runId: e.runId }))));
      assert.ok(first.every((r) => r.tenant === 't1' && r.leaseUntil === now + 1000));
      for (const r of first) {
        const ledger = await store().ledger.readEntries('t1', r.runId);
        assert.deepEqual(
          r.entries.map((e) => [e.seq, e.hash, Buffer.from(e.payload).toString('hex')]),
          ledger.map((e) => [e.seq, e.hash, Buffer.from(e.payload).toString('hex')]),
          'a claim returns the run’s ledger',
        );
      }
      assert.deepEqual(ids(await store().queue.claimRuns('w2', 1000, 10, now)), [c.runId]);
      assert.deepEqual(await store().queue.claimRuns('w3', 1000, 10, now + 999), [], 'leases are live');
      const expired = await store().queue.claimRuns('w3', 1000, 10, now + 1001);
      assert.deepEqual(ids(expired), [a.runId, b.runId, c.runId].sort());
      assert.deepEqual(await store().queue.claimRuns('w4', 1000, 0, now + 5000), []);
    });

    test('concurrent claims never hand one run to two owners', async () => {
      const now = Date.now();
      await drain(now);
      for (let i = 0; i < 10; i++) await store().ledger.append(create(root('t1', at(i))));
      const claims = await Promise.all(
        [1, 2, 3, 4, 5].map((w) => store().queue.claimRuns(`w${w}`, 10_000, 3, now)),
      );
      const all = claims.flat().map((r) => r.runId);
      assert.equal(all.length, 10);
      assert.equal(new Set(all).size, 10);
    });

    test('a scoped claim takes one tenant, one run, or leases of owners known to be gone', async () => {
      const now = Date.now();
      await drain(now);
      const hold = (owner: string): LeaseChange => ({ op: 'hold', owner, ms: 60_000 });
      const [free, other, gone, alive] = [
        root('t1', at(1)),
        root('t2', at(2)),
        root('t1', at(3)),
        root('t1', at(4)),
      ];
      await store().ledger.append(create(free));
      await store().ledger.append(create(other, 'running', undefined, 't2'));
      await store().ledger.append(create(gone, 'running', hold('inline:h1:11')));
      await store().ledger.append(create(alive, 'running', hold('inline:h1:12')));
      assert.deepEqual(
        await store().queue.claimRuns('r1', 1000, 10, now, { tenant: 't1', runId: other.runId }),
        [],
        'another tenant’s run is never claimed by id',
      );
      assert.deepEqual(ids(await store().queue.claimRuns('r1', 1000, 10, now, { tenant: 't1' })), [
        free.runId,
      ]);
      assert.deepEqual(
        await store().queue.claimRuns('r1', 1000, 10, now, { tenant: 't1', runId: gone.runId }),
        [],
        'a live lease holds without takeOver',
      );
      const taken = await store().queue.claimRuns('r1', 1000, 10, now, { takeOver: ['inline:h1:11'] });
      assert.deepEqual(ids(taken), ids([gone, other]), 'any tenant, and the gone owner’s lease but no other');
      assert.deepEqual(
        taken.find((r) => r.runId === gone.runId)?.entries.map((x) => x.seq),
        [0],
      );
      const [one] = await store().queue.claimRuns('r2', 1000, 10, now, {
        tenant: 't1',
        runId: alive.runId,
        takeOver: ['inline:h1:12'],
      });
      assert.equal(one?.runId, alive.runId);
      assert.deepEqual(await store().queue.claimRuns('r4', 1000, 10, now), [], 'every lease is live again');
    });

    test('renewals keep only leases still held; release frees a run for others', async () => {
      const now = Date.now();
      await drain(now);
      const [a, b] = [root('t1', at(1)), root('t1', at(2))];
      await store().ledger.append(create(a));
      await store().ledger.append(create(b));
      assert.equal((await store().queue.claimRuns('w1', 1000, 10, now)).length, 2);
      const held = await store().queue.renewLeases(
        'w1',
        [b.runId, a.runId, hashOf('unknown')],
        1000,
        now + 900,
      );
      assert.deepEqual(held.sort(), [a.runId, b.runId].sort());
      assert.deepEqual(
        await store().queue.claimRuns('w2', 1000, 10, now + 1500),
        [],
        'renewed until now+1900',
      );
      assert.equal((await store().queue.claimRuns('w2', 1000, 10, now + 2000)).length, 2);
      assert.deepEqual(await store().queue.renewLeases('w1', [a.runId, b.runId], 1000, now + 2100), []);
      assert.equal(await store().queue.releaseRun('w1', a.runId), false, 'not w1’s any more');
      assert.equal(await store().queue.releaseRun('w2', a.runId), true);
      assert.deepEqual(ids(await store().queue.claimRuns('w3', 1000, 10, now + 2100)), [a.runId]);
    });

    test('an append holds or releases the lease in its own transaction; a stale one changes nothing', async () => {
      await drain();
      const e = root('t1', at(1));
      await store().ledger.append(create(e, 'running', { op: 'hold', owner: 'inline', ms: 60_000 }));
      assert.deepEqual(await store().queue.claimRuns('w1', 1000, 10, Date.now()), [], 'held by the creator');
      const more = next(e);
      await store().ledger.append(more);
      assert.deepEqual(
        await store().queue.claimRuns('w1', 1000, 10, Date.now()),
        [],
        'kept by a plain append',
      );
      await assert.rejects(
        store().ledger.append({ ...next(e), lease: { op: 'release' } }),
        (x: unknown) => isKeelError(x) && x.code === 'head_conflict',
      );
      assert.deepEqual(
        await store().queue.claimRuns('w1', 1000, 10, Date.now()),
        [],
        'a stale append released nothing',
      );
      await store().ledger.append(next(more.entries[0]!, { op: 'release' }));
      const [claimed] = await store().queue.claimRuns('w1', 1000, 10, Date.now());
      assert.equal(claimed?.runId, e.runId);
      assert.deepEqual(
        claimed?.entries.map((x) => x.seq),
        [0, 1, 2],
        'the ledger a claim returns reaches the head',
      );
    });

    test('wakes listeners when an append leaves a run running with no lease', async () => {
      let calls = 0;
      const stop = await store().queue.onRunnable(() => calls++);
      try {
        await new Promise((r) => setTimeout(r, 50));
        calls = 0;
        await store().ledger.append(
          create(root('t1', at(1)), 'running', { op: 'hold', owner: 'x', ms: 60_000 }),
        );
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(calls, 0, 'a held run wakes nobody');
        await store().ledger.append(create(root('t1', at(1)), 'running', { op: 'release' }));
        for (let i = 0; i < 100 && calls === 0; i++) await new Promise((r) => setTimeout(r, 20));
        assert.ok(calls >= 1, 'a released run wakes the listeners');
      } finally {
        await stop();
      }
    });

    test('workers register and heartbeat; a live id of another process is refused', async () => {
      const now = Date.now();
      const id = `w-${n++}`;
      await store().queue.registerWorker({ id, host: 'h1', pid: 11, startedAt: now, leaseMs: 1000 }, now);
      await store().queue.renewLeases(id, [], 1000, now + 300);
      const seen = (await store().queue.workerStatus(now + 300)).workers.find((w) => w.id === id);
      assert.deepEqual(seen, { id, host: 'h1', pid: 11, startedAt: now, seenAt: now + 300, leaseMs: 1000 });
      await assert.rejects(
        store().queue.registerWorker({ id, host: 'h2', pid: 22, startedAt: now, leaseMs: 1000 }, now + 500),
        (x: unknown) => isKeelError(x) && x.code === 'usage' && /in use by pid 11 on h1/.test(x.message),
      );
      // The same process may register again; another may take over an id whose owner went quiet.
      await store().queue.registerWorker(
        { id, host: 'h1', pid: 11, startedAt: now, leaseMs: 1000 },
        now + 600,
      );
      await store().queue.registerWorker(
        { id, host: 'h2', pid: 22, startedAt: now, leaseMs: 1000 },
        now + 1700,
      );
      assert.equal((await store().queue.workerStatus(now)).workers.find((w) => w.id === id)?.pid, 22);
      await store().queue.unregisterWorker(id);
      assert.equal(
        (await store().queue.workerStatus(now)).workers.find((w) => w.id === id),
        undefined,
      );
    });

    test('status counts the queue, live leases per owner, the oldest runnable run and suspended runs', async () => {
      const now = Date.now();
      await drain(now);
      const before = await store().queue.workerStatus(now);
      assert.equal(before.queueDepth, 0);
      assert.equal(before.oldestRunnable, undefined);
      const [old, young] = [root('t1', at(1)), root('t1', at(2))];
      await store().ledger.append(create(young));
      await store().ledger.append(create(old));
      await store().ledger.append(create(root('t1', at(0)), 'outcome_unknown'));
      const queued = await store().queue.workerStatus(now);
      assert.equal(queued.queueDepth, 2);
      assert.deepEqual(queued.oldestRunnable, { tenant: 't1', runId: old.runId, createdAt: at(1) });
      assert.equal(queued.suspended, before.suspended + 1);
      await store().queue.claimRuns('w-status', 1000, 1, now);
      const claimed = await store().queue.workerStatus(now);
      assert.equal(claimed.queueDepth, 1);
      assert.deepEqual(claimed.oldestRunnable?.runId, young.runId);
      assert.deepEqual(
        claimed.leases.find((l) => l.owner === 'w-status'),
        { owner: 'w-status', runs: 1 },
      );
      assert.equal(
        (await store().queue.workerStatus(now + 1001)).queueDepth,
        2,
        'an expired lease is queued again',
      );
    });
  });
}
