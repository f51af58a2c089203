/**
 * Waits for events in virtual time (`keel test`): a spec test declares events arriving at stated
 * times (`tests[].arrives`), so a 48-hour wait with a reply at 2h, a reply for another subject, a
 * reply after the timeout or no reply at all runs in milliseconds. The run's clock jumps to the
 * reply's arrival (or the timeout), the next steps read the outcome (`if:` and templates), the
 * matched event is ledgered in full, and the run replays byte for byte.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { payloadOf } from '../../core/ledger/index.ts';
import { deploy, spyTool } from '../../testing/index.ts';
import { createKeel } from '../keel.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-virtual-events-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = `id: desk
version: 1
status: TESTING
triggers: [{ event: ticket.opened }]
steps:
  - { name: open, tool: open, args: { at: "{{ clock.now }}" } }
  - name: await_reply
    wait:
      event: customer.replied
      match: "event.subject == run.event.subject"
      timeout: 48h
  - name: nudge
    tool: nudge
    args: { at: "{{ clock.now }}" }
    if: "steps.await_reply.output.timedOut == true"
  - name: close
    tool: close
    args: { text: "{{ steps.await_reply.output.event.payload.text }}", at: "{{ clock.now }}" }
limits: { maxSteps: 4, maxCostUsd: 0 }
tests:
  - name: reply at 2h
    clock: "2026-01-01T09:00:00Z"
    event: { type: ticket.opened, subject: T-1 }
    arrives:
      - { at: 1h, event: { type: customer.replied, subject: T-2, payload: { text: not yours } } }
      - { at: 2h, event: { type: customer.replied, subject: T-1, payload: { text: thanks } } }
    expect: { status: completed, steps: [open, close] }
  - name: no reply
    clock: "2026-01-01T09:00:00Z"
    event: { type: ticket.opened, subject: T-3 }
    expect: { status: completed, steps: [open, nudge, close] }
  - name: reply too late
    clock: "2026-01-01T09:00:00Z"
    event: { type: ticket.opened, subject: T-4 }
    arrives:
      - { at: 49h, event: { type: customer.replied, subject: T-4 } }
    expect: { status: completed, steps: [open, nudge, close] }
`;

test('keel test: a 48h wait for a reply at 2h, none, or too late runs in milliseconds, and replays', async () => {
  const read = { effect: 'read' as const, simulate: undefined };
  const tools = ['open', 'nudge', 'close'].map((n) => spyTool(n, read));
  const [, nudge, close] = tools;
  const keel = createKeel({ store: join(dir, 'v.db'), tools });
  try {
    await deploy(keel, 'acme', SPEC);
    const t0 = Date.now();
    const report = await keel.lifecycle.test('acme', 'desk');
    assert.equal(report.passed, true, JSON.stringify(report, null, 2));
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    const [replied, silent, late] = report.tests;
    const entries = await keel.runs.entries('acme', replied!.runId!);
    const ended = payloadOf(entries.find((e) => e.kind === 'wait.ended')!, 'wait.ended');
    assert.equal(ended.reason, 'event');
    assert.equal(ended.at, '2026-01-01T11:00:00.000Z', 'the clock jumped to the reply');
    assert.equal(ended.event?.subject, 'T-1', 'the other subject was passed over');
    assert.deepEqual(ended.event?.payload, { text: 'thanks' });
    assert.equal(ended.event?.id, 'arrival-1');
    assert.equal(ended.arrivedAt, '2026-01-01T11:00:00.000Z');
    assert.deepEqual(close!.calls[0]!.args, { text: 'thanks', at: '2026-01-01T11:00:00.000Z' });
    const rp = await keel.runs.replay('acme', replied!.runId!);
    assert.equal(rp.identical, true, JSON.stringify(rp));
    assert.equal((await keel.runs.verify('acme', replied!.runId!)).ok, true);
    for (const r of [silent!, late!]) {
      const es = await keel.runs.entries('acme', r.runId!);
      const end = payloadOf(es.find((e) => e.kind === 'wait.ended')!, 'wait.ended');
      assert.equal(end.reason, 'timeout');
      assert.equal(end.at, '2026-01-03T09:00:00.000Z', 'the clock jumped to the timeout');
      assert.equal((await keel.runs.replay('acme', r.runId!)).identical, true);
    }
    assert.equal(nudge!.calls.length, 2);
    assert.equal(nudge!.calls[0]!.args.at, '2026-01-03T09:00:00.000Z');
  } finally {
    await keel.close();
  }
});

test('tests[].arrives is checked strictly, every problem named by its field path', async () => {
  const keel = createKeel({
    store: join(dir, 'bad.db'),
    tools: ['open', 'nudge', 'close'].map((n) => spyTool(n)),
  });
  try {
    const bad = SPEC.replace('{ at: 1h, event:', '{ at: soon, when: 1, event:');
    await assert.rejects(deploy(keel, 'acme', bad), (e: Error) => {
      assert.match(e.message, /tests\[0\]\.arrives\[0\]\.at/);
      assert.match(e.message, /\(\+1 more\)/);
      return true;
    });
  } finally {
    await keel.close();
  }
});
