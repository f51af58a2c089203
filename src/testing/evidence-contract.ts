/**
 * The contract of lifecycle evidence (ports/evidence.ts), bound on every adapter through
 * runStoreContract: a comparison is kept once per shadow run, and skipped shadow runs are
 * counted once per live run, against its version.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import type { Store, StoredComparison } from '../ports/index.ts';
import { run, unique } from './lifecycle-fixtures.ts';

export function evidenceContract(current: () => Store): void {
  describe('evidence', () => {
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
