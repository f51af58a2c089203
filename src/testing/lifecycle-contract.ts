/**
 * The Store contract for the lifecycle (docs/lifecycle.md), bound by every adapter through
 * runStoreContract: lifecycle records chained per workflow and applied with their status changes
 * and rollout state all or nothing; comparisons and skipped shadows kept once; run rows carrying
 * a simulated run's mode; counts by status, version, mode and time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import {
  chainEntry,
  type EntryKind,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import { type RolloutState, verifyPromotionChain } from '../core/lifecycle/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type { NewPromotion, Store, StoredComparison } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${n++}-${Math.random().toString(16).slice(2, 8)}`;
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;

const SPEC: WorkflowSpec = {
  id: 'wf',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'go' }],
  steps: [{ name: 'a', tool: 'noop', args: {} }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
};

async function twoVersions(store: Store, tenant: string): Promise<void> {
  for (const version of [1, 2])
    await store.registry.putVersion({
      tenant,
      workflowId: 'wf',
      version,
      specHash: hashOf({ ...SPEC, version }),
      spec: { ...SPEC, version },
      status: 'DRAFT',
      publishedAt: '2026-01-01T00:00:00.000Z',
      publishedBy: 'alice',
    });
}

const move = (tenant: string, version: number, from: string, to: string, at: string): NewPromotion =>
  ({ tenant, workflowId: 'wf', version, from, to, by: 'dana', at, kind: 'promote' }) as NewPromotion;

/** A run row created with a mode, at a chosen time and ending in a chosen status. */
async function run(
  store: Store,
  tenant: string,
  o: {
    at: string;
    version?: number;
    mode?: 'test' | 'shadow';
    shadowOf?: string;
    status?: 'running' | 'completed' | 'failed';
  },
): Promise<string> {
  const runId = hashOf({ unique: unique('run') });
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant,
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      status: 'LIVE',
      event: sampleEvent({ tenant }),
      engine: 'keel/test',
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
    },
    o.at,
  ).stored;
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries: [root],
    status: o.status ?? 'running',
    create: {
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      eventId: 'e',
      eventType: 'go',
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
    },
  });
  return runId;
}

/**
 * A finished run whose root says how it was started, with a person's decision on each approval in
 * `decisions` (approved or denied, in order).
 */
async function decidedRun(
  store: Store,
  tenant: string,
  o: {
    at: string;
    version?: number;
    root?: Record<string, unknown>;
    mode?: 'test' | 'shadow';
    decisions?: readonly ('approved' | 'denied')[];
    status?: 'completed' | 'refused' | 'running';
  },
): Promise<string> {
  const runId = hashOf({ unique: unique('run') });
  const entries: StoredEntry[] = [];
  let prev: Head | null = null;
  const add = <K extends EntryKind>(kind: K, payload: PayloadOf<K>) => {
    const { stored } = chainEntry(runId, prev, kind, payload, o.at);
    entries.push(stored);
    prev = { seq: stored.seq, hash: stored.hash };
  };
  add('run.started', {
    tenant,
    workflowId: 'wf',
    version: o.version ?? 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
    ...(o.mode ? { mode: o.mode } : {}),
    ...o.root,
  } as PayloadOf<'run.started'>);
  (o.decisions ?? []).forEach((decision, i) => {
    const proposalId = hashOf({ runId, i });
    add('approval.requested', {
      step: `s${i}`,
      tool: 'close',
      proposalId,
      args: {},
      costCents: 0,
      reason: 'destructive',
      channel: 'cli',
    });
    add('approval.resolved', { proposalId, decision, by: 'dana' });
  });
  const status = o.status ?? (o.decisions?.includes('denied') ? 'refused' : 'completed');
  if (status !== 'running') add('run.finished', { status, outputs: {} });
  await store.ledger.append({
    tenant,
    runId,
    expectedHead: null,
    entries,
    status,
    create: {
      workflowId: 'wf',
      version: o.version ?? 1,
      specHash: hashOf('spec'),
      eventId: 'e',
      eventType: 'go',
      ...(o.mode ? { mode: o.mode } : {}),
    },
  });
  return runId;
}

