import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { type RolloutState, verifyPromotionChain } from '../core/lifecycle/index.ts';
import type { Store } from '../ports/index.ts';
import { count, versionRecord } from './contract-fixtures.ts';
import { isCode } from './is-code.ts';
import { move, twoVersions, unique } from './lifecycle-fixtures.ts';

export function registryContract(current: () => Store): void {
  describe('registry', () => {
    test('keeps published versions immutable and records promotions', async () => {
      const store = current();
      const tenant = `wf-${count()}`;
      const v1 = versionRecord(tenant, 1);
      assert.equal((await store.registry.putVersion(v1)).created, true);
      assert.equal((await store.registry.putVersion(v1)).created, false);
      await assert.rejects(
        store.registry.putVersion({ ...v1, specHash: hashOf('other') }),
        isCode('version_immutable'),
      );
      assert.equal((await store.registry.getVersion(tenant, 'wf', 1))?.specHash, v1.specHash);
      assert.deepEqual((await store.registry.getVersion(tenant, 'wf', 1))?.spec, v1.spec);
      await store.registry.putVersion(versionRecord(tenant, 2));
      assert.equal((await store.registry.getVersion(tenant, 'wf'))?.version, 2);
      assert.deepEqual(
        (await store.registry.listVersions(tenant)).map((v) => v.version),
        [1, 2],
      );
      await store.registry.setVersionStatus({
        tenant,
        workflowId: 'wf',
        version: 1,
        from: 'DRAFT',
        to: 'LIVE',
        by: 'alice',
        at: '2026-01-02T00:00:00.000Z',
      });
      assert.equal((await store.registry.getVersion(tenant, 'wf', 1))?.status, 'LIVE');
      await assert.rejects(
        store.registry.setVersionStatus({
          tenant,
          workflowId: 'wf',
          version: 1,
          from: 'DRAFT',
          to: 'AUTONOMOUS',
          by: 'bob',
          at: '2026-01-03T00:00:00.000Z',
        }),
        isCode('head_conflict'),
      );
      const promotions = await store.registry.listPromotions(tenant, 'wf');
      assert.deepEqual(
        promotions.map((p) => [p.from, p.to, p.by]),
        [['DRAFT', 'LIVE', 'alice']],
      );
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
  });
}
