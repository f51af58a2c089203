/**
 * The contract of the shadow queue (ports/shadow-queue.ts) (docs/lifecycle.md, "The shadow
 * queue"), bound by every adapter through runStoreContract: work queued with the append that
 * starts its live run (and only if that append is written), or on its own, once per item; claimed
 * under leases, fairly — each candidate version's oldest item first, the versions in turn — never
 * by two claimers at once; released, taken over from a gone owner, finished; and its lag, per
 * tenant, workflow and version.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { chainEntry } from '../core/ledger/index.ts';
import type { AppendRequest, ShadowWork, Store } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${n++}-${Math.random().toString(16).slice(2, 8)}`;

function work(tenant: string, version: number, o: Partial<ShadowWork> = {}): ShadowWork {
  return {
    tenant,
    id: hashOf({ shadow: unique('w') }) as Digest,
    workflowId: 'wf',
    version,
    liveVersion: 1,
    liveRunId: hashOf(unique('live')),
    judgedAs: 'LIVE',
    event: sampleEvent({ tenant }),
    enqueuedMs: 1_000 + n,
    ...o,
  };
}

/** A live run's root, carrying `shadowWork` in the append that creates it. */
function liveStart(tenant: string, shadowWork: readonly ShadowWork[]): AppendRequest {
  const runId = hashOf({ live: unique('run') });
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
  };
  const root = chainEntry(runId, null, 'run.started', payload, '2026-01-01T00:00:00.000Z').stored;
  return {
    tenant,
    runId,
    expectedHead: null,
    entries: [root],
    status: 'running',
    create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 'go' },
    shadowWork,
  };
}

const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id);

