/**
 * The issue's repro through the real `keel` command in a fresh `keel init` project: v1 of the refund
 * desk is LIVE; v2 narrows its trigger to refunds of at most $40 and is shadowed on refunds of $55,
 * $60 and $70. Each is an event v2 would not start on — `keel shadow report` says so (0% agreement),
 * `keel replay-gate` names the runs v2 "would not start", and the gate to LIVE is not met (exit 10);
 * `keel test` fails v2's own test of a $500 refund, which v2 no longer starts; `keel status` shows
 * nothing left in the shadow queue once each `keel emit` has worked what it queued.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { okJson, Sandbox, show } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('shadow-cli');
after(() => sandbox.remove());

test('a narrowed trigger is seen: shadow report, replay gate, LIVE gate and keel test all say v2 would not start', () => {
  const keel = (...args: string[]) => sandbox.keel(args, { timeoutMs: 60_000, env: { KEEL_USER: 'dana' } });
  const ok = (...args: string[]) => {
    const r = keel(...args);
    assert.equal(r.code, 0, show(r));
    return r;
  };
  ok('init');
  sandbox.write('gates.yaml', 'live: { minComparisons: 3, replayRuns: 10 }\n');
  ok('publish', 'workflows/refund-under-50.yaml');
  ok('promote', 'refund-under-50', 'TESTING');
  ok('test', 'refund-under-50');
  ok('promote', 'refund-under-50', 'SHADOW');
  ok('promote', 'refund-under-50', 'LIVE');
  const v1 = readFileSync(join(sandbox.dir, 'workflows', 'refund-under-50.yaml'), 'utf8');
  const v2 = v1
    .replace(/^version: 1$/m, 'version: 2')
    .replace(
      'when: payload.currency == "USD"',
      'when: payload.currency == "USD" and payload.refund_amount <= 40',
    );
  assert.notEqual(v2, v1);
  ok('publish', sandbox.write('refund-v2.yaml', v2));
  ok('promote', 'refund-under-50', 'TESTING', '--version', '2');
  // Its own test of a $500 refund no longer holds: v2 does not start on it.
  const tested = keel('test', 'refund-under-50', '--version', '2');
  assert.equal(tested.code, 10, show(tested));
  assert.match(tested.stdout, /FAIL\s+refuses 500 at the spend cap\s+not started/);
  assert.match(tested.stdout, /starts: expected true, got false/);
  ok('promote', 'refund-under-50', 'SHADOW', '--version', '2', '--override', '--reason', 'the repro');
  for (const amount of [55, 60, 70]) {
    const file = sandbox.write(`refund-${amount}.json`, {
      id: `evt-${amount}`,
      type: 'refund.requested',
      subject: `T-${amount}`,
      time: '2026-12-01T10:00:00Z',
      payload: { refund_amount: amount, currency: 'USD' },
    });
    ok('emit', file);
  }
  const report = ok('shadow', 'report', 'refund-under-50').stdout;
  assert.match(report, /v2 against v1: 0% agreement \(0 of 3\); 3 events v2 would not start on/);
  assert.match(
    report,
    /v2 would not start on T-55 \(none of its triggers matches refund.requested evt-55\), where v1 started a run/,
  );
  assert.match(report, /shadow queue: nothing waiting/);
  const replay = keel('replay-gate', 'refund-under-50', '--version', '2');
  assert.equal(replay.code, 10, show(replay));
  assert.match(replay.stdout, /3 would differ \(3 would not start\)/);
  const gate = keel('--gates', 'gates.yaml', 'gate', 'refund-under-50', 'LIVE', '--version', '2');
  assert.equal(gate.code, 10, show(gate));
  assert.match(
    gate.stdout,
    /✗ shadow runs agree with v1 at least 95% of the time: 0% \(0 of 3; on 3 only one of the two would start\)/,
  );
  const status = okJson<{ shadowQueue: { waiting: number; running: number } }>(keel('status', '--json'));
  assert.deepEqual(status.shadowQueue, { waiting: 0, running: 0, failed: 0, failures: [] });
});

test('a shadow beside a live run waiting for a person waits too; keel approve, in another process, works it', () => {
  const box = new Sandbox('shadow-cli-waits');
  try {
    const keel = (...args: string[]) => box.keel(args, { timeoutMs: 60_000, env: { KEEL_USER: 'dana' } });
    const ok = (...args: string[]) => {
      const r = keel(...args);
      assert.equal(r.code, 0, show(r));
      return r;
    };
    ok('init');
    ok('publish', 'workflows/refund-under-50.yaml');
    for (const to of ['TESTING', 'SHADOW', 'LIVE']) {
      if (to === 'SHADOW') ok('test', 'refund-under-50');
      ok('promote', 'refund-under-50', to);
    }
    const v1 = readFileSync(join(box.dir, 'workflows', 'refund-under-50.yaml'), 'utf8');
    ok('publish', box.write('refund-v2.yaml', v1.replace(/^version: 1$/m, 'version: 2')));
    ok('promote', 'refund-under-50', 'TESTING', '--version', '2');
    ok('test', 'refund-under-50', '--version', '2');
    ok('promote', 'refund-under-50', 'SHADOW', '--version', '2');
    const file = box.write('refund-30.json', {
      id: 'evt-30',
      type: 'refund.requested',
      subject: 'T-1001',
      time: '2026-12-01T10:00:00Z',
      payload: { refund_amount: 30, currency: 'USD' },
    });
    // v1 is LIVE, so its refund waits for a person; the comparison waits with it.
    const [run] = okJson<{ runs: { runId: string; status: string }[] }>(ok('emit', file, '--json')).runs;
    assert.equal(run?.status, 'waiting_approval');
    const waiting = okJson<{ comparisons: number; queue: { waiting: number; failed: number } }>(
      ok('shadow', 'report', 'refund-under-50', '--json'),
    );
    assert.deepEqual([waiting.comparisons, waiting.queue.waiting, waiting.queue.failed], [0, 1, 0]);
    ok('approve', run!.runId);
    const made = okJson<{ comparisons: number; agreed: number; queue: { waiting: number } }>(
      ok('shadow', 'report', 'refund-under-50', '--json'),
    );
    assert.deepEqual([made.comparisons, made.agreed, made.queue.waiting], [1, 1, 0]);
  } finally {
    box.remove();
  }
});
