/**
 * The contract of checkpoints (ports/checkpoint-store.ts) (docs/audit.md), bound by every adapter
 * through runStoreContract: the chain only ever extends its last checkpoint (a stale or skipped
 * one is head_conflict and writes nothing); run heads and checkpointed heads come in creation
 * order, `(createdAt, runId)` compared as bytes, a page at a time, each once; a checkpoint covers
 * each run's latest recorded head at or before it; another tenant's rows never show. A /2
 * checkpoint's head log (size, hash, right edge) reads back as written, a /1 as a /1; the head log
 * comes in checkpoint order, paged; a run's last checkpointed head is its latest row.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import {
  bodyOf,
  CHECKPOINT_FORMAT_V1,
  type Checkpoint,
  checkpointHash,
  logLeaf,
  logRoot,
  merkleRoot,
  signCheckpoint,
  toDigest,
} from '../core/checkpoint/index.ts';
import { isKeelError } from '../core/errors.ts';
import type { CheckpointHead, Store } from '../ports/index.ts';
import { buildLedger } from './ledger-fixtures.ts';

let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${n++}-${Math.random().toString(16).slice(2, 8)}`;
const conflict = (e: unknown) => isKeelError(e) && e.code === 'head_conflict';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

function checkpoint(
  tenant: string,
  seq: number,
  prev: Checkpoint | null,
  heads: readonly CheckpointHead[],
): Checkpoint {
  return signCheckpoint(
    {
      tenant,
      seq,
      at: '2026-12-01T00:00:00.000Z',
      runs: heads.length,
      root: merkleRoot(heads),
      prevHash: prev?.hash ?? null,
      treeSize: heads.length,
      logRoot: toDigest(logRoot(heads.map(logLeaf))),
    },
    privateKey,
    publicKey,
  );
}

async function runs(store: Store, tenant: string, count: number): Promise<CheckpointHead[]> {
  for (let i = 0; i < count; i++) {
    // Run ids not in creation order, so the order is the store's, not the insertion's.
    const runId = hashOf({ tenant, i, r: Math.random() });
    const ledger = buildLedger(runId, 1, tenant);
    await store.ledger.append({
      tenant,
      runId,
      expectedHead: null,
      entries: ledger,
      status: 'running',
      create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: `e${i}`, eventType: 'go' },
    });
  }
  return readAll((o) => store.checkpoints.runHeads(tenant, o));
}

async function readAll(read: (o: { after?: CheckpointHead; limit: number }) => Promise<CheckpointHead[]>) {
  const out: CheckpointHead[] = [];
  for (;;) {
    const page = await read({ ...(out.length ? { after: out[out.length - 1]! } : {}), limit: 2 });
    out.push(...page);
    if (page.length < 2) return out;
  }
}

const byOrder = (a: CheckpointHead, b: CheckpointHead) =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.runId < b.runId ? -1 : 1;

export function checkpointContract(current: () => Store): void {
  describe('checkpoints', () => {
    test('run heads come in creation order, paged, each once, only the tenant’s', async () => {
      const store = current();
      const tenant = unique('ck-heads');
      const heads = await runs(store, tenant, 5);
      await runs(store, unique('ck-other'), 2);
      assert.equal(heads.length, 5);
      assert.deepEqual(heads, [...heads].sort(byOrder));
      assert.equal(new Set(heads.map((h) => h.runId)).size, 5);
      for (const h of heads) assert.equal(h.seq, 2);
    });

    test('the chain extends only its last checkpoint; a refused one writes nothing', async () => {
      const store = current();
      const tenant = unique('ck-chain');
      const heads = await runs(store, tenant, 3);
      const first = checkpoint(tenant, 1, null, heads);
      await store.checkpoints.appendCheckpoint(first, heads);
      await assert.rejects(
        store.checkpoints.appendCheckpoint(checkpoint(tenant, 1, null, heads), heads),
        conflict,
      );
      await assert.rejects(
        store.checkpoints.appendCheckpoint(checkpoint(tenant, 3, first, heads), heads),
        conflict,
      );
      await assert.rejects(
        store.checkpoints.appendCheckpoint(checkpoint(tenant, 2, null, heads), heads),
        conflict,
      );
      const second = checkpoint(tenant, 2, first, heads);
      await store.checkpoints.appendCheckpoint(second, [heads[1]!]);
      assert.deepEqual(await store.checkpoints.listCheckpoints(tenant), [first, second]);
      assert.deepEqual(await store.checkpoints.listCheckpoints(unique('ck-none')), []);
      // What checkpoint 1 covers is exactly its rows; checkpoint 2 adds only the moved head.
      const rows = [];
      for (let after: { runId: string; checkpointSeq: number } | undefined; ; ) {
        const page = await store.checkpoints.checkpointHeadRows(tenant, {
          ...(after ? { after } : {}),
          limit: 2,
        });
        rows.push(...page);
        if (page.length < 2) break;
        after = page[page.length - 1]!;
      }
      assert.equal(rows.length, 4);
      assert.deepEqual(
        rows.map((r) => [r.runId, r.checkpointSeq]),
        [...rows]
          .sort((a, b) =>
            a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : a.checkpointSeq - b.checkpointSeq,
          )
          .map((r) => [r.runId, r.checkpointSeq]),
      );
    });

    test('a checkpoint covers each run’s latest head at or before it, in creation order', async () => {
      const store = current();
      const tenant = unique('ck-asof');
      const heads = await runs(store, tenant, 4);
      const c1 = checkpoint(tenant, 1, null, heads.slice(0, 3));
      await store.checkpoints.appendCheckpoint(c1, heads.slice(0, 3));
      const moved = { ...heads[1]!, seq: 9, hash: hashOf('moved') };
      const c2 = checkpoint(tenant, 2, c1, heads);
      await store.checkpoints.appendCheckpoint(c2, [moved, heads[3]!]);
      assert.deepEqual(
        await readAll((o) => store.checkpoints.checkpointedHeads(tenant, 1, o)),
        heads.slice(0, 3),
      );
      assert.deepEqual(await readAll((o) => store.checkpoints.checkpointedHeads(tenant, 2, o)), [
        heads[0],
        moved,
        heads[2],
        heads[3],
      ]);
      assert.deepEqual(
        await readAll((o) => store.checkpoints.checkpointedHeads(unique('ck-else'), 2, o)),
        [],
      );
    });

    test('a /2 checkpoint keeps its head log and right edge; a /1 reads back as a /1; one by seq', async () => {
      const store = current();
      const tenant = unique('ck-log');
      const heads = await runs(store, tenant, 2);
      const edge = [toDigest(logRoot(heads.map(logLeaf)))];
      const first = { ...checkpoint(tenant, 1, null, heads), logFrontier: edge };
      await store.checkpoints.appendCheckpoint(first, heads);
      const body = bodyOf({ ...first, format: CHECKPOINT_FORMAT_V1 });
      const v1: Checkpoint = {
        ...body,
        signature: first.signature,
        publicKey: first.publicKey,
        hash: checkpointHash(body, first.signature),
      };
      await store.checkpoints.appendCheckpoint({ ...v1, seq: 2, prevHash: first.hash }, []);
      const [a, b] = await store.checkpoints.listCheckpoints(tenant);
      assert.deepEqual(a, first);
      assert.equal(b?.format, CHECKPOINT_FORMAT_V1);
      assert.equal(b?.treeSize, undefined);
      assert.equal(b?.logFrontier, undefined);
      assert.deepEqual(await store.checkpoints.getCheckpoint(tenant, 1), first);
      assert.equal(await store.checkpoints.getCheckpoint(tenant, 3), undefined);
      assert.equal(await store.checkpoints.getCheckpoint(unique('ck-else'), 1), undefined);
    });

    test('the head log comes in checkpoint order, paged; a run’s checkpointed head is its latest row', async () => {
      const store = current();
      const tenant = unique('ck-order');
      const heads = await runs(store, tenant, 4);
      const c1 = checkpoint(tenant, 1, null, heads.slice(1, 4));
      await store.checkpoints.appendCheckpoint(c1, heads.slice(1, 4));
      const moved = { ...heads[2]!, seq: 7, hash: hashOf('moved') };
      await store.checkpoints.appendCheckpoint(checkpoint(tenant, 2, c1, heads), [heads[0]!, moved]);
      const log = [];
      for (;;) {
        const l = log.at(-1);
        const page = await store.checkpoints.checkpointLog(tenant, {
          ...(l ? { after: { checkpointSeq: l.checkpointSeq, createdAt: l.createdAt, runId: l.runId } } : {}),
          limit: 2,
        });
        log.push(...page);
        if (page.length < 2) break;
      }
      assert.deepEqual(
        log.map((r) => [r.checkpointSeq, r.runId, r.seq]),
        [
          ...heads.slice(1, 4).map((h) => [1, h.runId, h.seq]),
          ...[heads[0]!, moved].sort(byOrder).map((h) => [2, h.runId, h.seq]),
        ],
      );
      assert.deepEqual(await store.checkpoints.checkpointedHead(tenant, heads[2]!.runId), {
        ...moved,
        checkpointSeq: 2,
      });
      assert.deepEqual(await store.checkpoints.checkpointedHead(tenant, heads[1]!.runId), {
        ...heads[1]!,
        checkpointSeq: 1,
      });
      assert.equal(await store.checkpoints.checkpointedHead(unique('ck-else'), heads[1]!.runId), undefined);
      assert.deepEqual(await store.checkpoints.checkpointLog(unique('ck-else'), { limit: 10 }), []);
    });
  });
}