export function shadowQueueContract(current: () => Store, another?: () => Store): void {
  describe('shadow queue', () => {
    test('work rides the append that starts its live run: written with it, or not at all; queued once', async () => {
      const store = current();
      const tenant = unique('t');
      const a = work(tenant, 2);
      const b = work(tenant, 3, { liveRunId: a.liveRunId });
      const req = liveStart(tenant, [a, b]);
      await store.ledger.append(req);
      // The same root again is a head conflict: nothing of it is written, its work neither.
      const c = work(tenant, 4);
      await assert.rejects(store.ledger.append({ ...req, shadowWork: [c] }), (e) => isKeelError(e));
      assert.equal((await store.shadowQueue.shadowQueueStatus(0, { tenant })).waiting, 2);
      // Queued again (a redelivered event): kept as it is.
      assert.equal(await store.shadowQueue.enqueueShadowWork([a, { ...b, version: 9 }, c]), 1);
      const claimed = await store.shadowQueue.claimShadowWork('me', 60_000, 10, 5_000, { tenant });
      assert.deepEqual(claimed.map((x) => x.version).sort(), [2, 3, 4]);
      const got = claimed.find((x) => x.id === a.id)!;
      assert.deepEqual({ ...got, leaseUntil: undefined }, { ...a, leaseUntil: undefined, attempts: 0 });
      assert.equal(got.leaseUntil, 65_000);
      // Work without a live run (the live version did not start on the event) keeps no live run id.
      const alone = work(tenant, 2);
      delete (alone as { liveRunId?: string }).liveRunId;
      await store.shadowQueue.enqueueShadowWork([alone]);
      const [back] = await store.shadowQueue.claimShadowWork('me', 60_000, 10, 5_000, { tenant });
      assert.equal(back?.id, alone.id);
      assert.equal(back?.liveRunId, undefined);
    });

    test('claims are fair: each version oldest first, the versions in turn after the one served last', async () => {
      const store = current();
      const tenant = unique('t');
      // v2's backlog is all older than v3's: first come would serve v2 six times before v3 once.
      const v2 = Array.from({ length: 6 }, () => work(tenant, 2));
      const v3 = Array.from({ length: 3 }, () => work(tenant, 3));
      const v4 = [work(tenant, 4)];
      await store.shadowQueue.enqueueShadowWork(v2);
      await store.shadowQueue.enqueueShadowWork(v3);
      await store.shadowQueue.enqueueShadowWork(v4);
      const batch = await store.shadowQueue.claimShadowWork('a', 60_000, 5, 5_000, { tenant });
      assert.deepEqual(ids(batch), [v2[0]!.id, v3[0]!.id, v4[0]!.id, v2[1]!.id, v3[1]!.id]);
      // One at a time, each claim starting after the version served last: v2, v3, then v2 alone (v4 is empty).
      const order: number[] = [];
      let after = { tenant, workflowId: 'wf', version: 3 };
      for (let i = 0; i < 10; i++) {
        const [x] = await store.shadowQueue.claimShadowWork('a', 60_000, 1, 5_000, { tenant, after });
        if (!x) break;
        order.push(x.version);
        after = { tenant, workflowId: x.workflowId, version: x.version };
      }
      assert.deepEqual(order, [2, 3, 2, 2, 2]);
      assert.deepEqual(await store.shadowQueue.claimShadowWork('a', 60_000, 5, 5_000, { tenant }), []);
    });

    test('a lease holds an item until it expires, is released or its owner is gone; done work leaves', async () => {
      const store = current();
      const tenant = unique('t');
      const [a, b] = [work(tenant, 2), work(tenant, 2)];
      await store.shadowQueue.enqueueShadowWork([a, b]);
      const [x] = await store.shadowQueue.claimShadowWork('one', 1_000, 1, 10_000, { tenant });
      assert.equal(x?.id, a.id);
      // Held: another claimer gets the next one, then nothing.
      assert.deepEqual(ids(await store.shadowQueue.claimShadowWork('two', 1_000, 5, 10_500, { tenant })), [
        b.id,
      ]);
      assert.deepEqual(await store.shadowQueue.claimShadowWork('three', 1_000, 5, 10_900, { tenant }), []);
      // Its owner is known to be gone: taken over at once.
      assert.deepEqual(
        ids(
          await store.shadowQueue.claimShadowWork('three', 1_000, 5, 10_900, { tenant, takeOver: ['one'] }),
        ),
        [a.id],
      );
      // Expired: claimable again.
      assert.deepEqual(ids(await store.shadowQueue.claimShadowWork('four', 1_000, 5, 12_000, { tenant })), [
        a.id,
        b.id,
      ]);
      // Released by its holder only; with a retry time, claimable from then on.
      assert.equal(await store.shadowQueue.releaseShadowWork(tenant, a.id, 'three'), false);
      assert.equal(await store.shadowQueue.releaseShadowWork(tenant, a.id, 'four', 20_000), true);
      assert.deepEqual(
        await store.shadowQueue.claimShadowWork('five', 1_000, 5, 15_000, { tenant, ids: [a.id] }),
        [],
      );
      assert.deepEqual(
        ids(await store.shadowQueue.claimShadowWork('five', 1_000, 5, 20_001, { tenant, ids: [a.id] })),
        [a.id],
      );
      // Another tenant can neither claim nor finish it.
      const other = unique('t');
      assert.deepEqual(await store.shadowQueue.claimShadowWork('x', 1_000, 5, 99_000, { tenant: other }), []);
      assert.equal(await store.shadowQueue.finishShadowWork(other, a.id), false);
      assert.equal(await store.shadowQueue.finishShadowWork(tenant, a.id), true);
      assert.equal(await store.shadowQueue.finishShadowWork(tenant, a.id), false);
      // A tenant at its limit is passed over.
      assert.deepEqual(
        await store.shadowQueue.claimShadowWork('x', 1_000, 5, 99_000, { tenant, skipTenants: [tenant] }),
        [],
      );
      assert.deepEqual(ids(await store.shadowQueue.claimShadowWork('x', 1_000, 5, 99_000, { tenant })), [
        b.id,
      ]);
    });

    test("the queue's lag: waiting, running, the oldest item, per owner; per tenant, workflow and version", async () => {
      const store = current();
      const tenant = unique('t');
      assert.deepEqual(await store.shadowQueue.shadowQueueStatus(0, { tenant }), {
        waiting: 0,
        running: 0,
        owners: [],
        failed: 0,
        failures: [],
      });
      await store.shadowQueue.enqueueShadowWork([
        work(tenant, 2, { enqueuedMs: 500 }),
        work(tenant, 2, { enqueuedMs: 700 }),
        work(tenant, 3, { enqueuedMs: 600, workflowId: 'other' }),
      ]);
      await store.shadowQueue.claimShadowWork('me', 10_000, 1, 1_000, { tenant });
      assert.deepEqual(await store.shadowQueue.shadowQueueStatus(2_000, { tenant }), {
        waiting: 2,
        running: 1,
        oldestMs: 500,
        owners: [{ owner: 'me', items: 1 }],
        failed: 0,
        failures: [],
      });
      // The claim took the first version in turn: 'other' v3 sorts before 'wf' v2.
      assert.deepEqual(await store.shadowQueue.shadowQueueStatus(2_000, { tenant, workflowId: 'other' }), {
        waiting: 0,
        running: 1,
        oldestMs: 600,
        owners: [{ owner: 'me', items: 1 }],
        failed: 0,
        failures: [],
      });
      assert.equal(
        (await store.shadowQueue.shadowQueueStatus(2_000, { tenant, workflowId: 'wf', version: 3 })).waiting,
        0,
      );
      // Its lease expired: waiting again.
      assert.equal((await store.shadowQueue.shadowQueueStatus(20_000, { tenant })).waiting, 3);
      assert.ok((await store.shadowQueue.shadowQueueStatus(20_000)).waiting >= 3, 'across the store');
    });

    test('a failed attempt is counted and its error kept; an item given up on is kept as failed, reported, never claimed, until retried', async () => {
      const store = current();
      const tenant = unique('t');
      const [a, b] = [work(tenant, 2, { enqueuedMs: 100 }), work(tenant, 3, { enqueuedMs: 200 })];
      await store.shadowQueue.enqueueShadowWork([a, b]);
      const [x] = await store.shadowQueue.claimShadowWork('one', 1_000, 1, 1_000, { tenant, ids: [a.id] });
      assert.equal(x?.attempts, 0);
      // Handed back after a failure: counted, claimable at the retry time, with the count.
      assert.equal(
        await store.shadowQueue.releaseShadowWork(tenant, a.id, 'one', 5_000, 'the store was unreachable'),
        true,
      );
      assert.deepEqual(
        await store.shadowQueue.claimShadowWork('one', 1_000, 1, 4_999, { tenant, ids: [a.id] }),
        [],
      );
      const [y] = await store.shadowQueue.claimShadowWork('one', 1_000, 1, 5_001, { tenant, ids: [a.id] });
      assert.equal(y?.attempts, 1);
      // Handed back without a failure (nothing went wrong): not counted.
      assert.equal(await store.shadowQueue.releaseShadowWork(tenant, a.id, 'one'), true);
      const [z] = await store.shadowQueue.claimShadowWork('one', 1_000, 1, 5_002, { tenant, ids: [a.id] });
      assert.equal(z?.attempts, 1);
      // Given up on, by its holder only: kept as failed, with the count and the last error.
      assert.equal(await store.shadowQueue.failShadowWork(tenant, a.id, 'two', 'nope', 6_000), false);
      assert.equal(
        await store.shadowQueue.failShadowWork(tenant, a.id, 'one', 'the store was unreachable again', 6_000),
        true,
      );
      assert.deepEqual(
        await store.shadowQueue.claimShadowWork('one', 1_000, 5, 99_000, { tenant, ids: [a.id] }),
        [],
      );
      const status = await store.shadowQueue.shadowQueueStatus(7_000, { tenant });
      assert.deepEqual(
        { ...status, failures: undefined },
        { waiting: 1, running: 0, oldestMs: 200, owners: [], failed: 1, failures: undefined },
      );
      assert.deepEqual(status.failures, [
        {
          id: a.id,
          workflowId: 'wf',
          version: 2,
          liveRunId: a.liveRunId,
          attempts: 2,
          error: 'the store was unreachable again',
          failedMs: 6_000,
        },
      ]);
      assert.equal(
        (await store.shadowQueue.shadowQueueStatus(7_000, { tenant, workflowId: 'wf', version: 3 })).failed,
        0,
      );
      assert.equal((await store.shadowQueue.shadowQueueStatus(7_000, { tenant: unique('t') })).failed, 0);
      // Another tenant's retry touches none of it; the tenant's puts it back, counted afresh.
      assert.equal(await store.shadowQueue.retryFailedShadowWork(unique('t')), 0);
      assert.equal(await store.shadowQueue.retryFailedShadowWork(tenant), 1);
      const [again] = await store.shadowQueue.claimShadowWork('one', 1_000, 1, 7_000, {
        tenant,
        ids: [a.id],
      });
      assert.deepEqual([again?.id, again?.attempts], [a.id, 0]);
      assert.equal((await store.shadowQueue.shadowQueueStatus(7_000, { tenant })).failed, 0);
    });

    test('the items waiting beside a live run are woken when it ends: claimable at once, held and failed ones left', async () => {
      const store = current();
      const tenant = unique('t');
      const live = hashOf(unique('live'));
      const [a, b, c] = [
        work(tenant, 2, { liveRunId: live }),
        work(tenant, 3, { liveRunId: live }),
        work(tenant, 4, { liveRunId: live }),
      ];
      const other = work(tenant, 2);
      await store.shadowQueue.enqueueShadowWork([a, b, c, other]);
      await store.shadowQueue.claimShadowWork('one', 1_000, 4, 1_000, { tenant });
      // a and other wait to be tried again; b failed; c is held.
      await store.shadowQueue.releaseShadowWork(tenant, a.id, 'one', 50_000);
      await store.shadowQueue.releaseShadowWork(tenant, other.id, 'one', 50_000);
      await store.shadowQueue.failShadowWork(tenant, b.id, 'one', 'gone', 1_500);
      assert.deepEqual(await store.shadowQueue.wakeShadowWork(unique('t'), live), []);
      assert.deepEqual(await store.shadowQueue.wakeShadowWork(tenant, live), [a.id]);
      assert.deepEqual(ids(await store.shadowQueue.claimShadowWork('two', 1_000, 5, 2_000, { tenant })), [
        a.id,
      ]);
      assert.deepEqual(await store.shadowQueue.wakeShadowWork(tenant, live), []);
    });

    if (another)
      test('two handles claiming at once never both get an item', async () => {
        const [s1, s2] = [current(), another()];
        const tenant = unique('t');
        const items = Array.from({ length: 40 }, (_, i) => work(tenant, 2 + (i % 4)));
        await s1.shadowQueue.enqueueShadowWork(items);
        const got: string[] = [];
        await Promise.all(
          [s1, s2, s1, s2].map(async (s, k) => {
            for (;;) {
              const c = await s.shadowQueue.claimShadowWork(`c${k}`, 60_000, 3, 5_000, { tenant });
              if (c.length === 0) return;
              got.push(...ids(c));
            }
          }),
        );
        assert.equal(got.length, 40);
        assert.equal(new Set(got).size, 40);
      });
  });
}
