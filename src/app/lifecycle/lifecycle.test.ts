/**
 * The lifecycle through the library on real SQLite files, with tools that count their own calls:
 * simulated runs (tests, shadows) never make a write or external tool act; a live run's ledger is
 * the same bytes with a SHADOW version present or not; gates refuse a move without evidence,
 * naming each unmet condition, pass with it, and record an override with who and why; only a
 * person promotes; the replay gate flags divergent candidates and passes an equivalent one; a
 * rollout splits events by bucket and rolls itself back when the new version fails more.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { isKeelError } from '../../core/errors.ts';
import { parsePolicy } from '../../core/policy/index.ts';
import type { RawSources } from '../../ports/index.ts';
import { deploy, fakeSources, isCode, setStatus, spyTool, withStoreFile } from '../../testing/index.ts';
import { createKeel, type Keel } from '../keel.ts';

/** Sources whose clock never moves: two Keels given the same events write the same bytes. */
function frozen(): RawSources {
  const s = fakeSources({ seed: 7 });
  return { ...s, clock: { now: () => Date.UTC(2026, 11, 1, 10) } };
}

function desk() {
  return {
    lookup: spyTool('lookup', { effect: 'read', handler: (a) => ({ order: a.order, total: 40 }) }),
    reply: spyTool('reply', {
      effect: 'write',
      simulate: (a) => ({ sent: a.ticket, simulated: true }),
    }),
    refund: spyTool('refund', {
      effect: 'external',
      idempotent: false,
      cost: { fromArg: 'amount' },
      simulate: (a) => ({ refunded: a.amount, simulated: true }),
    }),
  };
}

const spec = (
  o: { version?: number; status?: string; extra?: number; cap?: number; tests?: string } = {},
) => `id: refund
version: ${o.version ?? 1}
status: ${o.status ?? 'LIVE'}
triggers: [{ event: refund.requested }]
steps:
  - { name: look, tool: lookup, args: { order: "{{event.subject}}" } }
  - { name: reply, tool: reply, args: { ticket: "{{event.subject}}" } }
  - { name: refund, tool: refund, args: { amount: ${o.extra ? `${o.extra}` : '"{{event.payload.amount}}"'} } }
limits: { maxSteps: 4, maxCostUsd: ${o.cap ?? 100} }
${o.tests ?? ''}`;

const TESTS = `tests:
  - name: refunds 30
    event: { type: refund.requested, subject: T-1, payload: { amount: 30 } }
    expect: { status: completed, steps: [look, reply, refund], args: { refund: { amount: 30 } } }
`;

let n = 0;
const event = (amount: number, id = `e${n++}`) => ({
  id,
  type: 'refund.requested',
  subject: `T-${id}`,
  time: '2026-12-01T10:00:00Z',
  payload: { amount },
});

const dana = { by: 'dana', kind: 'human' as const };

