/**
 * The contract of waits for events in the store (ports/event-waits.ts), bound by SQLite and
 * PostgreSQL with two handles on one database (two processes): an arrival is kept once and only
 * for its tenant; of many runs taking one arrival at once, across handles, exactly one does (a
 * take is idempotent for its own run step, which still sees it); an arrival wakes exactly the
 * tenant's runs listening for its type (claimable at once); a run going to sleep is due at once
 * if an untaken arrival it has not seen is there, else at its wake time, and holds no lease.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { chainEntry, type EventRecord, type StoredEntry } from '../core/ledger/index.ts';
import type { Store } from '../ports/index.ts';
import { extendLedger, sampleEvent } from './ledger-fixtures.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

function arrival(tenant: string, o: { id?: string; type?: string; subject?: string } = {}): EventRecord {
  return {
    id: o.id ?? unique('r'),
    type: o.type ?? 'customer.replied',
    tenant,
    source: 'helpdesk',
    subject: o.subject ?? 'T-1',
    payload: { text: 'hi' },
    time: '2026-01-01T01:00:00Z',
  };
}

/** A run of `tenant`, created, then waiting (head seq 1) holding a lease; returns its id. */
async function waitingRun(store: Store, tenant: string): Promise<string> {
  const runId = hashOf({ run: unique('w') });
  const root: StoredEntry = chainEntry(
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
    '2026-01-01T00:00:00.000Z',
  ).stored;
  const head = await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries: [root],
    status: 'running',
    create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
  });
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: head,
    entries: extendLedger(runId, root, 1),
    status: 'waiting',
    lease: { op: 'hold', owner: 'walker', ms: 60_000 },
    wakeAt: Date.now() + 3_600_000,
  });
  return runId;
}

export function eventWaitsContract(open: () => Promise<{ a: Store; b: Store }>): void {
  test('an arrival is kept once, for its tenant only', async () => {
    const { a, b } = await open();
    try {
      const t = unique('acme');
      const e = arrival(t);
      const now = Date.now();
      await a.waits.arrive(e, now);
      await b.waits.arrive({ ...e, payload: { text: 'changed' } }, now + 5);
      const seen = await b.waits.untaken(t, e.type, now - 1, { runId: 'r', step: 's' }, 10);
      assert.deepEqual(seen, [{ event: e, arrivedAt: now }]);
      assert.deepEqual(await a.waits.untaken(unique('other'), e.type, 0, { runId: 'r', step: 's' }, 10), []);
      assert.deepEqual(await a.waits.untaken(t, 'other.type', 0, { runId: 'r', step: 's' }, 10), []);
      assert.deepEqual(await a.waits.untaken(t, e.type, now + 1, { runId: 'r', step: 's' }, 10), []);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('of many runs taking one arrival at once, across handles, exactly one does', async () => {
    const { a, b } = await open();
    try {
      const t = unique('acme');
      const e = arrival(t);
      await a.waits.arrive(e, Date.now());
      const takers = Array.from({ length: 12 }, (_, i) => ({ runId: `run-${i}`, step: 'await_reply' }));
      const won = await Promise.all(takers.map((k, i) => (i % 2 ? a : b).waits.take(t, e, k)));
      assert.equal(won.filter(Boolean).length, 1, `one taker: ${JSON.stringify(won)}`);
      const winner = takers[won.indexOf(true)]!;
      assert.equal(await a.waits.take(t, e, winner), true, 'a take is idempotent for its own step');
      assert.equal(await a.waits.take(t, e, { runId: winner.runId, step: 'other' }), false);
      assert.equal((await b.waits.untaken(t, e.type, 0, winner, 10)).length, 1, 'its taker still sees it');
      assert.deepEqual(await b.waits.untaken(t, e.type, 0, takers.find((k) => k !== winner)!, 10), []);
      assert.equal(await a.waits.take(unique('other'), e, { runId: 'x', step: 'y' }), false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('an arrival wakes the tenant runs listening for its type, at once; no others', async () => {
    const { a, b } = await open();
    try {
      const t = unique('acme');
      const listening = await waitingRun(a, t);
      const otherType = await waitingRun(a, t);
      const otherTenant = unique('other');
      const elsewhere = await waitingRun(a, otherTenant);
      await a.waits.listen(t, listening, 'customer.replied');
      await a.waits.listen(t, otherType, 'incident.acknowledged');
      await a.waits.listen(otherTenant, elsewhere, 'customer.replied');
      const now = Date.now();
      const woken = await b.waits.arrive(arrival(t), now);
      assert.deepEqual(woken, [{ tenant: t, runId: listening }]);
      // Its lease still held by its walker: claimable once that lease lapses; sleep clears it.
      await a.waits.sleep(t, listening, {
        seq: 1,
        type: 'customer.replied',
        since: 0,
        seen: [],
        wakeAt: now + 3_600_000,
        now,
      });
      const claimed = await b.queue.claimRuns('w2', 30_000, 10, now + 1, { tenant: t });
      assert.deepEqual(
        claimed.map((c) => c.runId),
        [listening],
        'the unseen arrival makes it due at once, its lease cleared',
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a run sleeping having seen every arrival is due at its wake time, not before', async () => {
    const { a, b } = await open();
    try {
      const t = unique('acme');
      const run = await waitingRun(a, t);
      await a.waits.listen(t, run, 'customer.replied');
      const e = arrival(t);
      const now = Date.now();
      await a.waits.arrive(e, now);
      await b.waits.sleep(t, run, {
        seq: 1,
        type: 'customer.replied',
        since: 0,
        seen: [{ source: e.source, id: e.id }],
        wakeAt: now + 60_000,
        now,
      });
      assert.deepEqual(await b.queue.claimRuns('w', 30_000, 10, now + 1, { tenant: t }), []);
      assert.equal((await a.queue.claimRuns('w', 30_000, 10, now + 60_000, { tenant: t })).length, 1);
      // A sleep at a stale head changes nothing.
      await b.waits.sleep(t, run, {
        seq: 0,
        type: 'customer.replied',
        since: 0,
        seen: [],
        wakeAt: null,
        now,
      });
    } finally {
      await a.close();
      await b.close();
    }
  });
}
