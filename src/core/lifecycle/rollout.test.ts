import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { EventRecord } from '../ledger/index.ts';
import {
  BUCKETS,
  bucketKeyOf,
  bucketOf,
  judgeRollout,
  nextStage,
  type RolloutState,
  splitChoice,
  stickyByProblem,
  versionFor,
} from './rollout.ts';

const event = (i: number, over: Partial<EventRecord> = {}): EventRecord => ({
  id: `evt-${i}`,
  type: 'refund.requested',
  tenant: 'acme',
  source: 'helpdesk',
  subject: `T-${i}`,
  payload: { amount: i % 97 },
  time: '2026-12-01T10:00:00Z',
  ...over,
});

const rollout: RolloutState = {
  from: 1,
  to: 2,
  percent: 10,
  steps: [10, 50, 100],
  auto: true,
  threshold: 0.05,
  minRuns: 20,
  startedAt: '2026-12-01T00:00:00.000Z',
  startedBy: 'dana',
  stageStartedAt: '2026-12-01T00:00:00.000Z',
  status: 'active',
};

describe('traffic split', () => {
  test('10,000 distinct events at 10% land within ±1.5 points of 10%', () => {
    let toNew = 0;
    for (let i = 0; i < 10_000; i++)
      if (versionFor(rollout, bucketOf('acme', 'refund', event(i))) === 2) toNew++;
    const share = toNew / 10_000;
    assert.ok(Math.abs(share - 0.1) <= 0.015, `share ${share}`);
  });

  test('the same event always routes to the same version, and a bucket is 0..9999 (property)', () => {
    const anEvent = fc.record({
      id: fc.string({ minLength: 1, maxLength: 20 }),
      type: fc.string({ minLength: 1, maxLength: 10 }),
      tenant: fc.constant('acme'),
      source: fc.string({ maxLength: 5 }),
      subject: fc.string({ maxLength: 10 }),
      payload: fc.dictionary(
        fc.string({ maxLength: 5 }),
        fc.oneof(fc.integer(), fc.string({ maxLength: 5 })),
      ),
      time: fc.constant('2026-12-01T10:00:00Z'),
    });
    fc.assert(
      fc.property(anEvent, fc.integer({ min: 1, max: 99 }), (e, percent) => {
        const b = bucketOf('acme', 'refund', e);
        assert.ok(Number.isInteger(b) && b >= 0 && b < BUCKETS);
        // The same content, rebuilt with its keys in another order, is the same bucket.
        const again = Object.fromEntries(Object.entries(e).reverse()) as unknown as EventRecord;
        assert.equal(bucketOf('acme', 'refund', again), b);
        const r = { ...rollout, percent };
        assert.equal(versionFor(r, b), versionFor(r, bucketOf('acme', 'refund', e)));
        // A larger share never takes an event away from the new version.
        if (versionFor(r, b) === 2)
          assert.equal(versionFor({ ...r, percent: Math.min(100, percent + 1) }, b), 2);
      }),
      { numRuns: 500 },
    );
  });

  test('the bucket depends on the tenant, the workflow and the event', () => {
    const seen = new Set([
      bucketOf('acme', 'refund', event(1)),
      bucketOf('globex', 'refund', event(1)),
      bucketOf('acme', 'close', event(1)),
    ]);
    assert.ok(seen.size >= 2, 'different inputs spread over buckets');
  });
});

