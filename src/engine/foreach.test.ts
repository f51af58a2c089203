/**
 * Bounded iteration walked on both stores (in-memory SQLite, and a scratch PostgreSQL schema of
 * KEEL_TEST_DATABASE_URL): `foreach.started` records the list as resolved, each item's steps run in
 * order under their own names and idempotency keys, reading the item and their own iteration's
 * earlier steps; the loop's output is the list of each iteration's outputs; a list longer than
 * max fails the run before any of the loop's calls; an empty list runs nothing; replay regenerates
 * every entry calling nothing; a replay fork from inside an iteration finishes as its source did;
 * verify passes, and `keel history` says the loop in words.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { bothStores } from '../../test/helpers/both-stores.ts';
import { FOREACH_SPEC, foreachTools, lines } from '../../test/helpers/foreach-spec.ts';
import { createKeel, type Keel } from '../app/index.ts';
import { deploy, fakeSources, type SpyTool } from '../testing/index.ts';

const event = (id: string, payload: Record<string, unknown>) => ({
  id,
  type: 'refund.requested',
  subject: `order-${id}`,
  time: '2026-01-01T00:00:00Z',
  payload,
});

const BACKENDS = bothStores('keel_test_foreach');

const steps = async (keel: Keel, runId: string) =>
  (await keel.runs.entries('t1', runId))
    .filter((e) => e.kind === 'step.completed' || e.kind === 'foreach.started')
    .map((e) => `${e.kind === 'foreach.started' ? 'loop:' : ''}${(e.payload as { step: string }).step}`);

for (const backend of BACKENDS) {
  describe(`forEach on ${backend.name}`, () => {
    let keel: Keel;
    let tools: Record<string, SpyTool>;
    const open = async () => {
      tools = foreachTools();
      keel = createKeel({
        store: backend.store ? await backend.store() : ':memory:',
        tools: Object.values(tools),
        sources: fakeSources(),
      });
      await deploy(keel, 't1', FOREACH_SPEC);
    };
    after(async () => {
      await keel?.close();
      await backend.cleanup?.();
    });

    test('three lines: each item’s steps in order, own names and keys; the loop’s output is a list; replay identical', async () => {
      await open();
      const [run] = (await keel.events.emit('t1', event('e1', { lines: lines(3) }))).runs;
      assert.equal(run!.status, 'completed');
      assert.deepEqual(await steps(keel, run!.runId), [
        'lookup',
        'loop:refund_lines',
        'refund_lines[0].refund',
        'refund_lines[0].note',
        'refund_lines[1].refund',
        'refund_lines[1].note',
        'refund_lines[2].refund',
        'refund_lines[2].note',
        'reply',
      ]);
      const entries = await keel.runs.entries('t1', run!.runId);
      assert.deepEqual(entries.find((e) => e.kind === 'foreach.started')!.payload, {
        step: 'refund_lines',
        count: 3,
        items: lines(3),
      });
      const refunds = tools.issue_refund!.calls;
      assert.deepEqual(
        refunds.map((c) => c.args),
        lines(3).map((l) => ({ amount: l.amount, sku: l.sku })),
        'the item is read by its as: name, with its JSON type',
      );
      const keys = refunds.map((c) => c.ctx.idempotencyKey);
      assert.equal(new Set(keys).size, 3, 'each iteration’s call has its own idempotency key');
      // A body step reads its own iteration's earlier step by its plain name.
      assert.deepEqual(
        tools.add_note!.calls.map((c) => c.args),
        [0, 1, 2].map((i) => ({ text: `refunded s${i}`, refund: `r-s${i}` })),
      );
      // After the loop, its output: one object per item, each step's output by name.
      const reply = tools.send_reply!.calls[0]!.args.refunds as { refund: { id: string } }[];
      assert.equal(reply.length, 3);
      assert.deepEqual(
        reply.map((x) => x.refund.id),
        ['r-s0', 'r-s1', 'r-s2'],
      );
      const before = Object.values(tools).map((t) => t.calls.length);
      assert.deepEqual(await keel.runs.replay('t1', run!.runId), {
        identical: true,
        runId: run!.runId,
        entries: entries.length,
      });
      assert.deepEqual(
        Object.values(tools).map((t) => t.calls.length),
        before,
        'replay calls nothing',
      );
      assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
      const history = (await keel.runs.history('t1', run!.runId)).map((h) => h.text).join('\n');
      assert.match(history, /Step refund_lines loops over 3 items/);
    });

    test('more lines than max: the run fails before any of the loop’s calls; an empty list runs none', async () => {
      const [long] = (await keel.events.emit('t1', event('e2', { lines: lines(4) }))).runs;
      assert.equal(long!.status, 'failed');
      assert.deepEqual(await steps(keel, long!.runId), ['lookup']);
      const finished = (await keel.runs.entries('t1', long!.runId)).at(-1)!;
      assert.match(
        (finished.payload as { reason: string }).reason,
        /step refund_lines: forEach\.items holds 4 items, more than its max of 3; nothing of the loop ran/,
      );
      assert.equal(tools.issue_refund!.calls.length, 3, 'only the first run’s three');
      assert.equal((await keel.runs.verify('t1', long!.runId)).ok, true);

      const [none] = (await keel.events.emit('t1', event('e3', { lines: [] }))).runs;
      assert.equal(none!.status, 'completed');
      assert.deepEqual(await steps(keel, none!.runId), ['lookup', 'loop:refund_lines', 'reply']);
      assert.deepEqual(tools.send_reply!.calls.at(-1)!.args, { refunds: [] });

      const [notList] = (await keel.events.emit('t1', event('e4', { lines: 'x' }))).runs;
      assert.equal(notList!.status, 'failed');
      assert.match(
        ((await keel.runs.entries('t1', notList!.runId)).at(-1)!.payload as { reason: string }).reason,
        /forEach\.items: expected a list, got "x"/,
      );
    });

    test('a replay fork from inside an iteration finishes as its source did', async () => {
      const [run] = (await keel.events.emit('t1', event('e5', { lines: lines(2) }))).runs;
      const entries = await keel.runs.entries('t1', run!.runId);
      const at = entries.findIndex(
        (e) =>
          e.kind === 'step.completed' && (e.payload as { step: string }).step === 'refund_lines[0].refund',
      );
      const calls = tools.issue_refund!.calls.length;
      const fork = await keel.runs.fork('t1', run!.runId, { fromSeq: at + 1, mode: 'replay' });
      assert.equal(fork.status, 'completed');
      assert.deepEqual(await steps(keel, fork.runId), await steps(keel, run!.runId));
      assert.equal(tools.issue_refund!.calls.length, calls, 'a replay fork calls nothing');
      assert.equal((await keel.runs.verify('t1', fork.runId)).ok, true);
      assert.equal((await keel.runs.replay('t1', fork.runId)).identical, true);
    });
  });
}
