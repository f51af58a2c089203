/**
 * How a rollout routes events, through the library on a real SQLite file: every event of one
 * subject (or of the rollout's `stickyBy` key) lands on one version under a 50/50 split, recorded
 * in the run's root; a stickiness key is validated strictly; when the candidate's trigger is
 * narrower the old version takes the event (never dropped), when it is wider the candidate takes
 * only its share, and each disagreement is counted in the rollout's status. An event the bucket
 * sends to the version whose trigger refuses it, while the other's takes it, is kept in the unrouted
 * inbox as rollout_untaken (workflow and versions named), and a redelivery says why it stays.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isKeelError } from '../../core/errors.ts';
import { deploy, fakeSources, withStoreFile } from '../../testing/index.ts';
import { createKeel, type Keel } from '../keel.ts';

const spec = (version: number, status: string, triggers: string) => `id: refund
version: ${version}
status: ${status}
triggers: ${triggers}
steps:
  - { name: a, tool: core.identity, args: { v: ${version}, amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
const REQUESTED = '[{ event: refund.requested }]';
const dana = { by: 'dana', kind: 'human' as const };

let n = 0;
const event = (o: { subject?: string; amount?: number; type?: string; customer?: string } = {}) => ({
  id: `evt-${n++}`,
  type: o.type ?? 'refund.requested',
  source: 'helpdesk',
  ...(o.subject !== undefined ? { subject: o.subject } : {}),
  time: '2026-12-01T10:00:00Z',
  payload: { amount: o.amount ?? 20, ...(o.customer ? { customer: { id: o.customer } } : {}) },
});

/** v1 LIVE and v2 SHADOW with the given triggers, then v2 rolled out to `percent` (overridden gate). */
async function rolling(
  o: { v2?: string; percent?: number; stickyBy?: string },
  run: (keel: Keel) => Promise<void>,
): Promise<void> {
  await withStoreFile('keel-rollout-routing', async (path) => {
    const keel = createKeel({ store: path, sources: fakeSources() });
    try {
      await deploy(keel, 'acme', spec(1, 'LIVE', REQUESTED));
      await deploy(keel, 'acme', spec(2, 'SHADOW', o.v2 ?? REQUESTED));
      await keel.lifecycle.rollout.start('acme', 'refund', 2, dana, {
        percent: o.percent ?? 50,
        override: 'routing under test',
        minRuns: 1000,
        ...(o.stickyBy ? { stickyBy: o.stickyBy } : {}),
      });
      await run(keel);
    } finally {
      await keel.close();
    }
  });
}

describe('a rollout keeps a conversation on one version', () => {
  test('under a 50/50 split every event of one subject lands on one version, recorded in its root', async () => {
    await rolling({}, async (keel) => {
      const bySubject = new Map<string, Set<number>>();
      for (let round = 0; round < 4; round++)
        for (let s = 0; s < 30; s++) {
          const [run] = (await keel.events.emit('acme', event({ subject: `T-${s}`, amount: round }))).runs;
          const seen = bySubject.get(`T-${s}`) ?? new Set();
          seen.add(run!.version);
          bySubject.set(`T-${s}`, seen);
        }
      for (const [subject, versions] of bySubject)
        assert.equal(versions.size, 1, `${subject} saw v${[...versions].join(' and v')}`);
      const onV2 = [...bySubject.values()].filter((v) => v.has(2)).length;
      assert.ok(onV2 > 5 && onV2 < 25, `both versions get subjects (${onV2} of 30 on v2)`);
      const run = (await keel.runs.list('acme', { workflowId: 'refund', mode: 'live', limit: 1 })).runs[0]!;
      const root = (await keel.runs.entries('acme', run.runId))[0]!.payload as {
        split?: { stickyBy?: string };
      };
      assert.equal(root.split?.stickyBy, 'subject');
      const status = await keel.lifecycle.rollout.status('acme', 'refund');
      assert.equal(status.rollout?.stickyBy, 'subject', 'the default is recorded with the rollout');
    });
  });

  test('stickyBy payload.customer.id: every event of one customer lands on one version, whatever its subject', async () => {
    await rolling({ stickyBy: 'payload.customer.id' }, async (keel) => {
      const byCustomer = new Map<string, Set<number>>();
      for (let i = 0; i < 120; i++) {
        const customer = `C-${i % 24}`;
        const [run] = (await keel.events.emit('acme', event({ subject: `T-${i}`, customer }))).runs;
        byCustomer.set(customer, (byCustomer.get(customer) ?? new Set()).add(run!.version));
      }
      for (const [customer, versions] of byCustomer) assert.equal(versions.size, 1, customer);
      assert.equal(new Set([...byCustomer.values()].flatMap((v) => [...v])).size, 2, 'both versions used');
      // An event without the key is bucketed by its own (source, id), and says so.
      const [alone] = (await keel.events.emit('acme', event({ subject: 'T-x' }))).runs;
      const root = (await keel.runs.entries('acme', alone!.runId))[0]!.payload as {
        split?: { stickyBy?: string };
      };
      assert.equal(root.split?.stickyBy, 'event');
    });
  });

  test('a stickiness key is refused unless it is subject, event or payload.<field>..., naming stickyBy; nothing starts', async () => {
    await withStoreFile('keel-sticky-bad', async (path) => {
      const keel = createKeel({ store: path, sources: fakeSources() });
      try {
        await deploy(keel, 'acme', spec(1, 'LIVE', REQUESTED));
        await deploy(keel, 'acme', spec(2, 'SHADOW', REQUESTED));
        for (const bad of [
          'customer',
          'payload',
          'payload.',
          'payload.a b',
          'payload.1x',
          'payload.a.b.c.d.e.f.g.h.i',
          'time',
          '',
        ]) {
          await assert.rejects(
            keel.lifecycle.rollout.start('acme', 'refund', 2, dana, {
              percent: 50,
              override: 'x',
              stickyBy: bad,
            }),
            (e: unknown) => isKeelError(e) && e.code === 'usage' && e.details.field === 'stickyBy',
            bad,
          );
        }
        assert.equal((await keel.lifecycle.rollout.status('acme', 'refund')).rollout, undefined);
        assert.equal((await keel.workflows.get('acme', 'refund', 2))?.status, 'SHADOW');
      } finally {
        await keel.close();
      }
    });
  });
});