export function lifecycleContract(current: () => Store): void {
  describe('lifecycle', () => {
    test('tallyLiveRuns counts every live run of a version in a window and every decision in them, however many', async () => {
      const store = current();
      const tenant = unique('t');
      const at = (s: number) =>
        `2026-01-01T00:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
      // 10 runs a person denied, then 100 approved ones: all in the window, all counted.
      const denied: string[] = [];
      for (let i = 0; i < 10; i++)
        denied.push(await decidedRun(store, tenant, { at: at(10 + i), decisions: ['denied'] }));
      const approved: string[] = [];
      for (let i = 0; i < 100; i++)
        approved.push(
          await decidedRun(store, tenant, { at: at(100 + i), decisions: ['approved', 'approved'] }),
        );
      // None of these counts: before the window, another version, another tenant, a fork, a re-run,
      // a run started while the version was a DRAFT, a shadow, a test, one still running.
      await decidedRun(store, tenant, { at: at(1), decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(300), version: 2, decisions: ['denied'] });
      await decidedRun(store, unique('other'), { at: at(300), decisions: ['denied'] });
      const forkOf = { runId: denied[0]!, fromSeq: 1, mode: 'branch' };
      await decidedRun(store, tenant, { at: at(301), root: { forkOf }, decisions: ['denied'] });
      await decidedRun(store, tenant, {
        at: at(302),
        root: { attemptOf: denied[0], attempt: 2 },
        decisions: ['denied'],
      });
      await decidedRun(store, tenant, { at: at(303), root: { status: 'DRAFT' }, decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(304), mode: 'shadow', decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(305), mode: 'test', decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(306), status: 'running' });
      const autonomous = await decidedRun(store, tenant, { at: at(307), root: { status: 'AUTONOMOUS' } });
      const tally = await store.runs.tallyLiveRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        since: at(5),
        examples: 3,
      });
      assert.deepEqual(
        { ...tally, runIds: tally.runIds.length },
        {
          runs: 111,
          approved: 200,
          denied: 10,
          runIds: 3,
          deniedRunIds: [denied[9], denied[8], denied[7]],
        },
      );
      assert.deepEqual(tally.runIds, [autonomous, approved[99], approved[98]], 'newest first');
      const none = await store.runs.tallyLiveRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        since: at(400),
        examples: 3,
      });
      assert.deepEqual(none, { runs: 0, approved: 0, denied: 0, runIds: [], deniedRunIds: [] });
    });

    test('records chain per workflow, with their evidence; a status that moved meanwhile writes nothing', async () => {
      const store = current();
      const tenant = unique('t');
      await twoVersions(store, tenant);
      const evidence = { conditions: [{ id: 'tests.pass', met: true }] };
      const [first] = await store.registry.recordLifecycle({
        tenant,
        workflowId: 'wf',
        records: [{ ...move(tenant, 1, 'DRAFT', 'TESTING', '2026-01-02T00:00:00.000Z'), evidence }],
      });
      assert.equal(first?.prevHash, 'genesis');
      await store.registry.recordLifecycle({
        tenant,
        workflowId: 'wf',
        records: [
          {
            ...move(tenant, 1, 'TESTING', 'SHADOW', '2026-01-03T00:00:00.000Z'),
            override: { reason: 'hotfix' },
          },
        ],
      });
      // Two moves of one version in one change: the second fails, so neither is written.
      await assert.rejects(
        store.registry.recordLifecycle({
          tenant,
          workflowId: 'wf',
          records: [
            move(tenant, 2, 'DRAFT', 'TESTING', '2026-01-04T00:00:00.000Z'),
            move(tenant, 1, 'TESTING', 'LIVE', '2026-01-04T00:00:00.000Z'),
          ],
        }),
        isCode('head_conflict'),
      );
      assert.equal(
        (await store.registry.getVersion(tenant, 'wf', 2))?.status,
        'DRAFT',
        'nothing of it applied',
      );
      const records = await store.registry.listPromotions(tenant, 'wf');
      assert.deepEqual(
        records.map((r) => [r.version, r.from, r.to]),
        [
          [1, 'DRAFT', 'TESTING'],
          [1, 'TESTING', 'SHADOW'],
        ],
      );
      assert.deepEqual(records[0]?.evidence, evidence);
      assert.deepEqual(records[1]?.override, { reason: 'hotfix' });
      assert.equal(records[1]?.prevHash, records[0]?.hash);
      assert.equal(verifyPromotionChain(records).ok, true);
      // An edited record no longer verifies.
      const edited = records.map((r, i) => (i === 0 ? { ...r, by: 'mallory' } : r));
      const v = verifyPromotionChain(edited);
      assert.ok(!v.ok && v.index === 0, JSON.stringify(v));
    });

    test('concurrent records on one workflow never both follow the same record', async () => {
      const store = current();
      const tenant = unique('t');
      await twoVersions(store, tenant);
      const results = await Promise.allSettled([
        store.registry.recordLifecycle({
          tenant,
          workflowId: 'wf',
          records: [move(tenant, 1, 'DRAFT', 'TESTING', '2026-01-02T00:00:00.000Z')],
        }),
        store.registry.recordLifecycle({
          tenant,
          workflowId: 'wf',
          records: [move(tenant, 2, 'DRAFT', 'TESTING', '2026-01-02T00:00:00.000Z')],
        }),
      ]);
      assert.ok(
        results.every((r) => r.status === 'fulfilled'),
        JSON.stringify(results),
      );
      const records = await store.registry.listPromotions(tenant, 'wf');
      assert.equal(records.length, 2);
      assert.equal(verifyPromotionChain(records).ok, true, 'one chain, not a fork');
    });

    test('a rollout changes only at the revision it was read at', async () => {
      const store = current();
      const tenant = unique('t');
      await twoVersions(store, tenant);
      const state: RolloutState = {
        from: 1,
        to: 2,
        percent: 10,
        steps: [10, 50, 100],
        auto: false,
        threshold: 0.05,
        minRuns: 20,
        startedAt: '2026-01-02T00:00:00.000Z',
        startedBy: 'dana',
        stageStartedAt: '2026-01-02T00:00:00.000Z',
        status: 'active',
      };
      assert.equal(await store.registry.getRollout(tenant, 'wf'), undefined);
      await store.registry.recordLifecycle({
        tenant,
        workflowId: 'wf',
        records: [{ ...move(tenant, 2, 'DRAFT', 'LIVE', '2026-01-02T00:00:00.000Z'), kind: 'rollout' }],
        rollout: { state, expectedRev: null },
      });
      const stored = await store.registry.getRollout(tenant, 'wf');
      assert.deepEqual(stored, { state, rev: 1 });
      const advance = { ...state, percent: 50 };
      const record = {
        ...move(tenant, 2, 'LIVE', 'LIVE', '2026-01-03T00:00:00.000Z'),
        kind: 'rollout' as const,
      };
      await store.registry.recordLifecycle({
        tenant,
        workflowId: 'wf',
        records: [record],
        rollout: { state: advance, expectedRev: 1 },
      });
      await assert.rejects(
        store.registry.recordLifecycle({
          tenant,
          workflowId: 'wf',
          records: [record],
          rollout: { state, expectedRev: 1 },
        }),
        isCode('head_conflict'),
      );
      assert.deepEqual(await store.registry.getRollout(tenant, 'wf'), { state: advance, rev: 2 });
      assert.equal(
        (await store.registry.listPromotions(tenant, 'wf')).length,
        2,
        'the refused advance left no record',
      );
    });

    test('runs carry their mode; counts and listings filter by mode, version and time', async () => {
      const store = current();
      const tenant = unique('t');
      const live = await run(store, tenant, { at: '2026-01-01T00:00:01.000Z', status: 'completed' });
      await run(store, tenant, { at: '2026-01-01T00:00:02.000Z', status: 'failed' });
      await run(store, tenant, { at: '2026-01-01T00:00:03.000Z', version: 2, status: 'completed' });
      const shadow = await run(store, tenant, {
        at: '2026-01-01T00:00:04.000Z',
        version: 2,
        mode: 'shadow',
        shadowOf: live,
      });
      await run(store, tenant, { at: '2026-01-01T00:00:05.000Z', mode: 'test', status: 'completed' });
      const row = await store.runs.getRun(tenant, shadow);
      assert.deepEqual([row?.mode, row?.shadowOf], ['shadow', live]);
      assert.equal((await store.runs.getRun(tenant, live))?.mode, undefined);
      assert.deepEqual(await store.runs.countRuns(tenant, { workflowId: 'wf', version: 1, mode: 'live' }), {
        completed: 1,
        failed: 1,
      });
      assert.deepEqual(await store.runs.countRuns(tenant, { workflowId: 'wf', mode: 'shadow' }), {
        running: 1,
      });
      assert.deepEqual(
        await store.runs.countRuns(tenant, {
          workflowId: 'wf',
          mode: 'live',
          since: '2026-01-01T00:00:02.000Z',
        }),
        { completed: 1, failed: 1 },
      );
      const tests = await store.runs.listRuns(tenant, { mode: 'test' });
      assert.deepEqual(
        tests.runs.map((r) => r.mode),
        ['test'],
      );
      assert.equal((await store.runs.listRuns(tenant, { mode: 'live' })).runs.length, 3);
      assert.equal((await store.runs.listRuns(tenant, { workflowId: 'wf', version: 2 })).runs.length, 2);
    });

    test('a comparison is kept once; skipped shadows are counted once per live run, against its version', async () => {
      const store = current();
      const tenant = unique('t');
      const liveV1 = await run(store, tenant, { at: '2026-01-01T00:00:00.000Z', version: 1 });
      const liveV3 = await run(store, tenant, { at: '2026-01-03T00:00:00.000Z', version: 3 });
      const c: StoredComparison = {
        tenant,
        workflowId: 'wf',
        shadowRunId: hashOf(unique('shadow')),
        liveRunId: liveV1,
        shadowVersion: 2,
        liveVersion: 1,
        agree: false,
        comparison: {
          agree: false,
          steps: [],
          status: { live: 'completed', candidate: 'refused', same: false },
          newRefusals: [{ step: 'a', code: 'spend_cap_exceeded' }],
          sentences: ['v2 would refuse'],
        },
        createdAt: '2026-01-01T00:00:01.000Z',
      };
      assert.equal(await store.evidence.putComparison(c), true);
      assert.equal(await store.evidence.putComparison({ ...c, agree: true }), false, 'never replaced');
      assert.deepEqual(await store.evidence.listComparisons(tenant, 'wf', 2), [c]);
      assert.deepEqual(
        await store.evidence.listComparisons(tenant, 'wf', 2, { since: '2026-01-02T00:00:00.000Z' }),
        [],
      );
      assert.deepEqual(await store.evidence.listComparisons(tenant, 'wf', 3), []);
      // Where the live version did not start on the event, there is no live run to name.
      const alone: StoredComparison = {
        ...c,
        shadowRunId: hashOf(unique('alone')),
        comparison: { ...c.comparison, starts: { live: false, candidate: true } },
        createdAt: '2026-01-01T00:00:02.000Z',
      };
      delete (alone as { liveRunId?: string }).liveRunId;
      assert.equal(await store.evidence.putComparison(alone), true);
      assert.deepEqual(await store.evidence.listComparisons(tenant, 'wf', 2), [c, alone]);
      const skip = {
        tenant,
        workflowId: 'wf',
        version: 2,
        liveRunId: liveV1,
        reason: 'limit',
        at: c.createdAt,
      };
      await store.evidence.recordShadowSkip(skip);
      await store.evidence.recordShadowSkip(skip);
      await store.evidence.recordShadowSkip({ ...skip, liveRunId: liveV3, at: '2026-01-03T00:00:01.000Z' });
      await store.evidence.recordShadowSkip({
        ...skip,
        liveRunId: hashOf(unique('gone')),
        at: '2026-01-03T00:00:02.000Z',
      });
      // Each skip is counted against the version of the live run it was skipped beside.
      assert.deepEqual(await store.evidence.shadowSkips(tenant, 'wf', 2), [
        { liveVersion: 1, count: 1 },
        { liveVersion: 3, count: 1 },
        { liveVersion: null, count: 1 },
      ]);
      assert.deepEqual(await store.evidence.shadowSkips(tenant, 'wf', 2, '2026-01-02T00:00:00.000Z'), [
        { liveVersion: 3, count: 1 },
        { liveVersion: null, count: 1 },
      ]);
      assert.deepEqual(await store.evidence.shadowSkips(unique('other'), 'wf', 2), []);
    });
  });
}