describe('simulated runs never act', () => {
  test('TESTING and SHADOW runs call no write or external tool; live ledgers are byte-identical with or without a shadow', async () => {
    await withStoreFile('keel-shadow-a', async (a) => {
      await withStoreFile('keel-shadow-b', async (b) => {
        const ta = desk();
        const tb = desk();
        const withShadow = createKeel({ store: a, tools: Object.values(ta), sources: frozen() });
        const without = createKeel({ store: b, tools: Object.values(tb), sources: frozen() });
        try {
          for (const k of [withShadow, without]) await deploy(k, 'acme', spec());
          // v2 differs from v1 (another amount), so its shadows propose other arguments than the live runs.
          await deploy(withShadow, 'acme', spec({ version: 2, status: 'SHADOW', extra: 5, tests: TESTS }));
          const events = Array.from({ length: 12 }, (_, i) => event(10 + i, `ev${i}`));
          for (const e of events) {
            const [x] = (await withShadow.events.emit('acme', e)).runs;
            const [y] = (await without.events.emit('acme', e)).runs;
            assert.equal(x?.runId, y?.runId, 'the same live run');
          }
          await withShadow.lifecycle.settled();
          const tests = await withShadow.lifecycle.test('acme', 'refund', { version: 2 });
          assert.equal(tests.passed, false, 'v2 refunds 5, not 30: its test fails, and says so');
          assert.deepEqual(
            tests.tests[0]?.results.find((r) => !r.ok),
            {
              expectation: 'args.refund.amount',
              ok: false,
              expected: 30,
              actual: 5,
            },
          );
          // Only live runs reached the tools that act; the read tool ran for the shadows too.
          assert.equal(ta.reply.calls.length, 12);
          assert.equal(ta.refund.calls.length, 12);
          assert.equal(ta.lookup.calls.length, 12 + 12 + 1, 'live, shadow and test runs read for real');
          assert.deepEqual([tb.reply.calls.length, tb.refund.calls.length], [12, 12]);
          const shadows = await withShadow.runs.list('acme', { mode: 'shadow' });
          assert.equal(shadows.runs.length, 12);
          const liveRuns = (await without.runs.list('acme', { limit: 100 })).runs;
          for (const r of liveRuns) {
            const x = await withShadow.store.ledger.readEntries('acme', r.runId);
            const y = await without.store.ledger.readEntries('acme', r.runId);
            assert.deepEqual(
              x.map((e) => [e.hash, Buffer.from(e.payload).toString('hex')]),
              y.map((e) => [e.hash, Buffer.from(e.payload).toString('hex')]),
            );
          }
          // Each shadow is an ordinary run: its ledger verifies, and says what was simulated.
          const s = shadows.runs[0]!;
          assert.equal((await withShadow.runs.verify('acme', s.runId)).ok, true);
          const history = (await withShadow.runs.history('acme', s.runId)).map((h) => h.text).join('\n');
          assert.match(history, /a shadow of live run sha256:/);
          assert.match(history, /Allowed refund with amount=5.*simulated, the tool does not act/);
          const report = await withShadow.lifecycle.shadowReport('acme', 'refund');
          assert.deepEqual([report.comparisons, report.agreed], [12, 0]);
          assert.match(
            report.disagreements[0]!.sentences[0]!,
            /v2 would have called refund with amount=5 where v1 called refund with amount=/,
          );
        } finally {
          await withShadow.close();
          await without.close();
        }
      });
    });
  });

  test('a tool with no simulate is suppressed; a run whose later step needs its output ends needs_simulation', async () => {
    await withStoreFile('keel-suppress', async (path) => {
      const notify = spyTool('notify', { effect: 'external' });
      const after = spyTool('after', { effect: 'read' });
      const keel = createKeel({ store: path, tools: [notify, after] });
      try {
        const body = (reads: boolean) => `id: note${reads ? '-reads' : ''}
version: 1
status: TESTING
triggers: [{ event: go }]
steps:
  - { name: tell, tool: notify, args: { text: hello } }
  - { name: then, tool: after, args: { got: ${reads ? '"{{steps.tell.output.id}}"' : 'none'} } }
limits: { maxSteps: 2, maxCostUsd: 0 }
tests:
  - name: runs
    event: { type: go }
    expect: { status: ${reads ? 'failed' : 'completed'} }
`;
        await deploy(keel, 'acme', body(false));
        await deploy(keel, 'acme', body(true));
        const fine = await keel.lifecycle.test('acme', 'note');
        assert.equal(fine.passed, true, JSON.stringify(fine));
        const kinds = (await keel.runs.entries('acme', fine.tests[0]!.runId!)).map((e) => e.kind);
        assert.ok(kinds.includes('step.suppressed'), kinds.join(' '));
        const needs = await keel.lifecycle.test('acme', 'note-reads');
        assert.equal(needs.tests[0]?.refusal, 'needs_simulation', JSON.stringify(needs));
        const last = (await keel.runs.entries('acme', needs.tests[0]!.runId!)).at(-1)!.payload as {
          reason: string;
        };
        assert.match(last.reason, /step then reads the output of step tell, but notify has no simulate/);
        assert.equal(notify.calls.length, 0);
        assert.equal(after.calls.length, 1, 'the read tool ran in the run that could go on');
      } finally {
        await keel.close();
      }
    });
  });
});

