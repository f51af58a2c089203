/**
 * A fork never executes more than its source allowed. For every fork point of runs whose guarded
 * step is pending, approved (and done) or denied, in both modes, approved or not afterwards: the
 * destructive tool's calls made by the fork are at most the approvals granted in the fork itself,
 * a replay fork calls nothing, in every ledger each allow of the guarded tool answers its own
 * approval, and every fork replays identically (its inherited entries are its source's history).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createKeel } from '../app/index.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import { deploy, spyTool } from '../testing/index.ts';

const SPEC = `id: guarded
version: 1
status: LIVE
triggers: [{ event: go }]
steps:
  - { name: a, tool: note, args: { n: 1 } }
  - { name: x, tool: wipe, args: { target: "{{event.subject}}" } }
  - { name: b, tool: note, args: { n: 2 } }
limits: { maxSteps: 10, maxCostUsd: 0 }
`;

const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', subject: 'disk-1', payload: {} });

/** Approvals granted in a ledger at or after `from`, and allows of the guarded tool there. */
function tally(entries: readonly Entry[], from: number) {
  let granted = 0;
  let allows = 0;
  for (const e of entries) {
    if (e.seq < from) continue;
    if (e.kind === 'approval.resolved' && payloadOf(e, 'approval.resolved').decision === 'approved')
      granted++;
    if (e.kind === 'step.allowed' && payloadOf(e, 'step.allowed').tool === 'wipe') allows++;
  }
  return { granted, allows };
}

/** Every allow of the guarded tool in a ledger closes the approval it acts on (same proposal id). */
function eachAllowAnswersItsApproval(entries: readonly Entry[]): void {
  const approved = new Set<string>();
  for (const e of entries) {
    if (e.kind === 'approval.resolved' && payloadOf(e, 'approval.resolved').decision === 'approved')
      approved.add(payloadOf(e, 'approval.resolved').proposalId);
    if (e.kind === 'step.allowed' && payloadOf(e, 'step.allowed').tool === 'wipe') {
      const id = payloadOf(e, 'step.allowed').proposalId;
      assert.ok(approved.delete(id), `seq ${e.seq}: wipe allowed without an approval of its own left`);
    }
  }
}

test('forks × fork points × approval states: executions never exceed approvals granted', async () => {
  const wipe = spyTool('wipe', { destructive: true, idempotent: false });
  const keel = createKeel({ store: ':memory:', tools: [spyTool('note'), wipe] });
  try {
    await deploy(keel, 'acme', SPEC);
    const sources: Record<string, string> = {};
    for (const state of ['pending', 'approved', 'denied'] as const) {
      const run = (await keel.events.emit('acme', go(state))).runs[0]!;
      assert.equal(run.status, 'waiting_approval');
      if (state === 'approved') await keel.approvals.approve('acme', run.runId, 'dana');
      if (state === 'denied') await keel.approvals.deny('acme', run.runId, 'dana');
      sources[state] = run.runId;
    }
    assert.equal(wipe.calls.length, 1, 'the approved source wiped once');
    const heads: Record<string, number> = {};
    for (const [state, id] of Object.entries(sources))
      heads[state] = (await keel.runs.get('acme', id)).head.seq;

    let forks = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('pending', 'approved', 'denied'),
        fc.nat(),
        fc.constantFrom('replay', 'branch'),
        fc.boolean(),
        async (state, at, mode, approveFork) => {
          const source = sources[state]!;
          const fromSeq = at % (heads[state]! + 2);
          const before = wipe.calls.length;
          const fork = await keel.runs.fork('acme', source, { fromSeq, mode });
          if (!fork.created) return;
          forks++;
          if (approveFork && fork.status === 'waiting_approval')
            await keel.approvals.approve('acme', fork.runId, 'erin');
          const calls = wipe.calls.length - before;
          const entries = await keel.runs.entries('acme', fork.runId);
          const own = tally(entries, fromSeq);
          if (mode === 'replay') assert.equal(calls, 0, 'a replay fork never calls a tool');
          else
            assert.ok(
              calls <= own.granted,
              `branch fork called wipe ${calls}× for ${own.granted} approval(s)`,
            );
          const all = tally(entries, 0);
          assert.ok(all.allows <= all.granted, `${all.allows} allows of wipe for ${all.granted} approvals`);
          eachAllowAnswersItsApproval(entries);
          assert.equal((await keel.runs.verify('acme', fork.runId)).ok, true);
          const replayed = await keel.runs.replay('acme', fork.runId);
          assert.ok(replayed.identical, `the fork replays identically: ${JSON.stringify(replayed)}`);
        },
      ),
      { numRuns: 80 },
    );
    assert.ok(forks > 10, `${forks} distinct forks were made`);
  } finally {
    await keel.close();
  }
});

test('a branch fork after an approval asks again; a replay fork of an approved run reproduces one execution', async () => {
  const wipe = spyTool('wipe', { destructive: true, idempotent: false });
  const keel = createKeel({ store: ':memory:', tools: [spyTool('note'), wipe] });
  try {
    await deploy(keel, 'acme', SPEC);
    const run = (await keel.events.emit('acme', go('src'))).runs[0]!;
    await keel.approvals.approve('acme', run.runId, 'dana');
    assert.equal(wipe.calls.length, 1);
    const entries = await keel.runs.entries('acme', run.runId);
    const resolved = entries.find((e) => e.kind === 'approval.resolved')!;
    const branch = await keel.runs.fork('acme', run.runId, { fromSeq: resolved.seq + 1, mode: 'branch' });
    assert.equal(branch.status, 'waiting_approval', 'the inherited approval does not authorize the branch');
    assert.equal(wipe.calls.length, 1);
    const asked = (await keel.approvals.list('acme')).find((a) => a.runId === branch.runId);
    assert.equal(asked?.tool, 'wipe');
    assert.equal((await keel.approvals.approve('acme', branch.runId, 'erin')).status, 'completed');
    assert.equal(wipe.calls.length, 2, 'one more execution, for the one more approval');
    const replay = await keel.runs.fork('acme', run.runId, { fromSeq: 1, mode: 'replay' });
    assert.equal(replay.status, 'completed');
    assert.equal(tally(await keel.runs.entries('acme', replay.runId), 0).allows, 1);
    assert.equal(wipe.calls.length, 2);
  } finally {
    await keel.close();
  }
});
