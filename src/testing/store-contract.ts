/**
 * The Store contract: every adapter binds it in a few lines (`runStoreContract`), which runs the
 * contract of each port (docs/storage.md) on one store and a second handle on it, so the SQLite
 * and PostgreSQL stores are held to the same behaviour: the ledger (ledger-contract.ts), the run
 * index, the registry, lifecycle evidence, the shadow queue, the work queue, keys, idempotency
 * records, writ budgets, checkpoints and the event index; and, across ports, tenant isolation,
 * bounds on every store's integers, and the commits it counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../ports/index.ts';
import { checkpointContract } from './checkpoint-contract.ts';
import { createRequest, SPEC, uniqueRunId, versionRecord } from './contract-fixtures.ts';
import { eventIndexContract } from './event-index-contract.ts';
import { evidenceContract } from './evidence-contract.ts';
import { idempotencyContract } from './idempotency-contract.ts';
import { isCode } from './is-code.ts';
import { keysContract } from './keys-contract.ts';
import { ledgerContract } from './ledger-contract.ts';
import { buildLedger, extendLedger } from './ledger-fixtures.ts';
import { registryContract } from './registry-contract.ts';
import { runIndexContract } from './run-index-contract.ts';
import { shadowQueueContract } from './shadow-queue-contract.ts';
import { workQueueContract } from './work-queue-contract.ts';
import { writBudgetContract } from './writ-budget-contract.ts';

export interface StoreFactory {
  /** A fresh, empty store. */
  open(): Promise<Store>;
  /**
   * A second handle on the store `open` made (another connection, another pool), to check that
   * claims are atomic across handles as they must be across processes.
   */
  openAnother?(): Promise<Store>;
  /** Drop whatever `open` created. */
  cleanup?(): Promise<void>;
}

export function runStoreContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let another: Store | undefined;
    before(async () => {
      store = await factory.open();
      another = await factory.openAnother?.();
    });
    after(async () => {
      await another?.close();
      await store.close();
      await factory.cleanup?.();
    });
    const current = () => store;
    const other = factory.openAnother ? () => another! : undefined;

    ledgerContract(current, other);
    runIndexContract(current);
    registryContract(current);
    evidenceContract(current);
    shadowQueueContract(current, other);
    workQueueContract(current);
    keysContract(current, other);
    idempotencyContract(current, other);
    writBudgetContract(current, other);
    checkpointContract(current);
    eventIndexContract(current, other);

    test('a version or seq past 2^31 - 1 is a usage error naming the field, on every store (issue 26)', async () => {
      const over = 2_147_483_648;
      const usage = (field: string) => (e: unknown) =>
        isCode('usage')(e) && (e as { details: { field?: unknown } }).details.field === field;
      await assert.rejects(store.registry.putVersion(versionRecord('int-bound', over)), usage('version'));
      await assert.rejects(store.registry.getVersion('int-bound', SPEC.id, over), usage('version'));
      await assert.rejects(store.runs.listRuns('int-bound', { version: over }), usage('version'));
      await assert.rejects(store.runs.countRuns('int-bound', { version: over }), usage('version'));
      await assert.rejects(
        store.ledger.readEntries('int-bound', uniqueRunId('int-bound'), over),
        usage('fromSeq'),
      );
      assert.equal(await store.registry.getVersion('int-bound', SPEC.id), undefined, 'nothing was stored');
      // The largest value is in range: read as any other (nothing there).
      assert.equal(await store.registry.getVersion('int-bound', SPEC.id, over - 1), undefined);
      assert.deepEqual(await store.ledger.readEntries('int-bound', uniqueRunId('int-bound'), over - 1), []);
    });

    test('isolates tenants: another tenant sees no run, entries, approvals or versions', async () => {
      const runId = uniqueRunId('tenant');
      await store.ledger.append(createRequest('alpha', buildLedger(runId, 1, 'alpha')));
      assert.equal(await store.runs.getRun('beta', runId), undefined);
      assert.deepEqual(await store.ledger.readEntries('beta', runId), []);
      assert.deepEqual((await store.runs.listRuns('beta')).runs, []);
      assert.ok((await store.runs.listRuns('alpha')).runs.some((r) => r.runId === runId));
      await assert.rejects(
        store.ledger.append({
          tenant: 'beta',
          runId,
          expectedHead: { seq: 2, hash: (await store.runs.getRun('alpha', runId))!.head.hash },
          entries: extendLedger(runId, (await store.ledger.readEntries('alpha', runId))[2]!, 1),
          status: 'running',
        }),
        isCode('head_conflict'),
      );
      await store.registry.putVersion(versionRecord('alpha', 1));
      assert.equal(await store.registry.getVersion('beta', 'wf', 1), undefined);
      assert.deepEqual(await store.registry.listVersions('beta'), []);
    });

    test('counts durable commits', async () => {
      const before = store.stats();
      const runId = uniqueRunId('stats');
      await store.ledger.append(createRequest('t1', buildLedger(runId, 1)));
      const after = store.stats();
      assert.ok(after.commits > before.commits);
      assert.equal(after.entriesAppended - before.entriesAppended, 3);
    });
  });
}
