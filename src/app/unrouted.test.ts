/**
 * Events nobody takes are kept, not lost (issue 29 §2; docs/events.md), through the library on both
 * stores: an event no LIVE version takes is kept in its tenant's unrouted inbox with the reason and
 * counted; redelivering it before a workflow takes it changes nothing; once one does, the
 * redelivery starts the run under the event's `(source, id)` — the event's runs become that run,
 * a plain redelivery of the event answers it, the entry leaves the inbox marked with the run —
 * and concurrent redeliveries start one run; the inbox's size limit drops the oldest, counted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bothStores } from '../../test/helpers/both-stores.ts';
import type { Store } from '../ports/index.ts';
import { deploy, fakeSources, isCode, withStoreFile } from '../testing/index.ts';
import { createKeel, type Keel } from './keel.ts';

const SPEC = `id: refund
version: 1
status: LIVE
triggers: [{ event: refund.requested }]
steps:
  - { name: a, tool: core.identity, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const refund = (id = 'evt-1', amount = 30) => ({
  id,
  type: 'refund.requested',
  source: 'helpdesk',
  subject: 'T-1',
  time: '2026-12-01T10:00:00Z',
  payload: { amount },
});

const BACKENDS = bothStores('keel_test_unrouted');

let tenants = 0;

for (const backend of BACKENDS)
  describe(`the unrouted inbox, on ${backend.name}`, () => {
    let keel: Keel;
    let small: Keel;
    let done: () => void = () => {};
    let closed: Promise<void> = Promise.resolve();
    before(async () => {
      let store: Store | string;
      if (backend.store) store = await backend.store();
      else
        store = await new Promise<string>((resolve) => {
          closed = withStoreFile('keel-unrouted', async (path) => {
            resolve(path);
            await new Promise<void>((r) => {
              done = r;
            });
          });
        });
      keel = createKeel({ store, sources: fakeSources(), metrics: true });
      small = createKeel({
        store: keel.store,
        sources: fakeSources(),
        metrics: true,
        unrouted: { maxEntries: 2 },
      });
    });
    after(async () => {
      await keel.close();
      done();
      await closed;
      await backend.cleanup?.();
    });

    const tenant = () => `acme-${process.pid}-${tenants++}`;

    test('an event nobody takes is kept with the reason and counted; redelivered once a workflow takes it, it starts that run', async () => {
      const t = tenant();
      const first = await keel.events.emit(t, refund());
      assert.deepEqual(first.runs, []);
      assert.equal(first.unrouted?.reason, 'no_route');
      const [entry, ...rest] = await keel.events.unrouted(t);
      assert.equal(rest.length, 0);
      assert.equal(entry?.id, first.unrouted?.id);
      assert.equal(entry?.eventId, 'evt-1');
      assert.equal(entry?.source, 'helpdesk');
      assert.equal(entry?.type, 'refund.requested');
      assert.deepEqual((entry!.content as { payload: unknown }).payload, { amount: 30 });
      assert.ok((keel.telemetry.metrics?.unroutedKept.get({ reason: 'no_route' }) ?? 0) >= 1);
      assert.deepEqual(await keel.events.unrouted(`${t}-other`), [], 'another tenant sees none');

      // Before any workflow takes it, a redelivery changes nothing.
      const early = await keel.events.redeliver(t, entry!.id);
      assert.equal(early.state, 'unrouted');
      assert.deepEqual(early.runs, []);
      assert.equal((await keel.events.unrouted(t)).length, 1);

      await deploy(keel, t, SPEC);
      const r = await keel.events.redeliver(t, entry!.id);
      assert.equal(r.state, 'redelivered');
      assert.equal(r.runs.length, 1);
      assert.equal(r.runs[0]?.created, true);
      assert.equal(r.runs[0]?.workflowId, 'refund');
      assert.deepEqual(await keel.events.unrouted(t), [], 'it left the inbox');
      const marked = await keel.events.unroutedEvent(t, entry!.id);
      assert.deepEqual(marked.redelivered?.runs, [r.runs[0]!.runId]);
      // The event's runs are now that run: a plain redelivery answers it and starts nothing.
      assert.deepEqual(
        (await keel.events.delivered(t, 'helpdesk', 'evt-1'))?.runs.map((x) => x.runId),
        [r.runs[0]!.runId],
      );
      const again = await keel.events.emit(t, refund());
      assert.equal(again.redelivery, true);
      assert.deepEqual(
        again.runs.map((x) => [x.runId, x.created]),
        [[r.runs[0]!.runId, false]],
      );
      const twice = await keel.events.redeliver(t, entry!.id);
      assert.deepEqual(
        twice.runs.map((x) => [x.runId, x.created]),
        [[r.runs[0]!.runId, false]],
      );
      assert.equal((await keel.store.runs.listRuns(t, {})).runs.length, 1);
    });

    test('concurrent redeliveries of one unrouted event start exactly one run', async () => {
      const t = tenant();
      const first = await keel.events.emit(t, refund('evt-race'));
      await deploy(keel, t, SPEC);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? small : keel).events.redeliver(t, first.unrouted!.id)),
      );
      const ids = new Set(results.flatMap((r) => r.runs.map((x) => x.runId)));
      assert.equal(ids.size, 1);
      assert.equal(results.filter((r) => r.runs.some((x) => x.created)).length, 1);
      assert.equal((await keel.store.runs.listRuns(t, {})).runs.length, 1);
    });

    test('the size limit drops the oldest entries, counted in the metrics, never silently', async () => {
      const t = tenant();
      for (const n of [1, 2, 3]) await small.events.emit(t, refund(`evt-${n}`, n));
      assert.deepEqual((await small.events.unrouted(t)).map((e) => e.eventId).sort(), ['evt-2', 'evt-3']);
      assert.equal(small.telemetry.metrics?.unroutedDropped.get({ limit: 'size' }), 1);
      assert.match(
        (await small.telemetry.metrics?.render(Date.now())) ?? '',
        /keel_unrouted_dropped_total\{limit="size"\} 1/,
      );
    });

    test('an unknown entry is not_found; a bad listing is a usage error naming the field', async () => {
      await assert.rejects(keel.events.redeliver(tenant(), 'sha256:nothing'), isCode('not_found'));
      await assert.rejects(keel.events.unrouted(tenant(), { limit: 0 }), isCode('usage'));
    });
  });