describe('a version not yet shown to behave acts only when asked to', () => {
  test('runs.start of a DRAFT, TESTING or SHADOW version is simulated unless live: true; a LIVE version acts', async () => {
    await withStoreFile('keel-direct-simulated', async (path) => {
      const t = desk();
      const keel = createKeel({ store: path, tools: Object.values(t) });
      try {
        await deploy(keel, 'acme', spec({ status: 'LIVE' }));
        await keel.workflows.publish('acme', spec({ version: 2, status: 'DRAFT' }), 'r.yaml', 'dana');
        const acted = () => [t.reply.calls.length, t.refund.calls.length];
        for (const status of ['DRAFT', 'TESTING', 'SHADOW'] as const) {
          if (status !== 'DRAFT') await setStatus(keel, 'acme', 'refund', 2, status);
          const e = event(30, `direct-${status}`);
          const tried = await keel.runs.start('acme', 'refund', e, { version: 2 });
          assert.deepEqual([tried.simulated, tried.status], [true, 'completed'], status);
          assert.deepEqual(acted(), [0, 0], `${status}: no write or external tool acted`);
          const root = (await keel.runs.entries('acme', tried.runId))[0]!.payload as {
            mode?: string;
            test?: { name: string };
          };
          assert.deepEqual([root.mode, root.test?.name], ['test', 'run']);
          assert.equal((await keel.runs.start('acme', 'refund', e, { version: 2 })).runId, tried.runId);
          // A writ bounds what a run does for real: a simulated run refuses one rather than ignore it.
          await assert.rejects(
            keel.runs.start('acme', 'refund', e, { version: 2, writ: [] }),
            (err: unknown) => isKeelError(err) && err.code === 'usage' && err.details.field === 'writ',
          );
        }
        const real = await keel.runs.start('acme', 'refund', event(30, 'direct-live'), {
          version: 2,
          live: true,
        });
        assert.equal(real.simulated, undefined);
        assert.deepEqual(acted(), [1, 1], 'asked for, it acts');
        const live = await keel.runs.start('acme', 'refund', event(30, 'direct-v1'), { version: 1 });
        assert.equal(live.simulated, undefined);
        assert.deepEqual(acted(), [2, 2], 'a LIVE version acts as routing would');
        await assert.rejects(
          keel.runs.start('acme', 'refund', event(1), { live: 'yes' as unknown as boolean }),
          (err: unknown) => isKeelError(err) && err.code === 'usage' && err.details.field === 'live',
        );
      } finally {
        await keel.close();
      }
    });
  });
});

