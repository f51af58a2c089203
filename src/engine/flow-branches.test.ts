/**
 * Conditions and choices walked on both stores (in-memory SQLite, and a scratch PostgreSQL schema
 * of KEEL_TEST_DATABASE_URL): a false `if:` writes `step.skipped` and its tool is never called; a
 * choice writes `branch.chosen` and only the chosen branch's steps run, the step after the choice
 * running whatever branch ran; replay regenerates every entry identically calling nothing; a
 * replay fork from inside a branch finishes the same way; verify passes, and `keel history` says
 * each decision in plain words.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { bothStores } from '../../test/helpers/both-stores.ts';
import { FLOW_SPEC, flowTools } from '../../test/helpers/flow-spec.ts';
import { createKeel, type Keel } from '../app/index.ts';
import { deploy, fakeSources, type SpyTool } from '../testing/index.ts';

const event = (id: string, payload: Record<string, unknown>) => ({
  id,
  type: 'refund.requested',
  subject: `order-${id}`,
  time: '2026-01-01T00:00:00Z',
  payload,
});

const BACKENDS = bothStores('keel_test_flow');

const kinds = async (keel: Keel, runId: string) =>
  (await keel.runs.entries('t1', runId)).map((e) =>
    e.kind === 'branch.chosen' || e.kind === 'step.skipped' || e.kind === 'step.completed'
      ? `${e.kind}:${(e.payload as { step: string }).step}${e.kind === 'branch.chosen' ? `=${(e.payload as { branch: unknown }).branch}` : ''}`
      : e.kind,
  );

for (const backend of BACKENDS) {
  describe(`conditions and choices on ${backend.name}`, () => {
    let keel: Keel;
    let tools: Record<string, SpyTool>;
    const open = async () => {
      tools = flowTools();
      keel = createKeel({
        store: backend.store ? await backend.store() : ':memory:',
        tools: Object.values(tools),
        sources: fakeSources(),
      });
      await deploy(keel, 't1', FLOW_SPEC);
    };
    after(async () => {
      await keel?.close();
      await backend.cleanup?.();
    });

    test('a small refund skips the tag, takes else, then replies; replay is identical and calls nothing', async () => {
      await open();
      const [run] = (await keel.events.emit('t1', event('e1', { refund_amount: 30 }))).runs;
      assert.equal(run!.status, 'completed');
      const ks = await kinds(keel, run!.runId);
      assert.deepEqual(
        ks.filter((k) => /^(branch|step\.(skipped|completed))/.test(k)),
        [
          'step.completed:lookup',
          'step.skipped:tag_review',
          'branch.chosen:route=else',
          'step.completed:plain_refund',
          'step.completed:reply',
        ],
      );
      assert.equal(tools.add_tag!.calls.length, 0, 'a skipped step never calls its tool');
      assert.equal(tools.ask_lead!.calls.length, 0, 'a branch not taken never runs');
      assert.equal(tools.refund!.calls.length, 1);
      const entries = await keel.runs.entries('t1', run!.runId);
      const skipped = entries.find((e) => e.kind === 'step.skipped')!;
      assert.deepEqual(skipped.payload, {
        step: 'tag_review',
        condition: 'payload.refund_amount > 50',
        value: false,
        reads: { 'payload.refund_amount': 30 },
      });
      const chosen = entries.find((e) => e.kind === 'branch.chosen')!;
      assert.deepEqual(chosen.payload, {
        step: 'route',
        branch: 'else',
        reads: { 'payload.refund_amount': 30, 'steps.lookup.output.tier': 'basic' },
      });
      const before = Object.values(tools).map((t) => t.calls.length);
      const r = await keel.runs.replay('t1', run!.runId);
      assert.deepEqual(r, { identical: true, runId: run!.runId, entries: entries.length });
      assert.deepEqual(
        Object.values(tools).map((t) => t.calls.length),
        before,
      );
      assert.deepEqual(await keel.runs.verify('t1', run!.runId), {
        ok: true,
        entries: entries.length,
        head: { seq: entries.length - 1, hash: entries.at(-1)!.hash },
      });
      const history = (await keel.runs.history('t1', run!.runId)).map((h) => h.text).join('\n');
      assert.match(history, /Skipped step tag_review: its condition payload\.refund_amount > 50 was false/);
      assert.match(history, /Step route took its else branch: no branch's condition held/);
    });

    test('a gold customer takes branch 2 (both its steps), never the first; a big refund takes branch 1', async () => {
      const [gold] = (await keel.events.emit('t1', event('e2', { refund_amount: 20, tier: 'gold' }))).runs;
      assert.equal(gold!.status, 'completed');
      assert.deepEqual(
        (await kinds(keel, gold!.runId)).filter(
          (k) => k.startsWith('step.completed') || k.startsWith('branch'),
        ),
        [
          'step.completed:lookup',
          'branch.chosen:route=1',
          'step.completed:gold_note',
          'step.completed:gold_refund',
          'step.completed:reply',
        ],
      );
      const [big] = (await keel.events.emit('t1', event('e3', { refund_amount: 80, tier: 'gold' }))).runs;
      assert.equal(big!.status, 'completed');
      assert.deepEqual(
        (await kinds(keel, big!.runId)).filter(
          (k) => k.startsWith('step.completed') || k.startsWith('branch'),
        ),
        [
          'step.completed:lookup',
          'step.completed:tag_review',
          'branch.chosen:route=0',
          'step.completed:ask_lead',
          'step.completed:reply',
        ],
      );
      // The first branch held, so the second's condition was never evaluated: only its reads.
      const chosen = (await keel.runs.entries('t1', big!.runId)).find((e) => e.kind === 'branch.chosen')!;
      assert.deepEqual(chosen.payload, {
        step: 'route',
        branch: 0,
        when: 'payload.refund_amount > 50',
        reads: { 'payload.refund_amount': 80 },
      });
    });

    test('a replay fork from inside a branch finishes as its source did', async () => {
      const [gold] = (await keel.events.emit('t1', event('e4', { refund_amount: 20, tier: 'gold' }))).runs;
      const entries = await keel.runs.entries('t1', gold!.runId);
      // Inside branch 2: after gold_note completed, before gold_refund was allowed.
      const at = entries.findIndex(
        (e) => e.kind === 'step.completed' && (e.payload as { step: string }).step === 'gold_note',
      );
      const fork = await keel.runs.fork('t1', gold!.runId, { fromSeq: at + 1, mode: 'replay' });
      assert.equal(fork.status, 'completed');
      const ks = await kinds(keel, fork.runId);
      assert.deepEqual(
        ks.filter((k) => k.startsWith('step.completed') || k.startsWith('branch')),
        [
          'step.completed:lookup',
          'branch.chosen:route=1',
          'step.completed:gold_note',
          'step.completed:gold_refund',
          'step.completed:reply',
        ],
      );
      assert.equal((await keel.runs.verify('t1', fork.runId)).ok, true);
      assert.equal((await keel.runs.replay('t1', fork.runId)).identical, true);
    });
  });
}
