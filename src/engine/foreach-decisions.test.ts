/**
 * Bounded iteration judged: for any list up to max, exactly that many calls of each body step, in
 * item order, each with its own idempotency key; for any longer list, no call of the loop at all
 * (property, fast-check, on real runs). Verify's check refuses a recorded loop whose list is not
 * what its items template gives from the run's values, a count over max, and an iteration step
 * naming an item the loop never held (`branch_mismatch` with the seq). The step limit and the
 * spend cap count every iteration.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FOREACH_SPEC, foreachTools, lines } from '../../test/helpers/foreach-spec.ts';
import { createKeel } from '../app/index.ts';
import type { Entry } from '../core/ledger/index.ts';
import { BranchCheck } from '../core/run/index.ts';
import { parseSpec } from '../core/spec/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const SPEC = parseSpec(FOREACH_SPEC, 'refunds.yaml');

function check(entries: readonly Entry[], spec = SPEC) {
  const b = new BranchCheck();
  for (const e of entries) b.apply(e.kind, e.payload, e.seq);
  return b.result(spec);
}

const edit = (entries: readonly Entry[], kind: string, f: (p: Record<string, unknown>) => void): Entry[] =>
  entries.map((e) => {
    if (e.kind !== kind) return e;
    const payload = structuredClone(e.payload) as Record<string, unknown>;
    f(payload);
    return { ...e, payload } as Entry;
  });

const event = (id: string, payload: Record<string, unknown>) => ({
  id,
  type: 'refund.requested',
  subject: 's',
  time: '2026-01-01T00:00:00Z',
  payload,
});

describe('forEach decisions', () => {
  test('property: n ≤ max items make exactly n calls per body step, in order, own keys; n > max makes none', async () => {
    const tools = foreachTools();
    const keel = createKeel({ store: ':memory:', tools: Object.values(tools), sources: fakeSources() });
    await deploy(keel, 't1', FOREACH_SPEC);
    let k = 0;
    const keys = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ sku: fc.string({ maxLength: 6 }), amount: fc.integer({ min: 0, max: 10_000 }) }),
          {
            maxLength: 6,
          },
        ),
        async (items) => {
          const before = tools.issue_refund!.calls.length;
          const notes = tools.add_note!.calls.length;
          const [run] = (await keel.events.emit('t1', event(`p${k++}`, { lines: items }))).runs;
          const made = tools.issue_refund!.calls.slice(before);
          if (items.length > 3) {
            assert.equal(run!.status, 'failed');
            assert.equal(made.length, 0, 'nothing of the loop is called past the refusal');
            assert.equal(tools.add_note!.calls.length, notes);
            return;
          }
          assert.equal(run!.status, 'completed');
          assert.deepEqual(
            made.map((c) => c.args),
            items.map((l) => ({ amount: l.amount, sku: l.sku })),
          );
          assert.equal(tools.add_note!.calls.length - notes, items.length);
          for (const c of made) {
            assert.ok(!keys.has(c.ctx.idempotencyKey), 'every call has its own idempotency key');
            keys.add(c.ctx.idempotencyKey);
          }
          const entries = await keel.runs.entries('t1', run!.runId);
          assert.equal(check(entries), undefined);
        },
      ),
      { numRuns: 40 },
    );
    await keel.close();
  });

  test('verify refuses a recorded list the run did not give, a count over max, an item never held', async () => {
    const tools = foreachTools();
    const keel = createKeel({ store: ':memory:', tools: Object.values(tools), sources: fakeSources() });
    await deploy(keel, 't1', FOREACH_SPEC);
    const [run] = (await keel.events.emit('t1', event('v1', { lines: lines(2) }))).runs;
    const entries = await keel.runs.entries('t1', run!.runId);
    assert.equal(check(entries), undefined);
    const seq = entries.find((e) => e.kind === 'foreach.started')!.seq;

    const forged = check(
      edit(entries, 'foreach.started', (p) => {
        p.items = [{ sku: 'zz', amount: 1 }, lines(2)[1]];
      }),
    );
    assert.equal(forged?.code, 'branch_mismatch');
    assert.equal(forged?.seq, seq);
    assert.match(forged!.message, /refund_lines records 2 items, but \{\{ event\.payload\.lines \}\} gives/);
    // An iteration step of an item the (forged) loop never held is caught where it is allowed.
    const shorter = check(
      edit(entries, 'foreach.started', (p) => {
        p.items = lines(1);
        p.count = 1;
      }),
    );
    const allowed = entries.find(
      (e) => e.kind === 'step.allowed' && (e.payload as { step: string }).step === 'refund_lines[1].refund',
    )!;
    assert.equal(shorter?.seq, allowed.seq);
    assert.match(shorter!.message, /names refund_lines\[1\]\.refund, but loop refund_lines recorded 1 items/);

    const smaller = parseSpec(
      FOREACH_SPEC.replace('max: 3', 'max: 1').replace('maxSteps: 8', 'maxSteps: 4'),
      'x.yaml',
    );
    const over = check(entries, smaller);
    assert.equal(over?.seq, seq);
    assert.match(over!.message, /records 2 items, more than its max of 1/);
    await keel.close();
  });

  test('the spend cap counts every iteration: the third refund is refused, nothing after it called', async () => {
    const tools: Record<string, ReturnType<typeof spyTool>> = {
      ...foreachTools(),
      issue_refund: spyTool('issue_refund', { cost: { fixedUsd: 1 } }),
    };
    const keel = createKeel({ store: ':memory:', tools: Object.values(tools), sources: fakeSources() });
    await deploy(keel, 't1', FOREACH_SPEC.replace('maxCostUsd: 0', 'maxCostUsd: 2'));
    const [run] = (await keel.events.emit('t1', event('c1', { lines: lines(3) }))).runs;
    assert.equal(tools.issue_refund!.calls.length, 2);
    const entries = await keel.runs.entries('t1', run!.runId);
    const refused = entries.find((e) => e.kind === 'step.refused')!;
    assert.equal((refused.payload as { step: string }).step, 'refund_lines[2].refund');
    assert.notEqual(run!.status, 'completed');
    assert.equal(tools.send_reply!.calls.length, 0);
    await keel.close();
  });
});
