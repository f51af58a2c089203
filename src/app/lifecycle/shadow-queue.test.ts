/**
 * The shadow pipeline through the library on real SQLite files (docs/lifecycle.md, "SHADOW" and
 * "The shadow queue"): a comparison starts with whether each version would start on the event —
 * a narrowed trigger is a disagreement in the report, the replay gate and the LIVE gate, a broader
 * one is observed on events the live version never starts — and every event gets its comparisons,
 * eventually: queued with the live run's root, never skipped at a limit, worked in turn across
 * candidates, with the queue's lag reported. Old skip records count against the live version they
 * were skipped beside, never against the one LIVE now.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ClaimedShadowWork } from '../../ports/index.ts';
import { deploy, setStatus, spyTool, withStoreFile } from '../../testing/index.ts';
import { createKeel, type Keel } from '../keel.ts';
import { retryDelay, SHADOW_MAX_ATTEMPTS, ShadowDrainer } from './shadow-drainer.ts';
import { Shadows } from './shadows.ts';

function desk() {
  return [
    spyTool('reply', { effect: 'write', simulate: (a) => ({ sent: a.ticket, simulated: true }) }),
    spyTool('refund', {
      effect: 'external',
      idempotent: false,
      cost: { fromArg: 'amount' },
      simulate: (a) => ({ refunded: a.amount, simulated: true }),
    }),
  ];
}

const spec = (o: { version: number; status: string; when?: string; cap?: number }) => `id: refund
version: ${o.version}
status: ${o.status}
triggers:
  - event: refund.requested
${o.when ? `    when: ${JSON.stringify(o.when)}\n` : ''}steps:
  - { name: reply, tool: reply, args: { ticket: "{{event.subject}}" } }
  - { name: refund, tool: refund, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 3, maxCostUsd: ${o.cap ?? 50} }
`;

let n = 0;
const refund = (amount: number, currency = 'USD') => {
  const id = `r${n++}`;
  return {
    id,
    type: 'refund.requested',
    subject: `T-${id}`,
    time: '2026-12-01T10:00:00Z',
    payload: { amount, currency },
  };
};

async function withKeel(
  name: string,
  config: Partial<Parameters<typeof createKeel>[0]>,
  fn: (keel: Keel) => Promise<void>,
): Promise<void> {
  await withStoreFile(name, async (store) => {
    const keel = createKeel({ store, tools: desk(), ...config });
    try {
      await fn(keel);
    } finally {
      await keel.close();
    }
  });
}

describe('would each version start on this event?', () => {
  test('a narrowed trigger disagrees: in the shadow report, the replay gate and the LIVE gate', async () => {
    await withKeel(
      'keel-shadow-narrowed',
      { promotionGates: { acme: { live: { minComparisons: 3, replayRuns: 10 } } } },
      async (keel) => {
        await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE', when: 'payload.currency == "USD"' }));
        await deploy(
          keel,
          'acme',
          spec({
            version: 2,
            status: 'SHADOW',
            when: 'payload.currency == "USD" and payload.amount <= 40',
          }),
        );
        for (const amount of [55, 60, 70]) await keel.events.emit('acme', refund(amount));
        await keel.lifecycle.settled();
        // No shadow run was made: v2 would not start on any of them.
        assert.equal((await keel.runs.list('acme', { mode: 'shadow' })).runs.length, 0);
        const report = await keel.lifecycle.shadowReport('acme', 'refund');
        assert.deepEqual(
          [report.comparisons, report.agreed, report.starts.wouldNotStart, report.starts.wouldStartAlone],
          [3, 0, 3, 0],
        );
        assert.match(
          report.disagreements[0]!.sentences[0]!,
          /^v2 would not start on T-r\d+ .*where v1 started/,
        );
        assert.deepEqual(report.disagreements[0]!.starts, { live: true, candidate: false });
        const replay = await keel.lifecycle.replayGate('acme', 'refund', { version: 2 });
        assert.deepEqual([replay.runs, replay.diverged.length, replay.wouldNotStart], [3, 3, 3]);
        assert.match(replay.diverged[0]!.sentence, /v2 would not start/);
        const gate = await keel.lifecycle.gate('acme', 'refund', 'LIVE', { version: 2 });
        assert.equal(gate.met, false);
        const unmet = gate.conditions.filter((c) => !c.met).map((c) => c.id);
        assert.ok(unmet.includes('shadow.agreement') && unmet.includes('replay.gate'), unmet.join());
        assert.ok(gate.conditions.find((c) => c.id === 'shadow.comparisons')!.met, 'three comparisons');
        assert.match(
          gate.conditions.find((c) => c.id === 'shadow.agreement')!.text,
          /0% \(0 of 3; on 3 only one of the two would start\)/,
        );
      },
    );
  });

  test('a broader trigger is observed: the candidate runs alone, simulated, on events the live version never starts', async () => {
    await withKeel('keel-shadow-broader', {}, async (keel) => {
      await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE', when: 'payload.amount < 50' }));
      await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW', cap: 100 }));
      const live = await keel.events.emit('acme', refund(20));
      const none = await keel.events.emit('acme', refund(70));
      assert.equal(live.runs.length, 1);
      assert.equal(none.runs.length, 0, 'v1 does not start on $70');
      await keel.lifecycle.settled();
      const shadows = (await keel.runs.list('acme', { mode: 'shadow' })).runs;
      assert.equal(shadows.length, 2, 'one beside the live run, one alone');
      const alone = shadows.find((r) => r.shadowOf === undefined)!;
      assert.equal(alone.status, 'completed');
      assert.equal((await keel.runs.verify('acme', alone.runId)).ok, true);
      assert.match(
        (await keel.runs.history('acme', alone.runId))[0]!.text,
        /the live version does not start/,
      );
      const report = await keel.lifecycle.shadowReport('acme', 'refund');
      assert.deepEqual(
        [report.comparisons, report.agreed, report.starts.wouldStartAlone, report.starts.wouldNotStart],
        [2, 1, 1, 0],
      );
      const d = report.disagreements[0]!;
      assert.equal(d.liveRunId, undefined);
      assert.equal(d.shadowRunId, alone.runId);
      assert.match(
        d.sentences[0]!,
        /^v2 would start on T-r\d+, which v1 does not start .*would have called reply .*then called refund with amount=70, ending completed$/,
      );
    });
  });
});

describe('tests say which events start the version', () => {
  test('starts: false passes with no run where no trigger matches; a test of an event the version never starts fails', async () => {
    await withKeel('keel-tests-starts', {}, async (keel) => {
      const tests = `tests:
  - name: refunds USD
    event: { type: refund.requested, subject: T-1, payload: { amount: 30, currency: USD } }
    expect: { status: completed }
  - name: ignores EUR
    event: { type: refund.requested, subject: T-2, payload: { amount: 30, currency: EUR } }
    expect: { starts: false }
`;
      await deploy(
        keel,
        'acme',
        `${spec({ version: 1, status: 'TESTING', when: 'payload.currency == "USD"' })}${tests}`,
      );
      const report = await keel.lifecycle.test('acme', 'refund');
      assert.equal(report.passed, true);
      const ignored = report.tests.find((t) => t.name === 'ignores EUR')!;
      assert.deepEqual([ignored.runId, ignored.starts, ignored.status], [undefined, false, 'not started']);
      assert.equal((await keel.runs.list('acme', { mode: 'test' })).runs.length, 1, 'only the USD test ran');
      const gate = await keel.lifecycle.gate('acme', 'refund', 'SHADOW');
      assert.equal(gate.met, true, JSON.stringify(gate.conditions));
      // The same tests on a version that takes GBP only: a test of an event it never starts fails,
      // without a run; on one that takes every currency, "ignores EUR" fails.
      const wrong = `${spec({ version: 2, status: 'TESTING', when: 'payload.currency == "GBP"' })}${tests}`;
      await deploy(keel, 'acme', wrong);
      const r2 = await keel.lifecycle.test('acme', 'refund', { version: 2 });
      assert.equal(r2.passed, false);
      assert.deepEqual(
        r2.tests.map((t) => [
          t.name,
          t.passed,
          t.results.map((x) => `${x.expectation}:${x.expected}/${x.actual}`),
        ]),
        [
          ['refunds USD', false, ['starts:true/false']],
          ['ignores EUR', true, ['starts:false/false']],
        ],
      );
      const v3 = `${spec({ version: 3, status: 'TESTING' })}${tests}`;
      await deploy(keel, 'acme', v3);
      const r3 = await keel.lifecycle.test('acme', 'refund', { version: 3 });
      assert.deepEqual(
        r3.tests.map((t) => [t.name, t.passed]),
        [
          ['refunds USD', true],
          ['ignores EUR', false],
        ],
      );
      assert.equal((await keel.lifecycle.gate('acme', 'refund', 'SHADOW', { version: 3 })).met, false);
    });
  });
});

describe('the shadow queue', () => {
  test('nine candidates, events back to back, one shadow at a time: every comparison is made, none skipped', async () => {
    await withKeel('keel-shadow-nine', { maxShadowRuns: 1 }, async (keel) => {
      await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE' }));
      for (let v = 2; v <= 10; v++)
        await deploy(keel, 'acme', spec({ version: v, status: 'SHADOW', cap: 40 + v }));
      await Promise.all(Array.from({ length: 6 }, (_, i) => keel.events.emit('acme', refund(10 + i))));
      const lag = await keel.lifecycle.shadowQueue.status({ tenant: 'acme' });
      assert.ok(lag.waiting + lag.running > 0, 'queued, not yet made');
      assert.ok(lag.oldestAgeMs !== undefined && lag.oldestAgeMs >= 0);
      await keel.lifecycle.settled();
      for (let v = 2; v <= 10; v++) {
        const r = await keel.lifecycle.shadowReport('acme', 'refund', { version: v });
        assert.deepEqual([r.comparisons, r.agreed, r.skipped], [6, 6, 0], `v${v}`);
        assert.deepEqual(r.queue, { waiting: 0, running: 0, failed: 0, failures: [] });
      }
      assert.deepEqual(await keel.lifecycle.shadowQueue.status(), {
        waiting: 0,
        running: 0,
        failed: 0,
        failures: [],
      });
    });
  });

  test('with no room for shadows here, work waits in the queue (its lag reported) until another process drains it', async () => {
    await withStoreFile('keel-shadow-waits', async (store) => {
      const busy = createKeel({ store, tools: desk(), maxShadowRuns: 0 });
      try {
        await deploy(busy, 'acme', spec({ version: 1, status: 'LIVE' }));
        await deploy(busy, 'acme', spec({ version: 2, status: 'SHADOW' }));
        for (let i = 0; i < 5; i++) await busy.events.emit('acme', refund(10));
        await busy.lifecycle.settled();
        const report = await busy.lifecycle.shadowReport('acme', 'refund');
        assert.deepEqual([report.comparisons, report.skipped, report.queue.waiting], [0, 0, 5]);
        const gate = await busy.lifecycle.gate('acme', 'refund', 'LIVE', { version: 2 });
        assert.match(gate.conditions[0]!.text, /: 0 \(5 more waiting in the shadow queue\)/);
      } finally {
        await busy.close();
      }
      const other = createKeel({ store, tools: desk() });
      try {
        assert.deepEqual(await other.lifecycle.shadowQueue.drain({ tenant: 'acme' }), {
          worked: 5,
          retried: 0,
        });
        const report = await other.lifecycle.shadowReport('acme', 'refund');
        assert.deepEqual([report.comparisons, report.agreed, report.queue.waiting], [5, 5, 0]);
      } finally {
        await other.close();
      }
    });
  });

  test('a continual drainer works the queue in the background, yielding to live work', async () => {
    await withKeel('keel-shadow-continual', {}, async (keel) => {
      await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE' }));
      await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW' }));
      const drainer = keel.lifecycle.shadowQueue.run({ pollMs: 20 });
      try {
        for (let i = 0; i < 4; i++) await keel.events.emit('acme', refund(10 + i));
        const deadline = Date.now() + 20_000;
        while (
          (await keel.lifecycle.shadowQueue.status()).waiting > 0 ||
          (await keel.lifecycle.shadowQueue.status()).running > 0
        ) {
          assert.ok(Date.now() < deadline, 'the queue drains by itself');
          await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal((await keel.lifecycle.shadowReport('acme', 'refund')).comparisons, 4);
      } finally {
        await drainer.stop();
      }
    });
  });

  test('shadow work yields to live work: put off while it runs, then one item at a time once put off too long', async () => {
    await withKeel('keel-shadow-yields', { maxShadowRuns: 0 }, async (keel) => {
      await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE' }));
      await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW' }));
      for (let i = 0; i < 4; i++) await keel.events.emit('acme', refund(10 + i));
      let busy = true;
      const shadows = new Shadows({
        engine: keel.engine,
        store: keel.store,
        now: () => new Date().toISOString(),
        wallClock: Date.now,
      });
      const drainer = new ShadowDrainer({
        shadows,
        store: keel.store,
        owner: 'test-drainer',
        clock: Date.now,
        limit: () => 8,
        concurrency: 8,
        busy: () => busy,
        quietMs: 10,
        maxLagMs: 1500,
      });
      const lag = () => keel.lifecycle.shadowQueue.status({ tenant: 'acme' });
      const started = Date.now();
      drainer.run(20);
      try {
        await new Promise((r) => setTimeout(r, 200));
        if (Date.now() - started < 1400)
          assert.equal((await lag()).waiting, 4, 'put off while live work runs');
        // Put off too long: worked beside the live work, never more than one at a time.
        const deadline = Date.now() + 30_000;
        for (let q = await lag(); q.waiting + q.running > 0; q = await lag()) {
          assert.ok(q.running <= 1, JSON.stringify(q));
          assert.ok(Date.now() < deadline, 'drained in the end');
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.ok(Date.now() - started >= 1500, 'not before it had been put off for maxLagMs');
        // Live work pauses: new work goes at once.
        busy = false;
        for (let i = 0; i < 3; i++) await keel.events.emit('acme', refund(20 + i));
        const soon = Date.now() + 20_000;
        while ((await lag()).waiting + (await lag()).running > 0) {
          assert.ok(Date.now() < soon);
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.equal((await keel.lifecycle.shadowReport('acme', 'refund')).comparisons, 7);
      } finally {
        await drainer.stop();
      }
    });
  });

  test('skips recorded before the queue count against the live version they were skipped beside', async () => {
    await withKeel('keel-shadow-skips', {}, async (keel) => {
      await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE' }));
      await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW' }));
      await deploy(keel, 'acme', spec({ version: 3, status: 'DRAFT' }));
      const { runs } = await keel.events.emit('acme', refund(10));
      await keel.lifecycle.settled();
      // What an older Keel recorded: a shadow of v2 skipped beside v1's run.
      await keel.store.evidence.recordShadowSkip({
        tenant: 'acme',
        workflowId: 'refund',
        version: 2,
        liveRunId: runs[0]!.runId,
        reason: '8 shadow runs of tenant acme were running (at most 8)',
        at: '2026-01-01T00:00:00.000Z',
      });
      // v3 goes LIVE in v1's place; v2 is still SHADOW, now compared with v3.
      await setStatus(keel, 'acme', 'refund', 1, 'DRAFT');
      await setStatus(keel, 'acme', 'refund', 3, 'LIVE');
      await keel.events.emit('acme', refund(11));
      await keel.lifecycle.settled();
      const report = await keel.lifecycle.shadowReport('acme', 'refund', { version: 2 });
      assert.deepEqual(report.against, [1, 3]);
      assert.deepEqual(report.skippedBeside, [{ liveVersion: 1, count: 1 }]);
      const gate = await keel.lifecycle.gate('acme', 'refund', 'LIVE', { version: 2 });
      const comparisons = gate.conditions.find((c) => c.id === 'shadow.comparisons')!;
      assert.match(comparisons.text, /shadow comparisons with v3: 1$/, 'no skip is shown against v3');
    });
  });

  test('an item that cannot be worked is tried again after 5 s, 10 s, 20 s ..., then kept as failed and reported, never dropped; recover tries it again', async () => {
    await withStoreFile('keel-shadow-bounded', async (path) => {
      // This Keel walks no shadows: the item is the test's drainer's alone.
      const keel = createKeel({ store: path, tools: desk(), maxShadowRuns: 0 });
      // The store is unreachable whenever the item is worked (the real queue, a failing worker).
      let now = 1_000_000;
      const seen: number[] = [];
      const errors: string[] = [];
      const failing = {
        work: async (item: ClaimedShadowWork) => {
          seen.push(now);
          assert.equal(item.attempts, seen.length - 1, 'the attempts so far come with the claim');
          throw new KeelError(ErrorCode.storeUnavailable, 'the store is unreachable');
        },
      } as unknown as Shadows;
      const drainer = new ShadowDrainer({
        shadows: failing,
        store: keel.store,
        owner: 'test-drainer',
        clock: () => now,
        limit: () => 8,
        concurrency: 8,
        busy: () => false,
        onError: (e) => errors.push((e as Error).message),
      });
      try {
        await deploy(keel, 'acme', spec({ version: 1, status: 'LIVE' }));
        await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW' }));
        await keel.events.emit('acme', refund(10));
        for (let attempt = 1; attempt <= SHADOW_MAX_ATTEMPTS; attempt++) {
          assert.deepEqual(
            await drainer.drain({ all: true, tenant: 'acme' }),
            { worked: 1 },
            `attempt ${attempt}`,
          );
          if (attempt === SHADOW_MAX_ATTEMPTS) break;
          // Not again until its wait is up; at once after.
          now += retryDelay(attempt);
          assert.deepEqual(await drainer.drain({ all: true, tenant: 'acme' }), { worked: 0 });
          now += 1;
        }
        assert.deepEqual(
          seen.slice(1).map((t, i) => t - seen[i]!),
          [5_001, 10_001, 20_001, 40_001, 80_001],
        );
        // Given up on: never claimed again, however long one waits; kept, and said so.
        now += 3_600_000;
        assert.deepEqual(await drainer.drain({ all: true, tenant: 'acme' }), { worked: 0 });
        assert.equal(seen.length, SHADOW_MAX_ATTEMPTS);
        const status = await keel.lifecycle.shadowQueue.status({ tenant: 'acme' });
        assert.deepEqual([status.waiting, status.running, status.failed], [0, 0, 1]);
        assert.deepEqual(
          status.failures.map((f) => [f.version, f.attempts, f.error]),
          [[2, 6, 'the store is unreachable (attempt 6 of 6)']],
        );
        const report = await keel.lifecycle.shadowReport('acme', 'refund', { version: 2 });
        assert.deepEqual([report.comparisons, report.queue.waiting, report.queue.failed], [0, 0, 1]);
        assert.match(
          errors.at(-1)!,
          /kept as failed in the shadow queue: the store is unreachable .*keel recover --all/,
        );
      } finally {
        await drainer.stop();
        await keel.close();
      }
      // A person asks for it again (keel recover --all, in another process): it is worked, and made.
      const other = createKeel({ store: path, tools: desk() });
      try {
        assert.deepEqual(await other.lifecycle.shadowQueue.drain({ tenant: 'acme', retryFailed: true }), {
          worked: 1,
          retried: 1,
        });
        const after = await other.lifecycle.shadowReport('acme', 'refund', { version: 2 });
        assert.deepEqual([after.comparisons, after.agreed, after.queue.failed], [1, 1, 0]);
      } finally {
        await other.close();
      }
    });
  });
});

describe('a shadow is compared on what its live run got', () => {
  /** A refund whose id a later step reads: a simulated refund's id is not the live one's. */
  const refundDesk = () => [
    spyTool('refund', {
      effect: 'external',
      destructive: true,
      cost: { fromArg: 'amount' },
      handler: (a, ctx) => ({ refund_id: `rf_${ctx.idempotencyKey.slice(-8)}`, amount: a.amount }),
      simulate: (a, ctx) => ({ refund_id: `rf_sim_${ctx.idempotencyKey.slice(-8)}`, amount: a.amount }),
    }),
    spyTool('reply', { effect: 'write', simulate: (a) => ({ sent: a.body, simulated: true }) }),
  ];
  const confirming = (version: number, status: string, o: { name?: string } = {}) => `id: refund
version: ${version}
status: ${status}
triggers:
  - event: refund.requested
steps:
  - { name: ${o.name ?? 'refund'}, tool: refund, args: { amount: "{{event.payload.amount}}" } }
  - { name: confirm, tool: reply, args: { body: "Refund {{steps.${o.name ?? 'refund'}.output.refund_id}} is on its way" } }
limits: { maxSteps: 3, maxCostUsd: 100 }
`;

  test("a call the live run made alike is answered with the live run's result, so a later step reading it agrees", async () => {
    await withStoreFile('keel-shadow-borrows', async (path) => {
      const tools = refundDesk();
      const keel = createKeel({ store: path, tools });
      try {
        await deploy(keel, 'acme', confirming(1, 'AUTONOMOUS'));
        await deploy(keel, 'acme', confirming(2, 'SHADOW', { name: 'pay' }));
        for (const amount of [10, 20, 30]) await keel.events.emit('acme', refund(amount));
        await keel.lifecycle.settled();
        const report = await keel.lifecycle.shadowReport('acme', 'refund', { version: 2 });
        assert.deepEqual([report.comparisons, report.agreed], [3, 3], JSON.stringify(report.disagreements));
        const [shadow] = (await keel.runs.list('acme', { mode: 'shadow' })).runs;
        const entries = await keel.runs.entries('acme', shadow!.runId);
        const live = await keel.runs.entries('acme', shadow!.shadowOf!);
        const output = (es: typeof entries) =>
          es.find((e) => e.kind === 'step.completed' && (e.payload as { tool: string }).tool === 'refund')!
            .payload as { output: { refund_id: string } };
        assert.match(output(live).output.refund_id, /^rf_[0-9a-f]{8}$/);
        assert.deepEqual(
          output(entries).output,
          output(live).output,
          "the live refund's result, not simulate's",
        );
        assert.equal((await keel.runs.verify('acme', shadow!.runId)).ok, true);
        // Only the live runs refunded anyone.
        assert.equal(tools[0]!.calls.length, 3);
      } finally {
        await keel.close();
      }
    });
  });

  test('a shadow beside a live run that waits for a person waits too, and is worked when a person ends it', async () => {
    await withStoreFile('keel-shadow-waits', async (path) => {
      const keel = createKeel({ store: path, tools: refundDesk() });
      try {
        await deploy(keel, 'acme', confirming(1, 'LIVE'));
        await deploy(keel, 'acme', confirming(2, 'SHADOW', { name: 'pay' }));
        const { runs } = await keel.events.emit('acme', refund(25));
        assert.equal(runs[0]!.status, 'waiting_approval');
        // Worked now, while the live run waits: nothing to compare with yet, so it waits in the queue.
        assert.deepEqual(await keel.lifecycle.shadowQueue.drain({ tenant: 'acme' }), {
          worked: 1,
          retried: 0,
        });
        assert.equal((await keel.runs.list('acme', { mode: 'shadow' })).runs.length, 0, 'no shadow run yet');
        const lag = await keel.lifecycle.shadowQueue.status({ tenant: 'acme' });
        assert.deepEqual([lag.waiting, lag.failed], [1, 0], 'waiting is no failure');
        await keel.approvals.approve('acme', runs[0]!.runId, 'dana');
        await keel.lifecycle.settled();
        const report = await keel.lifecycle.shadowReport('acme', 'refund', { version: 2 });
        assert.deepEqual(
          [report.comparisons, report.agreed, report.queue.waiting],
          [1, 1, 0],
          JSON.stringify(report.disagreements),
        );
      } finally {
        await keel.close();
      }
    });
  });
});
