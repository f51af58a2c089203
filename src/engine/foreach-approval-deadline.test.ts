/**
 * A loop's step with an approval deadline (issue 28's iteration and deadlines together), on SQLite:
 * each iteration's request takes the deadline its body step declares; a person approves the first
 * item's refund, nobody answers the second's, which expires (`approval_timeout`) with its tool never
 * called for that item. The ledger verifies (the deadline check finds the body step's declaration
 * from `<loop>[<i>].<step>`) and replays byte for byte.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { payloadOf } from '../core/ledger/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import { deploy } from '../testing/deploy.ts';
import { spyTool } from '../testing/spy-tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-foreach-deadline-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SPEC = `id: refunds
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - name: lines
    forEach: { items: "{{ event.payload.lines }}", as: line, max: 3 }
    steps:
      - name: refund
        tool: refund
        args: { amount: "{{ line.amount }}" }
        approval: { timeout: 1s, then: deny }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;
const POLICY = 'default: allow\nrules:\n  - {id: ask, match: {tool: refund}, outcome: require_approval}\n';

test("a loop's step asks under its declared deadline per item; an unanswered one expires; verify and replay pass", async () => {
  const refund = spyTool('refund');
  const keel = await createKeel({
    store: join(dir, 'a.db'),
    tools: [refund],
    policies: { acme: parsePolicy(POLICY, 'p.yaml') },
  });
  try {
    await deploy(keel, 'acme', SPEC);
    const { runs } = await keel.events.emit('acme', {
      id: 'x1',
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: { lines: [{ amount: 5 }, { amount: 7 }] },
    });
    const run = runs[0]!;
    assert.equal(run.status, 'waiting_approval');
    let entries = await keel.runs.entries('acme', run.runId);
    const first = payloadOf(entries.at(-1)!, 'approval.requested');
    assert.equal(first.step, 'lines[0].refund');
    assert.equal(Date.parse(first.deadline ?? ''), Date.parse(entries.at(-1)!.at) + 1000);
    await keel.approvals.approve('acme', run.runId, 'dana');
    entries = await keel.runs.entries('acme', run.runId);
    const second = payloadOf(entries.at(-1)!, 'approval.requested');
    assert.equal(second.step, 'lines[1].refund');
    assert.equal(Date.parse(second.deadline ?? ''), Date.parse(entries.at(-1)!.at) + 1000);
    assert.equal(refund.calls.length, 1, 'the first item was refunded once approved');
    const worker = keel.worker({ concurrency: 2, pollMs: 50 });
    await worker.start();
    try {
      const end = Date.now() + 10_000;
      while ((await keel.runs.get('acme', run.runId)).status !== 'refused') {
        if (Date.now() > end) throw new Error('the second approval never expired');
        await sleep(20);
      }
    } finally {
      await worker.stop();
    }
    entries = await keel.runs.entries('acme', run.runId);
    assert.deepEqual(
      entries.slice(-4).map((e) => e.kind),
      ['approval.requested', 'approval.expired', 'step.refused', 'run.finished'],
    );
    assert.equal(payloadOf(entries.at(-3)!, 'approval.expired').step, 'lines[1].refund');
    assert.equal(refund.calls.length, 1, "the second item's refund was never called");
    const v = await keel.runs.verify('acme', run.runId);
    assert.equal(v.ok, true, JSON.stringify(v));
    const replay = await keel.runs.replay('acme', run.runId);
    assert.equal(replay.identical, true, JSON.stringify(replay));
    assert.equal(refund.calls.length, 1, 'replay called nothing');
  } finally {
    await keel.close();
  }
});