describe('promotion gates', () => {
  test('refused without evidence (each condition named), passed with it, an override recorded; only a person promotes', async () => {
    await withStoreFile('keel-gates', async (path) => {
      const t = desk();
      const keel = createKeel({ store: path, tools: Object.values(t) });
      try {
        await keel.workflows.publish('acme', spec({ status: 'DRAFT', tests: TESTS }), 'r.yaml', 'dana');
        await assert.rejects(keel.lifecycle.promote('acme', 'refund', 'SHADOW', dana), (e: unknown) => {
          assert.ok(isKeelError(e) && e.code === 'usage' && /one step at a time/.test(e.message), String(e));
          return true;
        });
        await keel.lifecycle.promote('acme', 'refund', 'TESTING', dana);
        await assert.rejects(keel.lifecycle.promote('acme', 'refund', 'SHADOW', dana), (e: unknown) => {
          assert.ok(isKeelError(e) && e.code === 'promotion_gate_unmet', String(e));
          assert.match(e.message, /refunds 30 not run yet/);
          const report = e.details.report as { conditions: { id: string; met: boolean }[] };
          assert.deepEqual(
            report.conditions.filter((c) => !c.met).map((c) => c.id),
            ['tests.pass'],
          );
          return true;
        });
        assert.equal((await keel.lifecycle.test('acme', 'refund')).passed, true);
        assert.equal(t.refund.calls.length, 0, 'testing refunded nobody');
        const shadow = await keel.lifecycle.promote('acme', 'refund', 'SHADOW', dana);
        assert.equal(shadow.report?.met, true);
        assert.deepEqual(
          (shadow.promotion.evidence as { conditions: { evidence?: string[] }[] }).conditions[1]?.evidence
            ?.length,
          1,
        );
        // The first LIVE version: nothing to compare with, its tests pass again.
        const live = await keel.lifecycle.promote('acme', 'refund', 'LIVE', dana);
        assert.equal(live.report?.conditions[0]?.id, 'live.first');
        // AUTONOMOUS needs live runs: refused, then overridden by a person, who and why recorded.
        await assert.rejects(keel.lifecycle.promote('acme', 'refund', 'AUTONOMOUS', dana), (e: unknown) => {
          assert.ok(isKeelError(e) && e.code === 'promotion_gate_unmet');
          assert.match(e.message, /at least 20 live runs of v1 in the last 30 days: 0/);
          return true;
        });
        await assert.rejects(
          keel.lifecycle.promote(
            'acme',
            'refund',
            'AUTONOMOUS',
            { by: 'ci-bot', kind: 'service' },
            { override: 'x' },
          ),
          isCode('forbidden'),
        );
        await assert.rejects(
          keel.workflows.promote('acme', 'refund', 'AUTONOMOUS', 'ci-bot', undefined, {
            principal: 'service',
          }),
          isCode('forbidden'),
        );
        const auto = await keel.lifecycle.promote('acme', 'refund', 'AUTONOMOUS', dana, {
          override: 'finance signed off (FIN-12)',
        });
        assert.deepEqual(
          [auto.promotion.by, auto.promotion.override?.reason],
          ['dana', 'finance signed off (FIN-12)'],
        );
        assert.equal(auto.report?.met, false, 'the record keeps the gate it overrode');
        // Stepping back is allowed to anyone.
        const back = await keel.lifecycle.promote('acme', 'refund', 'LIVE', {
          by: 'monitor',
          kind: 'service',
        });
        assert.equal(back.promotion.kind, 'demote');
        const { records, chain } = await keel.lifecycle.records('acme', 'refund');
        assert.deepEqual(
          records.map((r) => `${r.from}>${r.to}`),
          ['DRAFT>TESTING', 'TESTING>SHADOW', 'SHADOW>LIVE', 'LIVE>AUTONOMOUS', 'AUTONOMOUS>LIVE'],
        );
        assert.equal(chain.ok, true);
      } finally {
        await keel.close();
      }
      // Someone with the file edits the evidence of a record: the chain says which.
      const db = new Database(path);
      db.prepare(
        "UPDATE promotions SET override_reason = 'nobody asked' WHERE to_status = 'AUTONOMOUS'",
      ).run();
      db.close();
      const again = createKeel({ store: path });
      try {
        const { chain } = await again.lifecycle.records('acme', 'refund');
        assert.ok(!chain.ok && chain.index === 3 && /edited/.test(chain.message), JSON.stringify(chain));
      } finally {
        await again.close();
      }
    });
  });

  test('the gate to AUTONOMOUS counts every live run in its window: 10 denials, then 100 approvals, still fail it', async () => {
    await withStoreFile('keel-gate-autonomous', async (path) => {
      const close = spyTool('close', { destructive: true, effect: 'write' });
      const keel = createKeel({ store: path, tools: [close] });
      try {
        await deploy(
          keel,
          'acme',
          `id: closer
version: 1
status: LIVE
triggers: [{ event: ticket.resolved }]
steps:
  - { name: close, tool: close, args: { ticket: "{{event.subject}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`,
        );
        const decide = async (i: number, how: 'approve' | 'deny') => {
          const [run] = (
            await keel.events.emit('acme', {
              id: `t${i}`,
              type: 'ticket.resolved',
              subject: `T-${i}`,
              time: '2026-12-01T10:00:00Z',
              payload: {},
            })
          ).runs;
          await keel.approvals[how]('acme', run!.runId, 'dana');
        };
        for (let i = 0; i < 10; i++) await decide(i, 'deny');
        for (let i = 10; i < 110; i++) await decide(i, 'approve');
        const report = await keel.lifecycle.gate('acme', 'closer', 'AUTONOMOUS');
        const byId = Object.fromEntries(report.conditions.map((c) => [c.id, c]));
        assert.deepEqual([byId['live.runs']?.met, byId['live.runs']?.found], [true, 110]);
        assert.deepEqual([byId['live.approvals']?.met, byId['live.approvals']?.found], [false, 10]);
        assert.match(byId['live.approvals']!.text, /100 granted, 10 denied/);
        assert.equal(byId['live.approvals']?.evidence?.length, 10, 'each denied run named');
        assert.equal(report.met, false);
      } finally {
        await keel.close();
      }
    });
  });

  test('test evidence holds for the policy it ran under: under another policy the tests are not run yet, and run again', async () => {
    await withStoreFile('keel-gates-policy', async (path) => {
      const denyRefunds = parsePolicy(
        'rules:\n  - {id: no-refunds, match: {tool: refund}, outcome: deny, reason: refunds are off}\n  - {id: rest, match: {tool: "*"}, outcome: allow}\n',
        'p.yaml',
      );
      const t = desk();
      const plain = createKeel({ store: path, tools: Object.values(t) });
      await plain.workflows.publish('acme', spec({ status: 'DRAFT', tests: TESTS }), 'r.yaml', 'dana');
      await plain.lifecycle.promote('acme', 'refund', 'TESTING', dana);
      const passed = await plain.lifecycle.test('acme', 'refund');
      assert.equal(passed.passed, true);
      await plain.close();
      const strict = createKeel({ store: path, tools: Object.values(t), policies: { acme: denyRefunds } });
      try {
        // The passing run was judged without the policy: it is not evidence under it.
        await assert.rejects(strict.lifecycle.promote('acme', 'refund', 'SHADOW', dana), (e: unknown) => {
          assert.ok(isKeelError(e) && e.code === 'promotion_gate_unmet', String(e));
          assert.match(e.message, /refunds 30 not run yet/);
          return true;
        });
        const again = await strict.lifecycle.test('acme', 'refund');
        assert.equal(again.passed, false, 'under the policy the refund is denied, so the test fails');
        assert.equal(again.tests[0]?.created, true, 'a new run, not the one made without the policy');
        assert.notEqual(again.tests[0]?.runId, passed.tests[0]?.runId);
        assert.equal(again.tests[0]?.refusal, 'policy_denied');
        await assert.rejects(
          strict.lifecycle.promote('acme', 'refund', 'SHADOW', dana),
          isCode('promotion_gate_unmet'),
        );
        assert.equal(t.refund.calls.length, 0);
      } finally {
        await strict.close();
      }
    });
  });

  test('to LIVE beside a LIVE version: shadow comparisons and the replay gate decide', async () => {
    await withStoreFile('keel-gate-live', async (path) => {
      const keel = createKeel({
        store: path,
        tools: Object.values(desk()),
        promotionGates: { acme: { live: { minComparisons: 5, replayRuns: 5 } } },
      });
      try {
        await deploy(keel, 'acme', spec());
        await deploy(keel, 'acme', spec({ version: 2, status: 'SHADOW', tests: TESTS }));
        await keel.lifecycle.test('acme', 'refund', { version: 2 });
        for (let i = 0; i < 3; i++) await keel.events.emit('acme', event(20 + i));
        await keel.lifecycle.settled();
        const few = await keel.lifecycle.gate('acme', 'refund', 'LIVE', { version: 2 });
        // Beside the report: what v2 changes from v1, the version events go to now.
        assert.deepEqual(
          few.diff?.changes.map((c) => c.area),
          ['tests'],
        );
        assert.deepEqual(
          few.conditions.filter((c) => !c.met).map((c) => c.id),
          ['shadow.comparisons'],
        );
        assert.match(few.conditions[0]!.text, /at least 5 shadow comparisons with v1: 3/);
        for (let i = 0; i < 3; i++) await keel.events.emit('acme', event(30 + i));
        // Comparisons still in the shadow queue are not evidence yet: this process makes them now.
        await keel.lifecycle.settled();
        const enough = await keel.lifecycle.promote('acme', 'refund', 'LIVE', dana, { version: 2 });
        assert.equal(enough.report?.met, true, JSON.stringify(enough.report));
        // v1 steps back, recorded as superseded; events now start v2.
        assert.equal((await keel.workflows.get('acme', 'refund', 1))?.status, 'DRAFT');
        assert.equal((await keel.events.emit('acme', event(40))).runs[0]?.version, 2);
      } finally {
        await keel.close();
      }
    });
  });
});

