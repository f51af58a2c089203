/**
 * The contract of the unrouted inbox (ports/unrouted-inbox.ts) and the event index's reroute,
 * bound by every adapter through runStoreContract: an entry is kept once per id and counted; the
 * limits drop the tenant's oldest entries (by age, by count) and say how many; the listing is the
 * tenant's, by state; of concurrent redelivery marks (one handle and two) exactly one wins; of
 * concurrent reroutes of an event that started nothing exactly one stores its runs; tenants never
 * see each other's entries.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { eventContent } from '../core/run/index.ts';
import type { NewUnrouted, Store } from '../ports/index.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;
const WIDE = { maxEntries: 10_000, keepAfter: '2000-01-01T00:00:00.000Z' };

function entry(tenant: string, n: number, o: Partial<NewUnrouted> = {}): NewUnrouted {
  return {
    tenant,
    id: `sha256:${n.toString(16).padStart(64, '0')}`,
    source: 'helpdesk',
    eventId: `evt-${n}`,
    type: 'refund.requested',
    subject: `T-${n}`,
    reason: 'no_route',
    detail: 'no LIVE version takes it',
    content: { id: `evt-${n}`, payload: { amount: n } },
    at: `2026-12-01T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
    ...o,
  };
}

export function unroutedInboxContract(current: () => Store, another?: () => Store): void {
  describe('the unrouted inbox', () => {
    test('an entry is kept with its reason and content, once per id, counted', async () => {
      const store = current();
      const tenant = unique('acme');
      const e = entry(tenant, 1);
      const k = await store.unrouted.keepUnrouted(e, WIDE);
      assert.deepEqual(k.dropped, { age: 0, size: 0 });
      assert.equal(k.entry.count, 1);
      assert.equal(k.entry.reason, 'no_route');
      assert.deepEqual(k.entry.content, e.content);
      assert.equal(k.entry.receivedAt, e.at);
      assert.equal(k.entry.redelivered, undefined);
      const again = await store.unrouted.keepUnrouted(
        { ...e, at: '2026-12-01T11:00:00.000Z', detail: 'x' },
        WIDE,
      );
      assert.equal(again.entry.count, 2);
      assert.equal(again.entry.receivedAt, e.at);
      assert.equal(again.entry.lastAt, '2026-12-01T11:00:00.000Z');
      assert.equal(again.entry.detail, e.detail, 'the first content is kept');
      assert.deepEqual(await store.unrouted.getUnrouted(tenant, e.id), again.entry);
      const mf = await store.unrouted.keepUnrouted(
        entry(tenant, 2, { eventId: null, type: null, subject: null, reason: 'mapping_failed' }),
        WIDE,
      );
      assert.equal(mf.entry.eventId, null);
      assert.equal(mf.entry.reason, 'mapping_failed');
      assert.deepEqual(
        (await store.unrouted.listUnrouted(tenant)).map((x) => x.id),
        [entry(tenant, 2).id, e.id],
        'most recently received first',
      );
      assert.deepEqual(await store.unrouted.listUnrouted(unique('other')), [], 'another tenant sees none');
      assert.equal(await store.unrouted.getUnrouted(unique('other'), e.id), undefined);
    });

    test('the limits drop the oldest entries first, by age and by count, and say how many', async () => {
      const store = current();
      const tenant = unique('acme');
      const bystander = unique('bystander');
      await store.unrouted.keepUnrouted(entry(bystander, 0), WIDE);
      const limits = { maxEntries: 3, keepAfter: '2026-12-01T10:00:02.000Z' };
      const dropped = { age: 0, size: 0 };
      for (let n = 0; n < 8; n++) {
        const k = await store.unrouted.keepUnrouted(entry(tenant, n), limits);
        dropped.age += k.dropped.age;
        dropped.size += k.dropped.size;
      }
      // 0 and 1 are older than keepAfter; of 2..7 the three newest stay.
      assert.deepEqual(dropped, { age: 2, size: 3 });
      assert.deepEqual(
        (await store.unrouted.listUnrouted(tenant)).map((x) => x.eventId),
        ['evt-7', 'evt-6', 'evt-5'],
      );
      assert.equal(
        (await store.unrouted.listUnrouted(bystander)).length,
        1,
        "another tenant's inbox is untouched",
      );
    });

    test('a redelivery mark takes a waiting entry once: of concurrent marks exactly one wins', async () => {
      const stores = another ? [current(), another()] : [current()];
      const tenant = unique('acme');
      const e = entry(tenant, 3);
      await current().unrouted.keepUnrouted(e, WIDE);
      const marks = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          stores[i % stores.length]!.unrouted.markRedelivered(
            tenant,
            e.id,
            [`run-${i}`],
            `2026-12-02T00:00:0${i}.000Z`,
          ),
        ),
      );
      const winners = new Set(marks.map((m) => JSON.stringify(m?.redelivered)));
      assert.equal(winners.size, 1, 'every mark answers the one that won');
      const got = await current().unrouted.getUnrouted(tenant, e.id);
      assert.deepEqual(got?.redelivered, marks[0]?.redelivered);
      assert.equal(got?.redelivered?.runs.length, 1);
      assert.deepEqual(await current().unrouted.listUnrouted(tenant), [], 'it left the inbox');
      assert.deepEqual(
        (await current().unrouted.listUnrouted(tenant, { state: 'redelivered' })).map((x) => x.id),
        [e.id],
      );
      assert.equal((await current().unrouted.listUnrouted(tenant, { state: 'all' })).length, 1);
      assert.equal(await current().unrouted.markRedelivered(tenant, 'sha256:none', ['r'], e.at), undefined);
    });

    test('a reroute stores runs only on an event that started none: of concurrent reroutes one wins', async () => {
      const stores = another ? [current(), another()] : [current()];
      const tenant = unique('acme');
      const event = {
        id: 'evt-r',
        type: 'refund.requested',
        tenant,
        source: 'helpdesk',
        subject: 'T-1',
        payload: { amount: 1 },
        time: '2026-12-01T10:00:00Z',
      };
      const base = {
        tenant,
        source: 'helpdesk',
        eventId: 'evt-r',
        ...eventContent(event),
        deliveredAt: event.time,
      };
      assert.equal(
        await current().events.rerouteEvent(tenant, 'helpdesk', 'evt-r', []),
        undefined,
        'never delivered',
      );
      await current().events.claimEvent({ ...base, runs: [] });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          stores[i % stores.length]!.events.rerouteEvent(tenant, 'helpdesk', 'evt-r', [
            { workflowId: 'refund', version: i + 1, runId: `run-${i}` },
          ]),
        ),
      );
      const stored = await current().events.getDeliveredEvent(tenant, 'helpdesk', 'evt-r');
      assert.equal(stored?.runs.length, 1);
      for (const r of results) assert.deepEqual(r?.runs, stored?.runs, 'every reroute answers the winner');
      // An event that names runs keeps them.
      const after = await current().events.rerouteEvent(tenant, 'helpdesk', 'evt-r', [
        { workflowId: 'other', version: 9, runId: 'run-x' },
      ]);
      assert.deepEqual(after?.runs, stored?.runs);
    });
  });
}
