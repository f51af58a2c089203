/**
 * The blob part of the ledger's contract: entries that reference blobs come back from every read
 * (readEntries, claims, the audit query) with their blobs, decoding to the payload written and
 * verifying; an append of an entry without a blob it references is refused whole. How many blob
 * rows a store keeps (once per tenant and hash) each adapter's own test counts in its tables.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import {
  chainEntry,
  decodeEntry,
  decodePayload,
  type StoredEntry,
  verifyLedger,
} from '../core/ledger/index.ts';
import type { Store } from '../ports/index.ts';
import { sampleEvent } from './ledger-fixtures.ts';

/** A ~100 KiB model answer, as the blob tests and the dedupe measure use it. */
export const LARGE_ANSWER = `Dear customer, ${'we are sorry the mug arrived broken; a refund is on its way. '.repeat(1700)}`;

/** A run whose second entry draws `answer` from the model: a v2 entry with one blob. */
export function blobRun(tenant: string, label: string, answer = LARGE_ANSWER): StoredEntry[] {
  const runId = hashOf({ label, tenant, salt: Math.random() });
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant,
      workflowId: 'wf',
      version: 1,
      specHash: hashOf('spec'),
      status: 'LIVE',
      event: sampleEvent({ tenant }),
      engine: 'keel/test',
    },
    '2026-01-01T00:00:00.000Z',
  ).stored;
  const drawn = chainEntry(
    runId,
    { seq: 0, hash: root.hash },
    'source.drawn',
    { source: 'x-model', value: { answer, $note: 'kept' } } as never,
    '2026-01-01T00:00:01.000Z',
  ).stored;
  return [root, drawn];
}

export function blobContract(store: () => Store): void {
  describe('blobs', () => {
    const create = (tenant: string, entries: StoredEntry[]) =>
      store().ledger.append({
        tenant,
        runId: entries[0]!.runId,
        expectedHead: null,
        entries,
        status: 'running',
        create: {
          workflowId: 'wf',
          version: 1,
          specHash: hashOf('spec'),
          eventId: 'e',
          eventType: 'refund.requested',
        },
      });

    test('reads entries back with their blobs: they decode to the payload written and verify', async () => {
      const runs = [blobRun('tb1', 'a'), blobRun('tb1', 'b'), blobRun('tb2', 'c')];
      for (const r of runs) await create(r === runs[2] ? 'tb2' : 'tb1', r);
      for (const [i, r] of runs.entries()) {
        const tenant = i === 2 ? 'tb2' : 'tb1';
        const back = await store().ledger.readEntries(tenant, r[0]!.runId);
        assert.equal(back[1]!.v, 2);
        assert.deepEqual(
          Buffer.from(back[1]!.payload),
          Buffer.from(r[1]!.payload),
          'the entry is stored as written',
        );
        assert.equal(back[1]!.blobs?.length, 1);
        assert.deepEqual(decodeEntry(back[1]!).payload, {
          source: 'x-model',
          value: { answer: LARGE_ANSWER, $note: 'kept' },
        });
        assert.equal(verifyLedger(r[0]!.runId, back).ok, true);
      }
      // Another tenant reads nothing of the run, blobs included.
      assert.deepEqual(await store().ledger.readEntries('tb2', runs[0]![0]!.runId), []);
    });

    test('claims and the audit query hand blobs along too', async () => {
      const r = blobRun('tb3', 'claimed');
      await create('tb3', r);
      const claimed = await store().queue.claimRuns('blob-worker', 60_000, 10, Date.now(), {
        tenant: 'tb3',
        runId: r[0]!.runId,
      });
      assert.equal(claimed.length, 1);
      assert.equal(verifyLedger(r[0]!.runId, claimed[0]!.entries).ok, true);
      assert.equal(
        (decodePayload(claimed[0]!.entries[1]!) as { value: { answer: string } }).value.answer,
        LARGE_ANSWER,
      );
      const page = await store().ledger.queryEntries('tb3', { runId: r[0]!.runId, kind: 'source.drawn' });
      assert.equal(page.entries.length, 1);
      assert.equal(
        (decodePayload(page.entries[0]!) as { value: { answer: string } }).value.answer,
        LARGE_ANSWER,
      );
    });

    test('refuses an entry that lacks a blob it references, writing nothing', async () => {
      const r = blobRun('tb4', 'no-blob');
      await assert.rejects(create('tb4', [r[0]!, { ...r[1]!, blobs: [] }]), /lacks a blob/);
      assert.equal(await store().runs.getRun('tb4', r[0]!.runId), undefined);
    });
  });
}