describe('a rollout whose versions’ triggers disagree', () => {
  test('a narrower candidate: the old version takes what only it takes, never dropped; counted in the status', async () => {
    await rolling({ v2: '[{ event: refund.requested, when: "payload.amount < 50" }]' }, async (keel) => {
      let chosenV2 = 0;
      for (let i = 0; i < 40; i++) {
        const e = event({ subject: `T-${i}`, amount: 80 });
        const r = await keel.events.emit('acme', e);
        assert.equal(r.runs.length, 1, `event ${e.id} started a run`);
        assert.equal(r.runs[0]!.version, 1, 'only v1 takes refunds of 80');
        const root = (await keel.runs.entries('acme', r.runs[0]!.runId))[0]!.payload as {
          split?: { chosen?: number };
        };
        if (root.split?.chosen === 2) chosenV2++;
      }
      assert.ok(chosenV2 > 5, `the bucket chose v2 for some (${chosenV2})`);
      // Events both take are still split.
      const small = new Set<number>();
      for (let i = 0; i < 30; i++)
        small.add(
          (await keel.events.emit('acme', event({ subject: `S-${i}`, amount: 10 }))).runs[0]!.version,
        );
      assert.deepEqual([...small].sort(), [1, 2]);
      const status = await keel.lifecycle.rollout.status('acme', 'refund');
      // Every event only v1 takes is counted: those the bucket gave v1 anyway, and those it chose v2 for.
      assert.deepEqual(status.triggerDisagreements, {
        count: 40,
        byChoice: [
          { chosen: 1, taken: 1, count: 40 - chosenV2 },
          { chosen: 2, taken: 1, count: chosenV2 },
        ],
      });
    });
  });

  test('a wider candidate takes only its share of what only it takes; the rest starts nothing, counted and named', async () => {
    const v2 = '[{ event: refund.requested }, { event: refund.disputed }]';
    await rolling({ v2, percent: 30 }, async (keel) => {
      const taken: number[] = [];
      let none = 0;
      const untaken: ReturnType<typeof event>[] = [];
      const kept: ({ reason: string; detail: string } | undefined)[] = [];
      for (let i = 0; i < 60; i++) {
        const e = event({ subject: `D-${i}`, type: 'refund.disputed' });
        const r = await keel.events.emit('acme', e);
        if (r.runs.length === 0) {
          none++;
          untaken.push(e);
          kept.push(r.unrouted);
        } else {
          taken.push(r.runs[0]!.version);
          assert.equal(r.unrouted, undefined, 'an event a run took is not kept');
        }
      }
      assert.ok(
        taken.every((v) => v === 2),
        'only v2 takes disputes',
      );
      assert.ok(taken.length > 5 && none > taken.length, `about 30% to v2 (${taken.length} of 60)`);
      // A redelivery of a dispute that started nothing answers that again.
      const again = await keel.events.emit('acme', untaken[0]!);
      assert.deepEqual([again.runs, again.redelivery], [[], true]);
      // Each is kept in the unrouted inbox as rollout_untaken, naming the workflow and the versions
      // (once: the redelivery above answered the first delivery and added nothing).
      const UNTAKEN = "workflow refund's rollout v1 -> v2 chose v1, whose trigger does not take it";
      assert.deepEqual(
        [...new Set(kept.map((u) => `${u?.reason}: ${u?.detail}`))],
        [`rollout_untaken: ${UNTAKEN}`],
      );
      const inbox = await keel.events.unrouted('acme', { limit: 500 });
      assert.deepEqual(inbox.map((u) => u.eventId).sort(), untaken.map((e) => e.id).sort());
      assert.ok(inbox.every((u) => u.reason === 'rollout_untaken' && u.detail === UNTAKEN && u.count === 1));
      // Redelivered while the rollout stands, the bucket chooses alike: it stays, with the reason.
      const entry = inbox.find((u) => u.eventId === untaken[0]!.id)!;
      const stays = await keel.events.redeliver('acme', entry.id);
      assert.deepEqual(
        [stays.state, stays.runs, stays.unrouted?.reason],
        ['unrouted', [], 'rollout_untaken'],
      );
      // Rolled back, no LIVE version takes disputes: it stays, now as no_route.
      const status = await keel.lifecycle.rollout.status('acme', 'refund');
      await keel.lifecycle.rollout.rollback('acme', 'refund', dana, 'disputes are not ready');
      const after = await keel.events.redeliver('acme', entry.id);
      assert.deepEqual([after.state, after.runs, after.unrouted?.reason], ['unrouted', [], 'no_route']);
      assert.deepEqual(status.triggerDisagreements, {
        count: 60,
        byChoice: [
          { chosen: 1, taken: null, count: none },
          { chosen: 2, taken: 2, count: taken.length },
        ],
      });
    });
  });
});
