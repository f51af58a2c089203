/**
 * One event, one run (DESIGN invariant 15), through the library on both stores: `(tenant, source,
 * id)` names an event. A redelivery with the same content answers the first delivery's runs
 * (flagged), one with other content — a restamped `time` included — is event_conflict, starts
 * nothing and is recorded; concurrent deliveries of one event make one set of runs; an event that
 * started nothing still answers so; an event without a source is named by its channel; a run a
 * source-less event started before the index is found again; and a run the first delivery chose
 * but never started (a crash between the claim and the start) is started by the redelivery, under
 * the same id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bothStores } from '../../test/helpers/both-stores.ts';
import { eventContent, parseEvent, runIdFor } from '../core/run/index.ts';
import { deploy, fakeSources, isCode, withStoreFile } from '../testing/index.ts';
import { createKeel, type Keel } from './keel.ts';

const SPEC = (id = 'refund', event = 'refund.requested') => `id: ${id}
version: 1
status: LIVE
triggers: [{ event: ${event} }]
steps:
  - { name: a, tool: core.identity, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const refund = (o: { id?: string; time?: string; amount?: number; source?: string } = {}) => ({
  id: o.id ?? 'evt-1',
  type: 'refund.requested',
  ...(o.source !== undefined ? { source: o.source } : { source: 'helpdesk' }),
  subject: 'T-1',
  time: o.time ?? '2026-12-01T10:00:00Z',
  payload: { amount: o.amount ?? 30 },
});

const BACKENDS = bothStores('keel_test_events');

let tenants = 0;

for (const backend of BACKENDS)
  describe(`one event, one run, on ${backend.name}`, () => {
    let keel: Keel;
    let done: () => void = () => {};
    let closed: Promise<void> = Promise.resolve();
    before(async () => {
      if (backend.store) keel = createKeel({ store: await backend.store(), sources: fakeSources() });
      else {
        const ready = new Promise<string>((resolve) => {
          closed = withStoreFile('keel-events', async (path) => {
            resolve(path);
            await new Promise<void>((r) => {
              done = r;
            });
          });
        });
        keel = createKeel({ store: await ready, sources: fakeSources() });
      }
    });
    after(async () => {
      await keel.close();
      done();
      await closed;
      await backend.cleanup?.();
    });

    /** A tenant of its own per test, with the refund workflow LIVE. */
    async function tenant(): Promise<string> {
      const t = `acme-${process.pid}-${tenants++}`;
      await deploy(keel, t, SPEC());
      return t;
    }
    const liveRuns = async (t: string) => (await keel.runs.list(t, { mode: 'live', limit: 1000 })).runs;

    test('a redelivery with the same content answers the first runs, flagged; nothing runs twice', async () => {
      const t = await tenant();
      const first = await keel.events.emit(t, refund());
      assert.equal(first.runs.length, 1);
      assert.equal(first.runs[0]!.created, true);
      assert.equal(first.source, 'helpdesk');
      assert.equal(first.redelivery, undefined);
      for (let i = 0; i < 3; i++) {
        const again = await keel.events.emit(t, refund());
        assert.deepEqual(
          again.runs.map((r) => [r.runId, r.created]),
          [[first.runs[0]!.runId, false]],
        );
        assert.equal(again.redelivery, true);
        assert.equal(typeof again.firstDeliveredAt, 'string');
      }
      assert.equal((await liveRuns(t)).length, 1);
    });

    test('a restamped redelivery (new time) starts no run: event_conflict names the field and the first runs, and is recorded', async () => {
      const t = await tenant();
      const first = (await keel.events.emit(t, refund())).runs[0]!;
      for (let i = 1; i <= 20; i++) {
        const restamped = refund({ time: `2026-12-01T10:${String(i).padStart(2, '0')}:00Z` });
        await assert.rejects(keel.events.emit(t, restamped), (e: unknown) => {
          assert.ok(isCode('event_conflict')(e), String(e));
          const d = (e as { details: Record<string, unknown> }).details;
          assert.deepEqual(d.fields, ['time']);
          assert.deepEqual(d.runs, [first.runId]);
          assert.equal(d.source, 'helpdesk');
          assert.equal(d.eventId, 'evt-1');
          assert.match((e as Error).message, /time differs.*started nothing/);
          return true;
        });
      }
      // The same restamped content again is counted on its record; another payload is a record of its own.
      await assert.rejects(
        keel.events.emit(t, refund({ time: '2026-12-01T10:01:00Z' })),
        isCode('event_conflict'),
      );
      await assert.rejects(keel.events.emit(t, refund({ amount: 31 })), (e: unknown) => {
        assert.deepEqual((e as { details: { fields: unknown } }).details.fields, ['payload']);
        return true;
      });
      const runs = await liveRuns(t);
      assert.deepEqual(
        runs.map((r) => r.runId),
        [first.runId],
        'one run, whatever was redelivered',
      );
      const conflicts = await keel.events.conflicts(t);
      assert.equal(conflicts.length, 21);
      // The most recent first; the last two may share a millisecond, so the payload one is looked for.
      assert.deepEqual(
        conflicts.filter((c) => c.fields.includes('payload')).map((c) => c.fields),
        [['payload']],
      );
      assert.ok(conflicts.slice(0, 2).some((c) => c.fields.includes('payload')));
      const once = conflicts.find((c) => c.count === 2);
      assert.ok(once, 'the restamp delivered twice is one record, counted twice');
      assert.deepEqual(once.fields, ['time']);
      assert.equal(
        (await keel.events.conflicts(t, { source: 'helpdesk', eventId: 'evt-1', limit: 5 })).length,
        5,
      );
      assert.equal((await keel.events.conflicts(t, { eventId: 'evt-2' })).length, 0);
      await assert.rejects(keel.events.conflicts(t, { limit: 0 }), isCode('usage'));
      // Another tenant sees none of it, and its own evt-1 is another event.
      const other = await tenant();
      assert.deepEqual(await keel.events.conflicts(other), []);
      assert.equal((await keel.events.emit(other, refund({ amount: 31 }))).runs[0]!.created, true);
    });

    test('the same id from another source is another event', async () => {
      const t = await tenant();
      const a = await keel.events.emit(t, refund({ source: 'helpdesk' }));
      const b = await keel.events.emit(t, refund({ source: 'shop', amount: 99 }));
      assert.equal(b.runs[0]!.created, true);
      assert.notEqual(a.runs[0]!.runId, b.runs[0]!.runId);
    });

    test('concurrent deliveries of one event make one set of runs; of other contents, one wins and the rest conflict', async () => {
      const t = await tenant();
      await deploy(keel, t, SPEC('notify'));
      const same = await Promise.all(Array.from({ length: 8 }, () => keel.events.emit(t, refund())));
      const ids = new Set(same.flatMap((r) => r.runs.map((x) => x.runId)));
      assert.equal(ids.size, 2, 'one run for each of the two workflows');
      for (const r of same) assert.deepEqual(new Set(r.runs.map((x) => x.runId)), ids);
      assert.equal(same.flatMap((r) => r.runs).filter((x) => x.created).length, 2, 'each created once');
      assert.equal((await liveRuns(t)).length, 2);

      const raced = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => keel.events.emit(t, refund({ id: 'evt-race', amount: 100 + i }))),
      );
      const won = raced.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, 'one content wins the name');
      for (const r of raced)
        if (r.status === 'rejected') assert.ok(isCode('event_conflict')(r.reason), String(r.reason));
      assert.equal((await liveRuns(t)).length, 4, 'the winner’s two runs, no more');
    });

    test('an event no workflow takes is named too: a redelivery answers "no run", even once a workflow would take it', async () => {
      const t = await tenant();
      const none = await keel.events.emit(t, { ...refund(), type: 'ticket.closed' });
      assert.deepEqual(none.runs, []);
      await deploy(keel, t, SPEC('close', 'ticket.closed'));
      const again = await keel.events.emit(t, { ...refund(), type: 'ticket.closed' });
      assert.deepEqual(again.runs, []);
      assert.equal(again.redelivery, true);
      await assert.rejects(keel.events.emit(t, { ...refund(), type: 'ticket.reopened' }), (e: unknown) => {
        assert.deepEqual((e as { details: { fields: unknown } }).details.fields, ['type']);
        return true;
      });
      const fresh = await keel.events.emit(t, { ...refund({ id: 'evt-2' }), type: 'ticket.closed' });
      assert.equal(fresh.runs[0]?.created, true);
    });

    test('an event without a source is named by its channel: the library’s, or the one given', async () => {
      const t = await tenant();
      const { source: _, ...bare } = refund({ source: '' });
      const lib = await keel.events.emit(t, bare);
      assert.equal(lib.source, 'library');
      const root = (await keel.runs.entries(t, lib.runs[0]!.runId))[0]!.payload as {
        event: { source: string };
      };
      assert.equal(root.event.source, 'library', 'the run records the named event');
      assert.equal((await keel.events.delivered(t, 'library', 'evt-1'))?.runs[0]?.runId, lib.runs[0]!.runId);
      const viaCli = await keel.events.emit(t, bare, { channel: 'cli' });
      assert.equal(viaCli.source, 'cli');
      assert.equal(viaCli.runs[0]!.created, true, 'another channel, another event');
      await assert.rejects(keel.events.emit(t, bare, { channel: '' }), isCode('usage'));
    });

    test('a run a source-less event started before the event index is found again, not started twice', async () => {
      const t = await tenant();
      const { source: _, ...bare } = refund({ source: '' });
      // How an emit before this version named it: source "" (the event as given).
      const v = (await keel.workflows.get(t, 'refund'))!;
      const old = await keel.engine.start(v, parseEvent(bare, t));
      const again = await keel.events.emit(t, bare);
      assert.deepEqual(
        again.runs.map((r) => [r.runId, r.created]),
        [[old.run.runId, false]],
      );
      assert.equal((await liveRuns(t)).length, 1);
      // The index now names it: a redelivery answers that run too.
      assert.equal((await keel.events.emit(t, bare)).runs[0]!.runId, old.run.runId);
    });

    test('a run the first delivery chose but never started (it stopped after claiming) is started by the redelivery, under the same id', async () => {
      const t = await tenant();
      const event = { ...parseEvent(refund(), t) };
      const v = (await keel.workflows.get(t, 'refund'))!;
      const runId = runIdFor(t, 'refund', v.specHash, event);
      // The claim of a delivery that crashed before its run was started.
      await keel.store.events.claimEvent({
        tenant: t,
        source: event.source,
        eventId: event.id,
        ...eventContent(event),
        runs: [{ workflowId: 'refund', version: 1, runId }],
        deliveredAt: '2026-12-01T10:00:01.000Z',
      });
      assert.equal((await liveRuns(t)).length, 0);
      const again = await keel.events.emit(t, refund());
      assert.equal(again.redelivery, true);
      assert.deepEqual(
        again.runs.map((r) => [r.runId, r.created, r.status]),
        [[runId, true, 'completed']],
      );
      assert.equal((await keel.events.emit(t, refund())).runs[0]!.created, false);
      assert.equal((await liveRuns(t)).length, 1);
    });
  });
