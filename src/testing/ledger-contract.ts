/**
 * The contract of the ledger port (ports/ledger.ts), bound on every adapter through
 * runStoreContract: atomic appends with an expected head, unique (run, seq), entries that must
 * continue the chain, byte-exact reads, appends issued together that fail alone; with the blobs
 * (blob-contract.ts), append notifications (append-notification-contract.ts) and the audit query
 * (audit-query-contract.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { chainEntry } from '../core/ledger/index.ts';
import type { PendingApproval, Store } from '../ports/index.ts';
import { appendNotificationContract } from './append-notification-contract.ts';
import { auditQueryContract } from './audit-query-contract.ts';
import { blobContract } from './blob-contract.ts';
import { createRequest, uniqueRunId } from './contract-fixtures.ts';
import { isCode } from './is-code.ts';
import { buildLedger, extendLedger, FIXED_TIME } from './ledger-fixtures.ts';

export function ledgerContract(current: () => Store, another?: () => Store): void {
  describe('ledger', () => {
    test('creates a run and reads back byte-identical entries in seq order', async () => {
      const store = current();
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

    test('appends after the expected head and refuses a stale head, writing nothing', async () => {
      const store = current();
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
      const store = current();
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
      const store = current();
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
      const store = current();
      const runId = uniqueRunId('gap');
      const ledger = buildLedger(runId, 2);
      await assert.rejects(store.ledger.append(createRequest('t1', [ledger[0]!, ledger[2]!])));
      assert.equal(await store.runs.getRun('t1', runId), undefined);
    });

    test('reads nothing for an unknown run, or from past the head', async () => {
      const store = current();
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
      const store = current();
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
      const store = current();
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
      const store = current();
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
  });
  appendNotificationContract(current, another);
  auditQueryContract(current);
  blobContract(current);
}
