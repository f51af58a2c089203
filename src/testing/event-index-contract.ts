/**
 * The contract of the event index (ports/event-index.ts) (DESIGN invariant 15), bound by every
 * adapter through runStoreContract: `(tenant, source, id)` names one event; the first claim stores
 * its content and runs and every later claim of the name gets that first delivery back, whatever
 * it carries, with nothing written; of concurrent claims (on one handle and across two) exactly
 * one is first; trigger disagreements are written only with a first claim and counted; conflicting
 * redeliveries are kept once per content and counted; tenants never see each other's events.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { eventContent } from '../core/run/index.ts';
import type { DeliveredEvent, Store, TriggerDisagreement } from '../ports/index.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const ROLLOUT = '2026-12-01T09:00:00.000Z';

function delivery(
  tenant: string,
  o: { source?: string; id?: string; time?: string; amount?: number; runs?: number; at?: string } = {},
): DeliveredEvent {
  const event = {
    id: o.id ?? 'evt-1',
    type: 'refund.requested',
    tenant,
    source: o.source ?? 'helpdesk',
    subject: 'T-1',
    payload: { amount: o.amount ?? 30 },
    time: o.time ?? '2026-12-01T10:00:00Z',
  };
  return {
    tenant,
    source: event.source,
    eventId: event.id,
    ...eventContent(event),
    runs: Array.from({ length: o.runs ?? 1 }, (_, i) => ({
      workflowId: `wf-${i}`,
      version: 1,
      runId: hashOf({ event, i }),
      ...(i === 0 ? { split: { bucket: 42, percent: 10, from: 1, to: 2, stickyBy: 'subject' } } : {}),
    })),
    deliveredAt: o.at ?? '2026-12-01T10:00:01.000Z',
  };
}

function disagreement(d: DeliveredEvent, o: Partial<TriggerDisagreement> = {}): TriggerDisagreement {
  return {
    tenant: d.tenant,
    workflowId: 'refund',
    source: d.source,
    eventId: d.eventId,
    from: 1,
    to: 2,
    startedAt: ROLLOUT,
    chosen: 2,
    taken: 1,
    at: d.deliveredAt,
    ...o,
  };
}

export function eventIndexContract(current: () => Store, another?: () => Store): void {
  describe('the event index', () => {
    test('the first claim of a name is first; every later one gets the first delivery back, whatever it carries', async () => {
      const store = current();
      const tenant = unique('acme');
      const first = delivery(tenant, { runs: 2 });
      assert.equal(await store.events.getDeliveredEvent(tenant, 'helpdesk', 'evt-1'), undefined);
      assert.deepEqual(await store.events.claimEvent(first), { state: 'first' });
      assert.deepEqual(await store.events.getDeliveredEvent(tenant, 'helpdesk', 'evt-1'), first);
      // The same content, and a restamped one: both get the first back, and change nothing.
      assert.deepEqual(await store.events.claimEvent({ ...first, deliveredAt: '2026-12-02T00:00:00.000Z' }), {
        state: 'again',
        first,
      });
      const restamped = delivery(tenant, { time: '2026-12-01T10:05:00Z', runs: 0 });
      assert.notEqual(restamped.eventHash, first.eventHash);
      assert.deepEqual(await store.events.claimEvent(restamped), { state: 'again', first });
      assert.deepEqual(await store.events.getDeliveredEvent(tenant, 'helpdesk', 'evt-1'), first);
    });

    test('the latest delivered event of a source is the one with the latest time, in its tenant only', async () => {
      const store = current();
      const [tenant, other] = [unique('sched'), unique('sched')];
      const src = 'schedule:daily';
      assert.equal(await store.events.latestDeliveredEvent(tenant, src), undefined);
      const t = (h: number) => `2026-12-0${h}T09:00:00.000Z`;
      for (const [id, h] of [
        ['f-b', 3],
        ['f-c', 1],
        ['f-a', 2],
      ] as const)
        await store.events.claimEvent(delivery(tenant, { source: src, id, time: t(h), runs: 0 }));
      await store.events.claimEvent(
        delivery(tenant, { source: 'schedule:other', id: 'f-z', time: t(9), runs: 0 }),
      );
      await store.events.claimEvent(delivery(other, { source: src, id: 'f-y', time: t(8), runs: 0 }));
      const latest = await store.events.latestDeliveredEvent(tenant, src);
      assert.equal(latest?.eventId, 'f-b');
      assert.equal(latest?.time, t(3));
    });

    test('an event that started nothing is named too: its empty list of runs is the answer again', async () => {
      const store = current();
      const tenant = unique('acme');
      const none = delivery(tenant, { runs: 0 });
      assert.deepEqual(await store.events.claimEvent(none), { state: 'first' });
      const again = await store.events.claimEvent(delivery(tenant, { runs: 1 }));
      assert.equal(again.state, 'again');
      assert.deepEqual(again.state === 'again' && again.first.runs, []);
    });

    test('the name is the tenant, the source and the id: any other of them names another event', async () => {
      const store = current();
      const [a, b] = [unique('a'), unique('b')];
      assert.equal((await store.events.claimEvent(delivery(a))).state, 'first');
      assert.equal((await store.events.claimEvent(delivery(b))).state, 'first', 'another tenant');
      assert.equal(
        (await store.events.claimEvent(delivery(a, { source: 'shop' }))).state,
        'first',
        'another source',
      );
      assert.equal(
        (await store.events.claimEvent(delivery(a, { id: 'evt-2' }))).state,
        'first',
        'another id',
      );
      assert.equal(await store.events.getDeliveredEvent(b, 'shop', 'evt-1'), undefined);
      assert.equal((await store.events.getDeliveredEvent(b, 'helpdesk', 'evt-1'))?.tenant, b);
    });

    test('concurrent claims of one name, on one handle and on two: exactly one is first, all others get its delivery', async () => {
      const stores = another ? [current(), another()] : [current()];
      for (const withDisagreements of [false, true]) {
        const tenant = unique('race');
        const claims = Array.from({ length: 16 }, (_, i) => {
          const d = delivery(tenant, { amount: i, runs: 1 + (i % 3) });
          return {
            d,
            p: stores[i % stores.length]!.events.claimEvent(d, withDisagreements ? [disagreement(d)] : []),
          };
        });
        const results = await Promise.all(claims.map((c) => c.p));
        const winners = results.flatMap((r, i) => (r.state === 'first' ? [claims[i]!.d] : []));
        assert.equal(winners.length, 1, `one first claim (disagreements: ${withDisagreements})`);
        for (const r of results) if (r.state === 'again') assert.deepEqual(r.first, winners[0]);
        assert.deepEqual(await current().events.getDeliveredEvent(tenant, 'helpdesk', 'evt-1'), winners[0]);
        const counted = await current().events.countTriggerDisagreements(tenant, 'refund', {
          to: 2,
          startedAt: ROLLOUT,
        });
        assert.deepEqual(counted, withDisagreements ? [{ chosen: 2, taken: 1, count: 1 }] : []);
      }
    });

    test('trigger disagreements are written with a first claim only, and counted per rollout by chosen and taken version', async () => {
      const store = current();
      const tenant = unique('acme');
      const at = (m: number) => `2026-12-01T10:${String(m).padStart(2, '0')}:00.000Z`;
      for (let i = 0; i < 5; i++) {
        const d = delivery(tenant, { id: `e${i}`, at: at(i) });
        const x = i < 3 ? { chosen: 2, taken: 1 } : { chosen: 1, taken: null };
        assert.equal((await store.events.claimEvent(d, [disagreement(d, x)])).state, 'first');
      }
      // A later rollout to v2 (another start), one to v3, and another workflow: counted apart.
      const later = delivery(tenant, { id: 'e7', at: at(7) });
      await store.events.claimEvent(later, [disagreement(later, { startedAt: at(6) })]);
      const other = delivery(tenant, { id: 'e9', at: at(9) });
      await store.events.claimEvent(other, [
        disagreement(other, { to: 3, chosen: 3, taken: 1 }),
        disagreement(other, { workflowId: 'close' }),
      ]);
      // A redelivery's disagreement is not written: the name was claimed.
      const again = delivery(tenant, { id: 'e0', at: at(30) });
      assert.equal((await store.events.claimEvent(again, [disagreement(again)])).state, 'again');
      const count = (to: number, startedAt: string, workflowId = 'refund', t = tenant) =>
        store.events.countTriggerDisagreements(t, workflowId, { to, startedAt });
      assert.deepEqual(await count(2, ROLLOUT), [
        { chosen: 1, taken: null, count: 2 },
        { chosen: 2, taken: 1, count: 3 },
      ]);
      assert.deepEqual(await count(2, at(6)), [{ chosen: 2, taken: 1, count: 1 }]);
      assert.deepEqual(await count(3, ROLLOUT), [{ chosen: 3, taken: 1, count: 1 }]);
      assert.deepEqual(await count(2, ROLLOUT, 'close'), [{ chosen: 2, taken: 1, count: 1 }]);
      assert.deepEqual(await count(2, ROLLOUT, 'refund', unique('other')), []);
    });

    test('a conflicting content is kept once and counted; conflicts list newest first, narrowed and per tenant', async () => {
      const store = current();
      const tenant = unique('acme');
      const first = delivery(tenant);
      const c = (o: { id?: string; source?: string; hash?: string; at: string }) => ({
        tenant,
        source: o.source ?? 'helpdesk',
        eventId: o.id ?? 'evt-1',
        firstHash: first.eventHash,
        eventHash: o.hash ?? hashOf('restamped'),
        fields: ['time' as const],
        at: o.at,
      });
      const one = await store.events.recordEventConflict(c({ at: '2026-12-01T10:01:00.000Z' }));
      assert.deepEqual(one, {
        tenant,
        source: 'helpdesk',
        eventId: 'evt-1',
        firstHash: first.eventHash,
        eventHash: hashOf('restamped'),
        fields: ['time'],
        firstAt: '2026-12-01T10:01:00.000Z',
        lastAt: '2026-12-01T10:01:00.000Z',
        count: 1,
      });
      const twice = await store.events.recordEventConflict(c({ at: '2026-12-01T10:03:00.000Z' }));
      assert.deepEqual(
        [twice.count, twice.firstAt, twice.lastAt],
        [2, '2026-12-01T10:01:00.000Z', '2026-12-01T10:03:00.000Z'],
      );
      // A late writer with an older time keeps the latest.
      const late = await store.events.recordEventConflict(c({ at: '2026-12-01T10:02:00.000Z' }));
      assert.deepEqual([late.count, late.lastAt], [3, '2026-12-01T10:03:00.000Z']);
      await store.events.recordEventConflict(
        c({ hash: hashOf('other payload'), at: '2026-12-01T10:04:00.000Z' }),
      );
      await store.events.recordEventConflict(c({ id: 'evt-2', at: '2026-12-01T10:05:00.000Z' }));
      await store.events.recordEventConflict(c({ source: 'shop', at: '2026-12-01T10:06:00.000Z' }));
      const all = await store.events.listEventConflicts(tenant);
      assert.deepEqual(
        all.map((x) => [x.source, x.eventId, x.lastAt]),
        [
          ['shop', 'evt-1', '2026-12-01T10:06:00.000Z'],
          ['helpdesk', 'evt-2', '2026-12-01T10:05:00.000Z'],
          ['helpdesk', 'evt-1', '2026-12-01T10:04:00.000Z'],
          ['helpdesk', 'evt-1', '2026-12-01T10:03:00.000Z'],
        ],
      );
      assert.equal(
        (await store.events.listEventConflicts(tenant, { source: 'helpdesk', eventId: 'evt-1' })).length,
        2,
      );
      assert.equal((await store.events.listEventConflicts(tenant, { source: 'shop' })).length, 1);
      assert.equal((await store.events.listEventConflicts(tenant, { limit: 1 })).length, 1);
      assert.deepEqual(await store.events.listEventConflicts(unique('other')), []);
    });
  });
}
