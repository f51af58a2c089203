import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_GATES, effectiveGates, judgeGate, moveOf } from './gates.ts';
import { chainHead, type PromotionRecord, promotionHash, verifyPromotionChain } from './promotion-chain.ts';

const g = (from: string, to: string) =>
  ({ workflowId: 'refund', version: 2, from, to }) as Parameters<typeof judgeGate>[0];

describe('moves', () => {
  test('one step up at a time; any step down', () => {
    assert.equal(moveOf('DRAFT', 'TESTING').kind, 'promote');
    assert.equal(moveOf('LIVE', 'AUTONOMOUS').kind, 'promote');
    assert.equal(moveOf('AUTONOMOUS', 'DRAFT').kind, 'demote');
    const skip = moveOf('DRAFT', 'LIVE');
    assert.ok(skip.kind === 'invalid' && /TESTING first/.test(skip.message), JSON.stringify(skip));
    assert.equal(moveOf('LIVE', 'LIVE').kind, 'invalid');
  });
});

describe('gates', () => {
  test('to SHADOW: every test must have run and passed, and there must be enough of them', () => {
    const none = judgeGate(g('TESTING', 'SHADOW'), DEFAULT_GATES, { tests: [] });
    assert.equal(none.met, false);
    assert.deepEqual(
      none.conditions.map((c) => [c.id, c.met]),
      [
        ['tests.count', false],
        ['tests.pass', false],
      ],
    );
    const notRun = judgeGate(g('TESTING', 'SHADOW'), DEFAULT_GATES, {
      tests: [
        { name: 'a', runId: 'r1', passed: true },
        { name: 'b', runId: 'r2', passed: null },
      ],
    });
    assert.match(notRun.conditions[1]!.text, /b not run yet/);
    assert.equal(notRun.met, false);
    const failed = judgeGate(g('TESTING', 'SHADOW'), DEFAULT_GATES, {
      tests: [{ name: 'a', runId: 'r1', passed: false }],
    });
    assert.match(failed.conditions[1]!.text, /a failed/);
    const passed = judgeGate(g('TESTING', 'SHADOW'), DEFAULT_GATES, {
      tests: [{ name: 'a', runId: 'r1', passed: true }],
    });
    assert.equal(passed.met, true);
    assert.deepEqual(passed.conditions[1]!.evidence, ['r1'], 'the runs the count is made of');
  });

  test('to LIVE beside a live version: comparisons, agreement, no new refusals, a clean replay gate', () => {
    const evidence = {
      liveVersion: 1,
      comparisons: { count: 25, agreed: 24, skipped: 0, newRefusals: [], ids: [] },
      replay: { runs: 50, diverged: [] },
    };
    assert.equal(judgeGate(g('SHADOW', 'LIVE'), DEFAULT_GATES, evidence).met, true);
    const each = (over: object) =>
      judgeGate(g('SHADOW', 'LIVE'), DEFAULT_GATES, { ...evidence, ...over })
        .conditions.filter((c) => !c.met)
        .map((c) => c.id);
    assert.deepEqual(each({ comparisons: { ...evidence.comparisons, count: 19, agreed: 19 } }), [
      'shadow.comparisons',
    ]);
    assert.deepEqual(each({ comparisons: { ...evidence.comparisons, agreed: 23 } }), ['shadow.agreement']);
    assert.deepEqual(
      each({
        comparisons: {
          ...evidence.comparisons,
          newRefusals: [{ runId: 'r9', step: 'refund', code: 'policy_denied' }],
        },
      }),
      ['shadow.refusals'],
    );
    assert.deepEqual(
      each({ replay: { runs: 50, diverged: [{ runId: 'r3', sentence: 'v2 would refuse' }] } }),
      ['replay.gate'],
    );
  });

  test('an unmet gate says each refusal once: how many runs made it, and a few of them', () => {
    const newRefusals = [
      ...Array.from({ length: 35 }, (_, i) => ({
        runId: `r${i}`,
        step: 'refund',
        code: 'spend_cap_exceeded',
      })),
      { runId: 'r40', step: 'close', code: 'policy_denied' },
    ];
    const r = judgeGate(g('SHADOW', 'LIVE'), DEFAULT_GATES, {
      liveVersion: 1,
      comparisons: { count: 40, agreed: 4, skipped: 0, newRefusals, ids: [] },
      replay: { runs: 0, diverged: [] },
    });
    const c = r.conditions.find((x) => x.id === 'shadow.refusals')!;
    assert.equal(
      c.text,
      'no shadow refusal v1 did not also make: spend_cap_exceeded at step refund in 35 runs (e.g. r0, r1, r2); policy_denied at step close in 1 run (r40)',
    );
    assert.deepEqual(c.groups, [
      { what: 'spend_cap_exceeded at step refund', count: 35, examples: ['r0', 'r1', 'r2'] },
      { what: 'policy_denied at step close', count: 1, examples: ['r40'] },
    ]);
    assert.equal(c.found, 36);
  });

  test('to LIVE with no version LIVE yet: the tests again', () => {
    const r = judgeGate(g('SHADOW', 'LIVE'), DEFAULT_GATES, {
      liveVersion: null,
      tests: [{ name: 'a', runId: 'r', passed: true }],
    });
    assert.equal(r.met, true);
    assert.equal(r.conditions[0]!.id, 'live.first');
  });

  test('to AUTONOMOUS: enough live runs, and no approval denied', () => {
    const live = { count: 20, approved: 7, denied: 0, runIds: [], deniedRunIds: [] };
    assert.equal(judgeGate(g('LIVE', 'AUTONOMOUS'), DEFAULT_GATES, { liveRuns: live }).met, true);
    assert.equal(
      judgeGate(g('LIVE', 'AUTONOMOUS'), DEFAULT_GATES, { liveRuns: { ...live, count: 19 } }).met,
      false,
    );
    assert.equal(
      judgeGate(g('LIVE', 'AUTONOMOUS'), DEFAULT_GATES, { liveRuns: { ...live, denied: 1 } }).met,
      false,
    );
  });

  test('moving down has no gate', () => {
    const r = judgeGate(g('LIVE', 'SHADOW'), DEFAULT_GATES, {});
    assert.deepEqual([r.met, r.conditions.length], [true, 0]);
  });

  test("a spec's promotion: only makes the tenant's gates stricter", () => {
    const { gates, notes } = effectiveGates(DEFAULT_GATES, {
      live: { minComparisons: 100, minAgreement: 0.5 },
      autonomous: { windowDays: 60 },
    });
    assert.equal(gates.live.minComparisons, 100);
    assert.equal(
      gates.live.minAgreement,
      DEFAULT_GATES.live.minAgreement,
      'a looser agreement does not apply',
    );
    assert.equal(gates.autonomous.windowDays, 60);
    assert.match(notes.join(' '), /minAgreement 0.5 is looser than the tenant's 0.95/);
  });
});

describe('the promotion chain', () => {
  const rec = (i: number, over: Partial<PromotionRecord> = {}): PromotionRecord => ({
    tenant: 'acme',
    workflowId: 'refund',
    version: 1,
    from: 'DRAFT',
    to: 'TESTING',
    by: `p${i}`,
    at: `2026-12-0${i + 1}T00:00:00Z`,
    kind: 'promote',
    evidence: { n: i },
    ...over,
  });
  function chained(records: PromotionRecord[]): PromotionRecord[] {
    let prev = 'genesis';
    return records.map((r) => {
      const hash = promotionHash(r, prev);
      const out = { ...r, prevHash: prev, hash };
      prev = hash;
      return out;
    });
  }

  test('verifies, and catches an edit, a removal and a reordering', () => {
    const records = chained([rec(0), rec(1), rec(2)]);
    const ok = verifyPromotionChain(records);
    assert.ok(ok.ok && ok.head === chainHead(records));
    assert.equal(
      verifyPromotionChain(records.map((r, i) => (i === 1 ? { ...r, by: 'mallory' } : r))).ok,
      false,
    );
    assert.equal(
      verifyPromotionChain(records.map((r, i) => (i === 1 ? { ...r, evidence: { n: 9 } } : r))).ok,
      false,
    );
    assert.equal(
      verifyPromotionChain(records.map((r, i) => (i === 2 ? { ...r, override: { reason: 'x' } } : r))).ok,
      false,
    );
    assert.equal(verifyPromotionChain([records[0]!, records[2]!]).ok, false, 'a record taken out');
    assert.equal(verifyPromotionChain([records[1]!, records[0]!, records[2]!]).ok, false, 'reordered');
  });

  test('records from before the chain are hashed in place, and may only come first', () => {
    const legacy = [rec(0, { kind: undefined, evidence: undefined })];
    let prev = chainHead(legacy);
    const after = [rec(1), rec(2)].map((r) => {
      const hash = promotionHash(r, prev);
      const out = { ...r, prevHash: prev, hash };
      prev = hash;
      return out;
    });
    const r = verifyPromotionChain([...legacy, ...after]);
    assert.ok(r.ok && r.unchained === 1, JSON.stringify(r));
    // An edit of the legacy record breaks the link the next record holds.
    assert.equal(verifyPromotionChain([{ ...legacy[0]!, by: 'mallory' }, ...after]).ok, false);
    assert.equal(verifyPromotionChain([...after, ...legacy]).ok, false);
  });
});
