/**
 * The Store contract: every adapter binds this suite in a few lines (`runStoreContract`), so the
 * SQLite and PostgreSQL stores are held to the same behaviour: atomic appends with an expected
 * head, unique (run, seq), byte-exact entries, tenant isolation, immutable versions, approvals as
 * projections written with their entries; for workers, leases and heartbeats
 * (lease-contract.ts); for `keel serve`, API keys and idempotency records
 * (keys-idempotency-contract.ts); writ budgets shared across runs (writ-budget-contract.ts);
 * blobs (blob-contract.ts); the shadow queue (shadow-queue-contract.ts); the event index
 * (event-index-contract.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { chainEntry, type StoredEntry } from '../core/ledger/index.ts';
import type { WorkflowSpec } from '../core/spec/index.ts';
import type { AppendRequest, PendingApproval, Store, VersionRecord } from '../ports/index.ts';
import { appendNotificationContract } from './append-notification-contract.ts';
import { auditQueryContract } from './audit-query-contract.ts';
import { blobContract } from './blob-contract.ts';
import { checkpointContract } from './checkpoint-contract.ts';
import { eventIndexContract } from './event-index-contract.ts';
import { keysIdempotencyContract } from './keys-idempotency-contract.ts';
import { leaseContract } from './lease-contract.ts';
import { buildLedger, extendLedger, FIXED_TIME, sampleEvent } from './ledger-fixtures.ts';
import { lifecycleContract } from './lifecycle-contract.ts';
import { shadowQueueContract } from './shadow-queue-contract.ts';
import { writBudgetContract } from './writ-budget-contract.ts';
import { writTrustContract } from './writ-trust-contract.ts';

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

let counter = 0;
const uniqueRunId = (label: string) => hashOf({ label, n: counter++, salt: Math.random() });

function createRequest(tenant: string, entries: StoredEntry[], runId = entries[0]!.runId): AppendRequest {
  return {
    tenant,
    runId,
    expectedHead: null,
    entries,
    status: 'running',
    create: {
      workflowId: 'wf',
      version: 1,
      specHash: hashOf('spec'),
      eventId: 'evt-1',
      eventType: 'refund.requested',
    },
  };
}

const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;

const SPEC: WorkflowSpec = {
  id: 'wf',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'refund.requested' }],
  steps: [{ name: 'a', tool: 'noop', args: {} }],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};

function versionRecord(tenant: string, version: number, spec: WorkflowSpec = SPEC): VersionRecord {
  return {
    tenant,
    workflowId: spec.id,
    version,
    specHash: hashOf({ ...spec, version }),
    spec: { ...spec, version },
    status: spec.status,
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'alice',
  };
}

/** A run root at a chosen time, so listings have distinct creation times. */
function rootAt(runId: string, tenant: string, at: string): StoredEntry {
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE' as const,
    event: sampleEvent({ tenant }),
    engine: 'keel/test',
  };
  return chainEntry(runId, null, 'run.started', payload, at).stored;
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

    leaseContract(() => store);
    keysIdempotencyContract(() => store, factory.openAnother ? () => another! : undefined);
    writTrustContract(() => store, factory.openAnother ? () => another! : undefined);
    writBudgetContract(() => store, factory.openAnother ? () => another! : undefined);
    appendNotificationContract(() => store, factory.openAnother ? () => another! : undefined);
    lifecycleContract(() => store);
    shadowQueueContract(() => store, factory.openAnother ? () => another! : undefined);
    auditQueryContract(() => store);
    checkpointContract(() => store);
    blobContract(() => store);
    eventIndexContract(() => store, factory.openAnother ? () => another! : undefined);

    test('creates a run and reads back byte-identical entries in seq order', async () => {
      const runId = uniqueRunId('create');
      const ledger = buildLedger(runId, 3, 't1');
      const head = await store.ledger.append(createRequest('t1', ledger));
      assert.deepEqual(head, { seq: 6, hash: ledger[6]!.hash });
      const run = await store.runs.getRun('t1', runId);
      assert.equal(run?.status, 'running');
      assert.deepEqual(run?.head, head);
      const back = await store.ledger.readEntries('t1', runId);
      assert.equal(back.length, 7);
      back.forEach((e, i) => {
        const want = ledger[i]!;
        assert.equal(e.seq, want.seq);
        assert.equal(e.hash, want.hash);
        assert.equal(e.prevHash, want.prevHash);
        assert.equal(e.kind, want.kind);
        assert.equal(e.at, want.at);
        assert.deepEqual(Buffer.from(e.payload), Buffer.from(want.payload));
      });
      assert.deepEqual(
        (await store.ledger.readEntries('t1', runId, 5)).map((e) => e.seq),
        [5, 6],
      );
      // Pages: a limit bounds how many entries one read returns.
      assert.deepEqual(
        (await store.ledger.readEntries('t1', runId, 2, 3)).map((e) => e.seq),
        [2, 3, 4],
      );
      assert.deepEqual(
        (await store.ledger.readEntries('t1', runId, 6, 100)).map((e) => e.seq),
        [6],
      );
    });

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

    test('appends after the expected head and refuses a stale head, writing nothing', async () => {
      const runId = uniqueRunId('stale');
      const ledger = buildLedger(runId, 1);
      await store.ledger.append(createRequest('t1', ledger));
      const more = extendLedger(runId, ledger[2]!, 2);
      const head = await store.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: { seq: 2, hash: ledger[2]!.hash },
        entries: more,
        status: 'completed',
      });
      assert.equal(head.seq, 4);
      const stale = extendLedger(runId, ledger[2]!, 1);
      await assert.rejects(
        store.ledger.append({
          tenant: 't1',
          runId,
          expectedHead: { seq: 2, hash: ledger[2]!.hash },
          entries: stale,
          status: 'failed',
        }),
        isCode('head_conflict'),
      );
      assert.equal((await store.ledger.readEntries('t1', runId)).length, 5);
      assert.equal((await store.runs.getRun('t1', runId))?.status, 'completed');
    });

    test('refuses to create a run that exists', async () => {
      const runId = uniqueRunId('dup');
      const ledger = buildLedger(runId, 0);
      await store.ledger.append(createRequest('t1', ledger));
      await assert.rejects(
        store.ledger.append(createRequest('t1', buildLedger(runId, 1))),
        isCode('head_conflict'),
      );
      assert.equal((await store.ledger.readEntries('t1', runId)).length, 1);
    });

    test('of concurrent appends at one head exactly one wins', async () => {
      const runId = uniqueRunId('race');
      const ledger = buildLedger(runId, 0);
      await store.ledger.append(createRequest('t1', ledger));
      // Five writers each build a different, valid entry at seq 1.
      const contenders = Array.from(
        { length: 5 },
        (_, i) =>
          chainEntry(
            runId,
            { seq: 0, hash: ledger[0]!.hash },
            'step.completed',
            {
              step: 's',
              tool: 'noop',
              proposalId: hashOf(i),
              output: i,
              costCents: 0,
            },
            FIXED_TIME,
          ).stored,
      );
      const results = await Promise.allSettled(
        contenders.map((entry) =>
          store.ledger.append({
            tenant: 't1',
            runId,
            expectedHead: { seq: 0, hash: ledger[0]!.hash },
            entries: [entry],
            status: 'running',
          }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.ok(
        results
          .filter((r) => r.status === 'rejected')
          .every((r) => isCode('head_conflict')((r as PromiseRejectedResult).reason)),
      );
      assert.deepEqual(
        (await store.ledger.readEntries('t1', runId)).map((e) => e.seq),
        [0, 1],
      );
    });

    test('refuses entries that do not continue the chain', async () => {
      const runId = uniqueRunId('gap');
      const ledger = buildLedger(runId, 2);
      await assert.rejects(store.ledger.append(createRequest('t1', [ledger[0]!, ledger[2]!])));
      assert.equal(await store.runs.getRun('t1', runId), undefined);
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

    test('opens and closes pending approvals with the entries that cause them', async () => {
      const runId = uniqueRunId('approval');
      const ledger = buildLedger(runId, 1);
      const proposalId = hashOf({ runId, p: 1 });
      const approval: PendingApproval = {
        tenant: 't1',
        runId,
        proposalId,
        step: 'close',
        tool: 'close_ticket',
        args: { ticket_id: 'T-1' },
        reason: 'destructive',
        channel: 'cli',
        requestedAt: '2026-01-01T00:00:00.000Z',
      };
      await store.ledger.append({
        ...createRequest('t1', ledger),
        status: 'waiting_approval',
        openApproval: approval,
      });
      assert.deepEqual(await store.runs.listPendingApprovals('t1', runId), [approval]);
      assert.ok((await store.runs.listPendingApprovals('t1')).some((a) => a.runId === runId));
      assert.deepEqual(await store.runs.listPendingApprovals('t2'), []);
      // A stale append that would close it changes nothing.
      await assert.rejects(
        store.ledger.append({
          tenant: 't1',
          runId,
          expectedHead: { seq: 1, hash: ledger[1]!.hash },
          entries: extendLedger(runId, ledger[1]!, 1),
          status: 'running',
          closeApproval: proposalId,
        }),
      );
      assert.equal((await store.runs.listPendingApprovals('t1', runId)).length, 1);
      await store.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: { seq: 2, hash: ledger[2]!.hash },
        entries: extendLedger(runId, ledger[2]!, 1),
        status: 'running',
        closeApproval: proposalId,
      });
      assert.deepEqual(await store.runs.listPendingApprovals('t1', runId), []);
    });

    test('lists runs newest first with filters and a cursor', async () => {
      const tenant = `list-${counter++}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const runId = uniqueRunId('list');
        ids.push(runId);
        const entries = buildLedger(runId, 0, tenant).map((e) => e);
        await store.ledger.append({
          ...createRequest(tenant, entries),
          status: i % 2 === 0 ? 'completed' : 'refused',
        });
      }
      const page1 = await store.runs.listRuns(tenant, { limit: 2 });
      assert.equal(page1.runs.length, 2);
      assert.ok(page1.next);
      const page2 = await store.runs.listRuns(tenant, { limit: 2, cursor: page1.next });
      const page3 = await store.runs.listRuns(tenant, { limit: 2, cursor: page2.next });
      const all = [...page1.runs, ...page2.runs, ...page3.runs].map((r) => r.runId);
      assert.equal(new Set(all).size, 5);
      assert.equal(page3.next, undefined);
      assert.equal((await store.runs.listRuns(tenant, { status: 'refused' })).runs.length, 2);
      assert.equal((await store.runs.listRuns(tenant, { workflowId: 'nope' })).runs.length, 0);
      await assert.rejects(store.runs.listRuns(tenant, { cursor: 'garbage' }), isCode('usage'));
    });

    test('keeps published versions immutable and records promotions', async () => {
      const tenant = `wf-${counter++}`;
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

    test('counts durable commits', async () => {
      const before = store.stats();
      const runId = uniqueRunId('stats');
      await store.ledger.append(createRequest('t1', buildLedger(runId, 1)));
      const after = store.stats();
      assert.ok(after.commits > before.commits);
      assert.equal(after.entriesAppended - before.entriesAppended, 3);
    });

    test('reads nothing for an unknown run, or from past the head', async () => {
      const runId = uniqueRunId('read-bounds');
      assert.deepEqual(await store.ledger.readEntries('t1', runId), []);
      await store.ledger.append(createRequest('t1', buildLedger(runId, 1)));
      assert.deepEqual(
        (await store.ledger.readEntries('t1', runId, 2)).map((e) => e.seq),
        [2],
      );
      assert.deepEqual(await store.ledger.readEntries('t1', runId, 3), []);
    });

    test('keeps payload bytes exact: multi-byte UTF-8, escapes, a 200 KB payload', async () => {
      const runId = uniqueRunId('bytes');
      const [root] = buildLedger(runId, 0);
      const text = 'é漢😀\u0000"\\'.repeat(20_000);
      const big = chainEntry(
        runId,
        { seq: 0, hash: root!.hash },
        'step.completed',
        { step: 's', tool: 'noop', proposalId: hashOf(runId), output: { text }, costCents: 0 },
        FIXED_TIME,
      ).stored;
      await store.ledger.append(createRequest('t1', [root!, big]));
      const back = (await store.ledger.readEntries('t1', runId))[1]!;
      assert.ok(Buffer.from(back.payload).equals(Buffer.from(big.payload)), 'payload bytes differ');
      assert.equal(back.payloadHash, big.payloadHash);
      assert.equal(back.hash, big.hash);
    });

    test('an append built on a head written earlier in the same turn commits after it', async () => {
      const runId = uniqueRunId('pipelined');
      const ledger = buildLedger(runId, 2);
      const heads = await Promise.all([
        store.ledger.append(createRequest('t1', ledger.slice(0, 3))),
        store.ledger.append({
          tenant: 't1',
          runId,
          expectedHead: { seq: 2, hash: ledger[2]!.hash },
          entries: ledger.slice(3),
          status: 'completed',
        }),
      ]);
      assert.deepEqual(
        heads.map((h) => h.seq),
        [2, 4],
      );
      assert.equal((await store.runs.getRun('t1', runId))?.status, 'completed');
      assert.equal((await store.ledger.readEntries('t1', runId)).length, 5);
    });

    test('appends issued together fail alone: a stale head or a refused write changes nothing else', async () => {
      const [a, b, c] = [uniqueRunId('alone-a'), uniqueRunId('alone-b'), uniqueRunId('alone-c')];
      const ledgerA = buildLedger(a, 1);
      const approval: PendingApproval = {
        tenant: 't1',
        runId: a,
        proposalId: hashOf({ a }),
        step: 'close',
        tool: 'close_ticket',
        args: {},
        reason: 'destructive',
        channel: 'cli',
        requestedAt: FIXED_TIME,
      };
      await store.ledger.append({
        ...createRequest('t1', ledgerA),
        status: 'waiting_approval',
        openApproval: approval,
      });
      const ledgerB = buildLedger(b, 0);
      await store.ledger.append(createRequest('t1', ledgerB));
      const notTheHead = { ...ledgerB[0]!, hash: hashOf('not the head') };
      const results = await Promise.allSettled([
        store.ledger.append({
          tenant: 't1',
          runId: b,
          expectedHead: { seq: 0, hash: notTheHead.hash },
          entries: extendLedger(b, notTheHead, 1),
          status: 'failed',
        }),
        // Opening the approval that is already pending is refused by the store itself.
        store.ledger.append({
          tenant: 't1',
          runId: a,
          expectedHead: { seq: 2, hash: ledgerA[2]!.hash },
          entries: extendLedger(a, ledgerA[2]!, 1),
          status: 'waiting_approval',
          openApproval: approval,
        }),
        store.ledger.append(createRequest('t1', buildLedger(c, 1))),
        store.ledger.append({
          tenant: 't1',
          runId: b,
          expectedHead: { seq: 0, hash: ledgerB[0]!.hash },
          entries: extendLedger(b, ledgerB[0]!, 1),
          status: 'completed',
        }),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.ok(isCode('head_conflict')((results[0] as PromiseRejectedResult).reason));
      assert.deepEqual((await store.runs.getRun('t1', a))?.head, { seq: 2, hash: ledgerA[2]!.hash });
      assert.equal((await store.ledger.readEntries('t1', a)).length, 3);
      assert.deepEqual(await store.runs.listPendingApprovals('t1', a), [approval]);
      assert.equal((await store.runs.getRun('t1', b))?.status, 'completed');
      assert.equal((await store.ledger.readEntries('t1', c)).length, 3);
    });

    test('orders runs by (createdAt, runId) descending and versions by workflow id, in byte order', async () => {
      const tenant = `order-${counter++}`;
      const n = counter++;
      const runs = [
        ['2026-01-01T00:00:01.000Z', `run-B-${n}`],
        ['2026-01-01T00:00:01.000Z', `run-a-${n}`],
        ['2026-01-01T00:00:02.000Z', `run-Z-${n}`],
        ['2026-01-01T00:00:00.000Z', `run-b-${n}`],
      ] as const;
      for (const [at, runId] of runs)
        await store.ledger.append(createRequest(tenant, [rootAt(runId, tenant, at)]));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.runs.listRuns(tenant, { limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(...page.runs.map((r) => r.runId));
        cursor = page.next;
      } while (cursor);
      // Byte order puts 'a' (0x61) after 'B' (0x42), whatever a database's locale would say.
      assert.deepEqual(seen, [`run-Z-${n}`, `run-a-${n}`, `run-B-${n}`, `run-b-${n}`]);
      await store.registry.putVersion(versionRecord(tenant, 1, { ...SPEC, id: 'alpha' }));
      await store.registry.putVersion(versionRecord(tenant, 1, { ...SPEC, id: 'Zed' }));
      assert.deepEqual(
        (await store.registry.listVersions(tenant)).map((v) => v.workflowId),
        ['Zed', 'alpha'],
      );
    });
    test('filters runs by version and creation time (since inclusive, until exclusive), paging within the filter', async () => {
      const tenant = `range-${counter++}`;
      const n = counter++;
      // Five runs a second apart, v1 and v2 alternating; one more of another workflow.
      const made: { runId: string; at: string; version: number }[] = [];
      for (let i = 0; i < 5; i++) {
        const runId = `run-${i}-${n}`;
        const at = `2026-02-01T00:00:0${i}.000Z`;
        const version = (i % 2) + 1;
        const req = createRequest(tenant, [rootAt(runId, tenant, at)]);
        await store.ledger.append({ ...req, create: { ...req.create!, version } });
        made.push({ runId, at, version });
      }
      const other = createRequest(tenant, [rootAt(`other-${n}`, tenant, '2026-02-01T00:00:02.500Z')]);
      await store.ledger.append({ ...other, create: { ...other.create!, workflowId: 'other', version: 2 } });
      const all = async (f: Parameters<Store['runs']['listRuns']>[1]) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.runs.listRuns(tenant, { ...f, limit: 1, ...(cursor ? { cursor } : {}) });
          assert.ok(page.runs.length <= 1);
          seen.push(...page.runs.map((r) => r.runId));
          cursor = page.next;
        } while (cursor);
        return seen;
      };
      const ids = (...i: number[]) => i.map((k) => made[k]!.runId);
      assert.deepEqual(await all({ since: made[1]!.at, until: made[4]!.at, workflowId: 'wf' }), ids(3, 2, 1));
      assert.deepEqual(await all({ since: made[1]!.at, until: made[4]!.at }), [
        made[3]!.runId,
        `other-${n}`,
        made[2]!.runId,
        made[1]!.runId,
      ]);
      assert.deepEqual(await all({ workflowId: 'wf', version: 2 }), ids(3, 1));
      assert.deepEqual(await all({ version: 2, since: '2026-02-01T00:00:02.000Z' }), [
        made[3]!.runId,
        `other-${n}`,
      ]);
      assert.deepEqual(await all({ until: made[0]!.at }), [], 'until is exclusive');
      assert.deepEqual(await all({ since: '2026-02-01T00:00:04.001Z' }), []);
      // A page of the filter holds the filter's runs only, and `next` goes on within it.
      const first = await store.runs.listRuns(tenant, { workflowId: 'wf', version: 1, limit: 2 });
      assert.deepEqual(
        first.runs.map((r) => r.runId),
        ids(4, 2),
      );
      const second = await store.runs.listRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        limit: 2,
        ...(first.next ? { cursor: first.next } : {}),
      });
      assert.deepEqual(
        second.runs.map((r) => r.runId),
        ids(0),
      );
      assert.equal(second.next, undefined);
      assert.deepEqual(await store.runs.countRuns(tenant, { since: made[1]!.at, until: made[4]!.at }), {
        running: 4,
      });
      assert.deepEqual(await store.runs.countRuns(tenant, { version: 2 }), { running: 3 });
      assert.deepEqual(await store.runs.countRuns(`${tenant}-nobody`, {}), {});
    });

    test('keeps the first secret key stored for a tenant: later candidates, other tenants and other connections agree', async () => {
      const tenant = `secret-key-${counter++}`;
      const first = new Uint8Array(32).fill(7);
      const later = new Uint8Array(32).fill(9);
      assert.deepEqual(await store.keys.secretKey(tenant, first), first);
      assert.deepEqual(await store.keys.secretKey(tenant, later), first, 'the stored key never changes');
      if (another)
        assert.deepEqual(await another.keys.secretKey(tenant, later), first, 'another connection reads it');
      const other = `${tenant}-other`;
      assert.deepEqual(await store.keys.secretKey(other, later), later, 'each tenant has its own key');
      // Concurrent first uses store one key, and every caller gets that one.
      const racing = `${tenant}-race`;
      const got = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          (n % 2 === 0 && another ? another : store).keys.secretKey(racing, new Uint8Array(32).fill(n)),
        ),
      );
      for (const k of got) assert.deepEqual(k, got[0]);
      await assert.rejects(store.keys.secretKey(`${tenant}-short`, new Uint8Array(16)), RangeError);
    });
  });
}