describe('the replay gate', () => {
  test('flags every divergent candidate and passes an equivalent one, calling nothing', async () => {
    await withStoreFile('keel-replay-gate', async (path) => {
      const t = desk();
      const approve = spyTool('close', { destructive: true, effect: 'write' });
      const keel = createKeel({ store: path, tools: [...Object.values(t), approve] });
      try {
        await deploy(keel, 'acme', spec());
        for (let i = 0; i < 6; i++) await keel.events.emit('acme', event(10 + i * 5));
        const calls = () => t.lookup.calls.length + t.reply.calls.length + t.refund.calls.length;
        const before = calls();
        const candidates: [string, string][] = [
          [
            'equivalent: a description and a test added',
            spec({ version: 2, tests: TESTS }).replace(
              'triggers:',
              'description: same steps, said better\ntriggers:',
            ),
          ],
          ['another argument', spec({ version: 3, extra: 7 })],
          ['a lower cap, so refusals', spec({ version: 4, cap: 20 })],
          ['another tool', spec({ version: 5 }).replace('tool: reply', 'tool: lookup')],
          ['a step fewer', spec({ version: 6 }).replace(/ {2}- \{ name: reply.*\n/, '')],
          [
            'a destructive step more',
            spec({ version: 7 }).replace('limits:', '  - { name: close, tool: close, args: {} }\nlimits:'),
          ],
        ];
        for (const [what, text] of candidates) {
          const { record } = await keel.workflows.publish(
            'acme',
            text.replace(/^status: \w+$/m, 'status: DRAFT'),
            'c.yaml',
            'dana',
          );
          await setStatus(keel, 'acme', 'refund', record.version, 'SHADOW');
          const r = await keel.lifecycle.replayGate('acme', 'refund', { version: record.version, runs: 10 });
          assert.equal(r.runs, 6, what);
          if (what.startsWith('equivalent'))
            assert.equal(r.diverged.length, 0, `${what}: ${JSON.stringify(r.diverged[0])}`);
          else if (what.startsWith('a lower cap'))
            assert.deepEqual(
              r.diverged.map((d) => d.runId).length,
              3,
              `${what}: the runs refunding over $20 would be refused (${r.diverged.map((d) => d.sentence).join('; ')})`,
            );
          else assert.equal(r.diverged.length, 6, `${what}: every run would differ`);
        }
        assert.equal(calls(), before, 'the replay gate called no tool');
        assert.equal(approve.calls.length, 0);
      } finally {
        await keel.close();
      }
    });
  });
});

describe('the replay gate compares behaviour, not names', () => {
  test("renamed steps replay clean, a person's recorded decisions served by call; a renamed step with other arguments diverges", async () => {
    await withStoreFile('keel-replay-rename', async (path) => {
      const t = desk();
      const close = spyTool('close', { destructive: true, effect: 'write' });
      const keel = createKeel({ store: path, tools: [...Object.values(t), close] });
      const withClose = (version: number, names: [string, string, string, string], reason = 'done') =>
        `id: refund
version: ${version}
status: DRAFT
triggers: [{ event: refund.requested }]
steps:
  - { name: ${names[0]}, tool: lookup, args: { order: "{{ event.subject }}" } }
  - { name: ${names[1]}, tool: reply, args: { ticket: "{{event.subject}}", total: "{{steps.${names[0]}.output.total}}" } }
  - { name: ${names[2]}, tool: refund, args: { amount: "{{event.payload.amount}}" } }
  - { name: ${names[3]}, tool: close, args: { reason: ${reason} } }
limits: { maxSteps: 5, maxCostUsd: 100 }
`;
      try {
        await deploy(
          keel,
          'acme',
          withClose(1, ['look', 'reply', 'refund', 'close']).replace('DRAFT', 'LIVE'),
        );
        // Six live runs: each waits for a person at close; four approved, two denied.
        for (let i = 0; i < 6; i++) {
          const [run] = (await keel.events.emit('acme', event(10 + i))).runs;
          assert.equal(run?.status, 'waiting_approval');
          if (i % 3 === 2) await keel.approvals.deny('acme', run!.runId, 'dana');
          else await keel.approvals.approve('acme', run!.runId, 'dana');
        }
        assert.equal(close.calls.length, 4);
        const gate = async (text: string) => {
          const { record } = await keel.workflows.publish('acme', text, 'c.yaml', 'dana');
          await setStatus(keel, 'acme', 'refund', record.version, 'SHADOW');
          return keel.lifecycle.replayGate('acme', 'refund', { version: record.version, runs: 10 });
        };
        const renamed = await gate(withClose(2, ['fetch', 'answer', 'pay', 'finish']));
        assert.equal(renamed.runs, 6);
        assert.deepEqual(
          renamed.diverged.map((d) => d.sentence),
          [],
          'every step renamed (and a reference to one of them): the same behaviour on every run',
        );
        const changed = await gate(withClose(3, ['fetch', 'answer', 'pay', 'finish'], 'resolved'));
        assert.equal(changed.diverged.length, 6, 'close with another reason differs on every run');
        assert.match(
          changed.diverged[0]!.sentence,
          /v3 would have .*close with reason="resolved" where v1 .* at step finish \(close in v1\) on T-\S+ \(reason: "resolved" instead of "done"\)/,
        );
        assert.equal(close.calls.length, 4, 'the replay gate called nothing');
      } finally {
        await keel.close();
      }
    });
  });
});

describe('traffic split and rollout', () => {
  async function rolling(path: string, failing: boolean, run: (k: Keel) => Promise<void>) {
    const t = desk();
    const flaky = spyTool('refund2', {
      effect: 'external',
      idempotent: true,
      simulate: (a) => ({ refunded: a.amount }),
      handler: () => {
        if (failing) throw new Error('the payment provider is down');
        return { refunded: true };
      },
    });
    const keel = createKeel({ store: path, tools: [...Object.values(t), flaky] });
    try {
      await deploy(keel, 'acme', spec());
      await deploy(
        keel,
        'acme',
        spec({ version: 2, status: 'SHADOW', tests: TESTS }).replace('tool: refund,', 'tool: refund2,'),
      );
      await run(keel);
    } finally {
      await keel.close();
    }
  }

  test('events split by bucket, the split recorded; a retried event lands where it landed first', async () => {
    await withStoreFile('keel-split', async (path) =>
      rolling(path, false, async (keel) => {
        await keel.lifecycle.rollout.start('acme', 'refund', 2, dana, {
          percent: 30,
          override: 'try it',
          minRuns: 1000,
        });
        const versions = new Map<number, number>();
        for (let i = 0; i < 200; i++) {
          const e = event(10, `split-${i}`);
          const [first] = (await keel.events.emit('acme', e)).runs;
          const [again] = (await keel.events.emit('acme', e)).runs;
          assert.equal(again?.runId, first?.runId, 'the same event is the same run');
          versions.set(first!.version, (versions.get(first!.version) ?? 0) + 1);
        }
        const share = (versions.get(2) ?? 0) / 200;
        assert.ok(share > 0.2 && share < 0.4, `v2 got ${share} of the events at 30%`);
        const run = (await keel.runs.list('acme', { workflowId: 'refund', version: 2, mode: 'live' }))
          .runs[0]!;
        const root = (await keel.runs.entries('acme', run.runId))[0]!.payload as {
          split?: { percent: number; from: number; to: number };
        };
        assert.deepEqual([root.split?.percent, root.split?.from, root.split?.to], [30, 1, 2]);
        // Nothing ran on v2 outside the rollout's share: the shadows stopped once it went LIVE.
        assert.equal((await keel.runs.list('acme', { mode: 'shadow' })).runs.length, 0);
      }),
    );
  });

  test('an automatic rollout rolls itself back when the new version fails more, recorded with the figures', async () => {
    await withStoreFile('keel-rollback', async (path) =>
      rolling(path, true, async (keel) => {
        await keel.lifecycle.rollout.start('acme', 'refund', 2, dana, {
          percent: 50,
          auto: true,
          minRuns: 4,
          override: 'try it',
        });
        let status = await keel.lifecycle.rollout.status('acme', 'refund');
        for (let i = 0; i < 80 && status.rollout?.status === 'active'; i++) {
          await keel.events.emit('acme', event(10));
          await keel.lifecycle.settled();
          status = await keel.lifecycle.rollout.status('acme', 'refund');
        }
        assert.equal(status.rollout?.status, 'rolled_back');
        assert.equal((await keel.workflows.get('acme', 'refund', 2))?.status, 'SHADOW');
        const { records, chain } = await keel.lifecycle.records('acme', 'refund');
        const rollback = records.at(-1)!;
        assert.equal(rollback.kind, 'rollback');
        assert.equal(rollback.by, 'keel (automatic rollout)');
        const evidence = rollback.evidence as { figures: { to: { failed: number; runs: number } } };
        assert.ok(
          evidence.figures.to.failed >= 4 && evidence.figures.to.failed === evidence.figures.to.runs,
          JSON.stringify(evidence),
        );
        assert.equal(chain.ok, true);
        assert.equal(
          (await keel.events.emit('acme', event(10))).runs[0]?.version,
          1,
          'v1 takes every event again',
        );
      }),
    );
  });

  test('a manual advance holds until each version has its runs, then steps; the last stage completes it', async () => {
    await withStoreFile('keel-advance', async (path) =>
      rolling(path, false, async (keel) => {
        await keel.lifecycle.rollout.start('acme', 'refund', 2, dana, {
          percent: 50,
          steps: [100],
          minRuns: 3,
          override: 'go',
        });
        await assert.rejects(keel.lifecycle.rollout.advance('acme', 'refund', dana), (e: unknown) => {
          assert.ok(
            isKeelError(e) &&
              e.code === 'promotion_gate_unmet' &&
              /cannot advance yet: 0 of 3 runs/.test(e.message),
            String(e),
          );
          return true;
        });
        for (let i = 0; i < 30; i++) await keel.events.emit('acme', event(10));
        const done = await keel.lifecycle.rollout.advance('acme', 'refund', dana);
        assert.equal(done.rollout.status, 'completed');
        assert.deepEqual(
          [
            (await keel.workflows.get('acme', 'refund', 1))?.status,
            (await keel.workflows.get('acme', 'refund', 2))?.status,
          ],
          ['DRAFT', 'LIVE'],
        );
        await assert.rejects(
          keel.lifecycle.rollout.advance('acme', 'refund', { by: 'bot', kind: 'service' }),
          isCode('forbidden'),
        );
      }),
    );
  });
});

describe('effect modes', () => {
  test('each decision says how its call is carried out: live (absent), simulated, live in a simulated run, recorded', async () => {
    await withStoreFile('keel-modes', async (path) => {
      const keel = createKeel({ store: path, tools: Object.values(desk()) });
      try {
        await deploy(keel, 'acme', spec({ tests: TESTS }));
        const modes = async (runId: string) =>
          (await keel.runs.entries('acme', runId))
            .filter((e) => e.kind === 'step.allowed')
            .map((e) => (e.payload as { step: string; mode?: string }).mode ?? 'absent');
        const [live] = (await keel.events.emit('acme', event(30))).runs;
        assert.deepEqual(await modes(live!.runId), ['absent', 'absent', 'absent']);
        const tested = await keel.lifecycle.test('acme', 'refund');
        assert.deepEqual(await modes(tested.tests[0]!.runId!), ['live', 'simulated', 'simulated']);
        const fork = await keel.runs.fork('acme', live!.runId, { fromSeq: 3, mode: 'replay' });
        const forked = await modes(fork.runId);
        assert.deepEqual(
          forked.slice(-2),
          ['recorded', 'recorded'],
          'after the fork point, served from the record',
        );
        // A replay of each regenerates its modes exactly.
        for (const id of [live!.runId, tested.tests[0]!.runId!, fork.runId])
          assert.equal((await keel.runs.replay('acme', id)).identical, true, id);
      } finally {
        await keel.close();
      }
    });
  });
});
