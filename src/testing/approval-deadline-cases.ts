/**
 * Deadlines on approvals end to end, on any store (bound by the SQLite and PostgreSQL engine
 * tests): a step declaring `approval: { timeout, then }` whose proposal waits for a person gets a
 * deadline; a worker lets it expire (the step refused `approval_timeout`, the tool never called),
 * or reminds and escalates to an approver group (listed in the inbox as theirs), after which a
 * person's decision still counts; a person's decision racing the deadline: exactly one stands.
 * Every ledger verifies and replays byte for byte. Real time, short deadlines (a second or two).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy } from './deploy.ts';
import { spyTool } from './spy-tools.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = (entries: readonly Entry[]) => entries.map((e) => e.kind);

export function deadlineSpec(approval: string, id = 'refunds'): string {
  return `id: ${id}
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - name: refund
    tool: refund
    args: { amount: 90 }
    approval: ${approval}
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
}

async function until(what: string, f: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

const POLICY = 'default: allow\nrules:\n  - {id: ask, match: {tool: refund}, outcome: require_approval}\n';

export function approvalDeadlineCases(open: () => Promise<Store | string>): void {
  const keelOn = async () => {
    const refund = spyTool('refund');
    const keel = await createKeel({
      store: await open(),
      tools: [refund],
      policies: { acme: parsePolicy(POLICY, 'p.yaml') },
    });
    return { keel, refund };
  };
  const emit = async (keel: Keel, id: string) =>
    (await keel.events.emit('acme', { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })).runs[0]!;

  test('an approval nobody answers expires at its deadline: the step is refused approval_timeout, nothing called', async () => {
    const { keel, refund } = await keelOn();
    try {
      await deploy(keel, 'acme', deadlineSpec('{ timeout: 1s, then: deny }'));
      const run = await emit(keel, 'x1');
      assert.equal(run.status, 'waiting_approval');
      const entries = await keel.runs.entries('acme', run.runId);
      const req = entries.at(-1)!;
      const deadline = Date.parse(payloadOf(req, 'approval.requested').deadline ?? '');
      assert.equal(deadline, Date.parse(req.at) + 1000, 'the deadline is the request time plus the timeout');
      const [listed] = await keel.approvals.list('acme', run.runId);
      assert.equal(listed?.deadline, new Date(deadline).toISOString(), 'the inbox shows the deadline');
      assert.equal(await keel.store.queue.nextWakeAt(deadline - 1), deadline, 'a worker sleeps until it');
      const worker = keel.worker({ concurrency: 2, pollMs: 50 });
      await worker.start();
      try {
        await sleep(Math.max(0, deadline - Date.now() - 300));
        assert.equal(
          (await keel.runs.get('acme', run.runId)).status,
          'waiting_approval',
          'not before its time',
        );
        await until('expired', async () => (await keel.runs.get('acme', run.runId)).status === 'refused');
      } finally {
        await worker.stop();
      }
      const after = await keel.runs.entries('acme', run.runId);
      assert.deepEqual(kinds(after).slice(-4), [
        'approval.requested',
        'approval.expired',
        'step.refused',
        'run.finished',
      ]);
      const expired = payloadOf(after.at(-3)!, 'approval.expired');
      assert.equal(expired.reason, 'approval_timeout');
      assert.equal(Date.parse(expired.deadline), deadline);
      assert.ok(Date.parse(expired.at) >= deadline, 'never before the deadline');
      assert.equal(expired.at, after.at(-3)!.at);
      assert.equal(payloadOf(after.at(-2)!, 'step.refused').code, 'approval_timeout');
      assert.equal(refund.calls.length, 0, 'the tool was never called');
      assert.deepEqual(await keel.approvals.list('acme'), [], 'the inbox no longer lists it');
      await assert.rejects(keel.approvals.approve('acme', run.runId, 'dana'), /not waiting for an approval/);
      assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
      const replay = await keel.runs.replay('acme', run.runId);
      assert.equal(replay.identical, true, JSON.stringify(replay));
      assert.equal(refund.calls.length, 0, 'replay called nothing');
    } finally {
      await keel.close();
    }
  });

  test('reminders, then an escalation to an approver group shown in the inbox; a decision after it still counts', async () => {
    const { keel, refund } = await keelOn();
    try {
      await deploy(
        keel,
        'acme',
        deadlineSpec('{ timeout: 2s, remind: 1s, then: { escalate: finance-leads, timeout: 60s } }'),
      );
      const run = await emit(keel, 'e1');
      const worker = keel.worker({ concurrency: 2, pollMs: 50 });
      await worker.start();
      try {
        await until('escalated', async () =>
          kinds(await keel.runs.entries('acme', run.runId)).includes('approval.escalated'),
        );
      } finally {
        await worker.stop();
      }
      const entries = await keel.runs.entries('acme', run.runId);
      assert.deepEqual(kinds(entries).slice(-3), [
        'approval.requested',
        'approval.reminded',
        'approval.escalated',
      ]);
      const requested = entries.at(-3)!;
      const reminded = payloadOf(entries.at(-2)!, 'approval.reminded');
      assert.ok(Date.parse(reminded.at) >= Date.parse(requested.at) + 1000, 'the reminder came after 1s');
      const esc = payloadOf(entries.at(-1)!, 'approval.escalated');
      assert.equal(esc.to, 'finance-leads');
      assert.equal(esc.deadline, payloadOf(requested, 'approval.requested').deadline);
      assert.equal(
        Date.parse(esc.next ?? ''),
        Date.parse(esc.at) + 60_000,
        'a new deadline from the escalation',
      );
      const [listed] = await keel.approvals.list('acme', run.runId);
      assert.equal(listed?.escalatedTo, 'finance-leads');
      assert.equal(listed?.deadline, esc.next);
      assert.equal((await keel.runs.get('acme', run.runId)).status, 'waiting_approval');
      const done = await keel.approvals.approve('acme', run.runId, 'lee@finance');
      assert.equal(done.status, 'completed');
      assert.equal(refund.calls.length, 1);
      assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
      const replay = await keel.runs.replay('acme', run.runId);
      assert.equal(replay.identical, true, JSON.stringify(replay));
      assert.equal(refund.calls.length, 1, 'replay called nothing');
    } finally {
      await keel.close();
    }
  });

  test("a person's decision racing the deadline: exactly one stands", async () => {
    const { keel, refund } = await keelOn();
    try {
      await deploy(keel, 'acme', deadlineSpec('{ timeout: 1s, then: deny }'));
      const runs: Awaited<ReturnType<typeof emit>>[] = [];
      for (let i = 0; i < 4; i++) runs.push(await emit(keel, `r${i}`));
      const deadline = Date.parse(
        payloadOf((await keel.runs.entries('acme', runs.at(-1)!.runId)).at(-1)!, 'approval.requested')
          .deadline!,
      );
      await sleep(Math.max(0, deadline - Date.now() + 5));
      const worker = keel.worker({ concurrency: 4, pollMs: 5 });
      const decisions = runs.map((r) =>
        keel.approvals.approve('acme', r.runId, 'dana').catch((e: Error) => e),
      );
      await worker.start();
      const settled = await Promise.all(decisions);
      try {
        await until('every run finished', async () => {
          for (const r of runs)
            if (!(await keel.runs.get('acme', r.runId)).status.match(/completed|refused/)) return false;
          return true;
        });
      } finally {
        await worker.stop();
      }
      let completed = 0;
      for (const [i, r] of runs.entries()) {
        const ks = kinds(await keel.runs.entries('acme', r.runId));
        const expired = ks.includes('approval.expired');
        const resolved = ks.includes('approval.resolved');
        assert.ok(
          expired !== resolved,
          `run ${i}: exactly one of the deadline and the decision: ${ks.join(', ')}`,
        );
        assert.equal(
          settled[i] instanceof Error,
          expired,
          `run ${i}: the person is told when the deadline won`,
        );
        if (resolved) completed++;
        assert.equal((await keel.runs.replay('acme', r.runId)).identical, true);
      }
      assert.equal(
        refund.calls.length,
        completed,
        'a tool call for each decision that stood, and only those',
      );
    } finally {
      await keel.close();
    }
  });
}
