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
import { hashOf } from '../core/canonical/index.ts';
import type { AppendRequest, PendingApproval, ShadowWork, Store } from '../ports/index.ts';
import { blobRun } from './blob-contract.ts';
import { checkpointContract } from './checkpoint-contract.ts';
import { count, createRequest, SPEC, uniqueRunId, versionRecord } from './contract-fixtures.ts';
import { eventIndexContract } from './event-index-contract.ts';
import { evidenceContract } from './evidence-contract.ts';
import { idempotencyContract } from './idempotency-contract.ts';
import { isCode } from './is-code.ts';
import { keysContract } from './keys-contract.ts';
import { ledgerContract } from './ledger-contract.ts';
import { buildLedger, extendLedger, FIXED_TIME, sampleEvent } from './ledger-fixtures.ts';
import { registryContract } from './registry-contract.ts';
import { runIndexContract } from './run-index-contract.ts';
import { runSearchContract } from './run-search-contract.ts';
import { shadowQueueContract } from './shadow-queue-contract.ts';
import { timerQueueContract } from './timer-queue-contract.ts';
import { unroutedInboxContract } from './unrouted-inbox-contract.ts';
import { workQueueContract } from './work-queue-contract.ts';
import { body, storeChain, writBudgetContract } from './writ-budget-contract.ts';

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
    runSearchContract(current);
    registryContract(current);
    evidenceContract(current);
    shadowQueueContract(current, other);
    workQueueContract(current);
    timerQueueContract(current);
    keysContract(current, other);
    idempotencyContract(current, other);
    writBudgetContract(current, other);
    checkpointContract(current);
    eventIndexContract(current, other);
    unroutedInboxContract(current, other);

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

    test('an append that spans ports is one transaction: refused, it writes none of it; taken, all of it in one commit', async () => {
      const tenant = `span-${count()}`;
      const writ = await storeChain(store, tenant, [
        body(tenant, 'root', { steps: 1, calls: 1, cents: 100 }, null),
      ]);
      const entries = blobRun(tenant, 'span');
      const runId = entries[0]!.runId;
      const approval: PendingApproval = {
        tenant,
        runId,
        proposalId: hashOf({ runId, approval: 1 }),
        step: 'close',
        tool: 'close_ticket',
        args: { ticket: 'T-1' },
        reason: 'destructive',
        channel: 'cli',
        requestedAt: FIXED_TIME,
      };
      const shadow: ShadowWork = {
        tenant,
        id: hashOf({ shadow: runId }),
        workflowId: 'wf',
        version: 2,
        liveVersion: 1,
        liveRunId: runId,
        judgedAs: 'LIVE',
        event: sampleEvent({ tenant }),
        enqueuedMs: 1_000,
      };
      const append = (steps: number): AppendRequest => ({
        ...createRequest(tenant, entries),
        openApproval: approval,
        lease: { op: 'hold', owner: 'span-owner', ms: 60_000 },
        budget: { writ, reserve: { steps, calls: 0, cents: 0 } },
        shadowWork: [shadow],
      });
      const nothingWritten = async (what: string) => {
        assert.equal(await store.runs.getRun(tenant, runId), undefined, `${what}: no run row`);
        assert.deepEqual(await store.ledger.readEntries(tenant, runId), [], `${what}: no entries`);
        assert.deepEqual(await store.runs.listPendingApprovals(tenant), [], `${what}: no approval`);
        assert.equal(
          (await store.shadowQueue.shadowQueueStatus(0, { tenant })).waiting,
          0,
          `${what}: no work`,
        );
        assert.deepEqual(
          (await store.budgets.readWritBudgets(tenant, writ))!.map((u) => u.used.steps),
          [0],
        );
      };
      const before = store.stats();
      await assert.rejects(store.ledger.append(append(2)), isCode('writ_refused'));
      assert.equal(store.stats().commits, before.commits, 'a refused append commits nothing');
      await nothingWritten('refused');
      const taken = store.stats();
      await store.ledger.append(append(1));
      assert.equal(store.stats().commits - taken.commits, 1, 'one commit for every port it writes to');
      const back = await store.ledger.readEntries(tenant, runId);
      assert.deepEqual(
        back.map((e) => Buffer.from(e.payload)),
        entries.map((e) => Buffer.from(e.payload)),
      );
      assert.equal(back[1]!.v, 2, 'the blob entry, its blob linked');
      assert.equal((await store.runs.getRun(tenant, runId))?.head.seq, 1);
      assert.deepEqual(await store.runs.listPendingApprovals(tenant, runId), [approval]);
      assert.equal((await store.shadowQueue.shadowQueueStatus(0, { tenant })).waiting, 1);
      assert.deepEqual(
        (await store.budgets.readWritBudgets(tenant, writ))!.map((u) => u.used.steps),
        [1],
      );
      // The lease it holds keeps every claimer off the run, as any other.
      assert.deepEqual(await store.queue.claimRuns('span-other', 1_000, 10, Date.now(), { tenant }), []);
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