describe('stickiness', () => {
  const anEvent = (subject: fc.Arbitrary<string>) =>
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 20 }),
      type: fc.string({ minLength: 1, maxLength: 10 }),
      tenant: fc.constant('acme'),
      source: fc.string({ minLength: 1, maxLength: 5 }),
      subject,
      payload: fc.dictionary(
        fc.string({ maxLength: 5 }),
        fc.oneof(fc.integer(), fc.string({ maxLength: 5 })),
      ),
      time: fc.string({ maxLength: 30 }),
    });

  test('every event of one subject, whatever else it carries, has one bucket and so one version (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.array(anEvent(fc.constant('')), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 99 }),
        (subject, events, percent) => {
          const versions = new Set(
            events.map((e) =>
              versionFor({ ...rollout, percent }, bucketOf('acme', 'refund', { ...e, subject })),
            ),
          );
          assert.equal(versions.size, 1);
          assert.equal(bucketKeyOf({ ...events[0]!, subject }), 'subject');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('payload.<field> keeps one customer together across subjects; an event without it is bucketed by (source, id) (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.integer()),
        fc.array(anEvent(fc.string({ maxLength: 8 })), { minLength: 2, maxLength: 6 }),
        (customer, events) => {
          const buckets = new Set(
            events.map((e) =>
              bucketOf(
                'acme',
                'refund',
                { ...e, payload: { ...e.payload, customer: { id: customer } } },
                'payload.customer.id',
              ),
            ),
          );
          assert.equal(buckets.size, 1);
          const e = events[0]!;
          const bare = { ...e, payload: {} };
          assert.equal(bucketKeyOf(bare, 'payload.customer.id'), 'event');
          // Bucketed by its name: its content (time, payload, subject) does not move it.
          assert.equal(
            bucketOf('acme', 'refund', bare, 'payload.customer.id'),
            bucketOf(
              'acme',
              'refund',
              { ...bare, time: 'restamped', subject: 'other' },
              'payload.customer.id',
            ),
          );
          assert.equal(
            bucketOf('acme', 'refund', bare, 'payload.customer.id'),
            bucketOf('acme', 'refund', bare, 'event'),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('an event without a subject (empty) is bucketed by its (source, id), so subjectless events still spread', () => {
    let toNew = 0;
    for (let i = 0; i < 2000; i++)
      if (
        versionFor({ ...rollout, percent: 50 }, bucketOf('acme', 'refund', event(i, { subject: '' }))) === 2
      )
        toNew++;
    assert.ok(Math.abs(toNew / 2000 - 0.5) < 0.05, `share ${toNew / 2000}`);
  });

  test('stickiness keys: subject, event and payload.<field>... with up to 8 plain fields; anything else is refused, saying why', () => {
    for (const ok of [
      'subject',
      'event',
      'payload.customer_id',
      'payload.customer.id',
      'payload.a-b.C_9',
      'payload.a.b.c.d.e.f.g.h',
    ])
      assert.equal(stickyByProblem(ok), undefined, ok);
    for (const [bad, why] of [
      ['', /expected subject, event or payload/],
      ['customer_id', /expected subject, event or payload/],
      ['payload', /expected subject, event or payload/],
      ['type', /expected subject, event or payload/],
      ['payload.', /"" is not a field name/],
      ['payload.a..b', /"" is not a field name/],
      ['payload.1x', /"1x" is not a field name/],
      ['payload.a b', /"a b" is not a field name/],
      ['payload.a.b.c.d.e.f.g.h.i', /at most 8 fields/],
      [42, /got number/],
    ] as const)
      assert.match(stickyByProblem(bad) ?? '', why, String(bad));
  });
});

describe('when the two versions’ triggers disagree', () => {
  test('an event the old version takes is never dropped; the candidate takes only what its bucket gives it (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: BUCKETS - 1 }),
        fc.integer({ min: 1, max: 99 }),
        fc.boolean(),
        fc.boolean(),
        (bucket, percent, from, to) => {
          const r = { from: 1, to: 2, percent };
          const c = splitChoice(r, bucket, { from, to });
          assert.equal(c.chosen, versionFor(r, bucket));
          if (from && to) assert.deepEqual({ ...c }, { take: c.chosen, chosen: c.chosen });
          if (!from && !to) assert.deepEqual({ ...c }, { chosen: c.chosen });
          if (from && !to) {
            assert.equal(c.take, 1, 'only the old version takes it: it does');
            assert.deepEqual(c.disagreement, { chosen: c.chosen, taken: 1 });
          }
          if (!from && to) {
            assert.equal(c.take, c.chosen === 2 ? 2 : undefined, 'the candidate only within its share');
            assert.deepEqual(c.disagreement, { chosen: c.chosen, taken: c.take ?? null });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('judging a rollout stage', () => {
  const figures = (
    to: { runs: number; refused: number; failed: number },
    from = { runs: 200, refused: 10, failed: 2 },
  ) => ({
    from,
    to,
  });

  test('holds until each version has the runs a stage needs', () => {
    const v = judgeRollout(rollout, figures({ runs: 19, refused: 0, failed: 0 }));
    assert.equal(v.verdict, 'hold');
    assert.match(v.reasons[0]!, /19 of 20 runs of v2/);
  });

  test('rolls back when a rate is worse by more than the threshold, advances otherwise', () => {
    const worse = judgeRollout(rollout, figures({ runs: 20, refused: 1, failed: 4 }));
    assert.equal(worse.verdict, 'rollback');
    assert.match(worse.reasons.join(' '), /failure rate: v2 20%/);
    const fine = judgeRollout(rollout, figures({ runs: 20, refused: 1, failed: 0 }));
    assert.equal(fine.verdict, 'advance');
    assert.equal(fine.next, 50);
    // Exactly at the threshold is not worse than it.
    assert.equal(
      judgeRollout(
        rollout,
        figures({ runs: 100, refused: 10, failed: 6 }, { runs: 100, refused: 10, failed: 1 }),
      ).verdict,
      'advance',
    );
  });

  test('stages advance in order and end at 100', () => {
    assert.equal(nextStage(rollout), 50);
    assert.equal(nextStage({ ...rollout, percent: 50 }), 100);
    assert.equal(nextStage({ ...rollout, percent: 100 }), undefined);
  });
});
