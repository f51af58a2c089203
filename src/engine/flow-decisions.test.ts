/**
 * The decisions of the declared control flow, judged: for any event, exactly one branch of a
 * choice (or its else) runs and a skipped step never calls its tool (property, fast-check, on
 * real runs); verify's branch check (BranchCheck) refuses a recorded decision that does not follow
 * — another branch than the reads decide, a read the run never had, a skip whose condition holds —
 * with `branch_mismatch` and the seq.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FLOW_SPEC, flowTools } from '../../test/helpers/flow-spec.ts';
import { createKeel } from '../app/index.ts';
import type { Entry } from '../core/ledger/index.ts';
import { BranchCheck } from '../core/run/index.ts';
import { parseSpec } from '../core/spec/index.ts';
import { deploy, fakeSources } from '../testing/index.ts';

const SPEC = parseSpec(FLOW_SPEC, 'desk.yaml');

function check(entries: readonly Entry[]) {
  const b = new BranchCheck();
  for (const e of entries) b.apply(e.kind, e.payload, e.seq);
  return b.result(SPEC);
}

const edit = (entries: readonly Entry[], kind: string, f: (p: Record<string, unknown>) => void): Entry[] =>
  entries.map((e) => {
    if (e.kind !== kind) return e;
    const payload = structuredClone(e.payload) as Record<string, unknown>;
    f(payload);
    return { ...e, payload } as Entry;
  });

describe('control-flow decisions', () => {
  test('property: for any event exactly one branch (or else) runs, and a skipped step calls nothing', async () => {
    const tools = flowTools();
    const keel = createKeel({ store: ':memory:', tools: Object.values(tools), sources: fakeSources() });
    await deploy(keel, 't1', FLOW_SPEC);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -10, max: 200 }),
        fc.constantFrom('gold', 'basic', undefined),
        async (amount, tier) => {
          const calls = Object.fromEntries(Object.entries(tools).map(([k, t]) => [k, t.calls.length]));
          const payload = tier === undefined ? { refund_amount: amount } : { refund_amount: amount, tier };
          const [run] = (
            await keel.events.emit('t1', {
              id: `p${n++}`,
              type: 'refund.requested',
              subject: 's',
              time: '2026-01-01T00:00:00Z',
              payload,
            })
          ).runs;
          assert.equal(run!.status, 'completed');
          const entries = await keel.runs.entries('t1', run!.runId);
          const ran = entries
            .filter((e) => e.kind === 'step.completed')
            .map((e) => (e.payload as { step: string }).step);
          const expected = amount > 50 ? 0 : tier === 'gold' ? 1 : 'else';
          const chosen = entries.filter((e) => e.kind === 'branch.chosen');
          assert.equal(chosen.length, 1);
          assert.equal((chosen[0]!.payload as { branch: unknown }).branch, expected);
          const inBranch = { 0: ['ask_lead'], 1: ['gold_note', 'gold_refund'], else: ['plain_refund'] };
          for (const [b, steps] of Object.entries(inBranch))
            for (const s of steps) assert.equal(ran.includes(s), String(expected) === b, `${s} ran: ${ran}`);
          assert.equal(ran.includes('tag_review'), amount > 50);
          const delta = (k: string) => tools[k]!.calls.length - calls[k]!;
          // add_tag is called by tag_review (if it holds) and gold_note (branch 2) only.
          assert.equal(delta('add_tag'), (amount > 50 ? 1 : 0) + (expected === 1 ? 1 : 0));
          assert.equal(delta('ask_lead'), expected === 0 ? 1 : 0);
          assert.equal(delta('send_reply'), 1, 'the step after the choice runs whatever branch ran');
          assert.equal(check(entries), undefined, 'every recorded decision follows');
        },
      ),
      { numRuns: 40 },
    );
    await keel.close();
  });

  test('verify refuses a decision that does not follow from what it read (branch_mismatch)', async () => {
    const keel = createKeel({ store: ':memory:', tools: Object.values(flowTools()), sources: fakeSources() });
    await deploy(keel, 't1', FLOW_SPEC);
    const [run] = (
      await keel.events.emit('t1', {
        id: 'x',
        type: 'refund.requested',
        subject: 's',
        time: '2026-01-01T00:00:00Z',
        payload: { refund_amount: 30, tier: 'gold' },
      })
    ).runs;
    const entries = await keel.runs.entries('t1', run!.runId);
    assert.equal(check(entries), undefined);
    const seq = entries.find((e) => e.kind === 'branch.chosen')!.seq;
    const skipSeq = entries.find((e) => e.kind === 'step.skipped')!.seq;

    const otherBranch = check(
      edit(entries, 'branch.chosen', (p) => {
        p.branch = 'else';
        delete p.when;
      }),
    );
    assert.equal(otherBranch?.code, 'branch_mismatch');
    assert.equal(otherBranch?.seq, seq);
    assert.match(otherBranch!.message, /route records else, but what it read decides branch 2/);

    // A forger who changes the reads to fit the other branch is caught by the run's own values.
    const forgedReads = check(
      edit(entries, 'branch.chosen', (p) => {
        p.branch = 'else';
        delete p.when;
        (p.reads as Record<string, unknown>)['steps.lookup.output.tier'] = 'basic';
      }),
    );
    assert.equal(forgedReads?.code, 'branch_mismatch');
    assert.match(
      forgedReads!.message,
      /says it read steps\.lookup\.output\.tier = "basic", but the run had "gold"/,
    );

    const droppedRead = check(
      edit(entries, 'branch.chosen', (p) => {
        delete (p.reads as Record<string, unknown>)['payload.refund_amount'];
      }),
    );
    assert.match(droppedRead!.message, /the reads lack payload\.refund_amount/);

    const badSkip = check(
      edit(entries, 'step.skipped', (p) => {
        p.reads = { 'payload.refund_amount': 30 };
        p.condition = 'payload.refund_amount > 10';
      }),
    );
    assert.equal(badSkip?.seq, skipSeq);
    assert.match(badSkip!.message, /tag_review's if is "payload.refund_amount > 50"/);
    await keel.close();
  });
});
