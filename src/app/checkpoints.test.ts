/**
 * Signed checkpoints on a real SQLite file: a checkpoint covers every run head and stores only
 * what moved; audit verify passes on an honest store; a run rewritten with its chain recomputed
 * end to end (the database owner's attack, which `keel verify` cannot see) is named with its seq,
 * and no later checkpoint signs over it; edits to the recorded heads or to a checkpoint, and a
 * checkpoint signed by another key than the pinned one, are each caught. A chain of /1
 * checkpoints (made before the head log) goes on as /2, proven consistent from its first /2.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { canonicalize } from '../core/canonical/index.ts';
import {
  bodyOf,
  CHECKPOINT_FORMAT_V1,
  checkpointHash,
  merkleRoot,
  spkiBase64,
} from '../core/checkpoint/index.ts';
import { chainEntry, decodeEntry, type Head, type StoredEntry } from '../core/ledger/index.ts';
import { keyIdOf } from '../core/writs/index.ts';
import { deploy, fakeSources, withStoreFile } from '../testing/index.ts';
import { makeCheckpoint, verifyCheckpoints } from './checkpoints/index.ts';
import { createKeel, type Keel } from './index.ts';

const SPEC = `id: noted
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: core.identity, args: {n: "{{event.payload.n}}"}}
  - {name: gate, tool: core.approvalGate, args: {title: "Go on?"}}
limits: {maxSteps: 2, maxCostUsd: 0}
`;

const key = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const dir = mkdtempSync(join(tmpdir(), 'keel-checkpoints-'));
const path = join(dir, 'k.db');
let keel: Keel;
const ids: string[] = [];

async function emit(n: number): Promise<string> {
  const { runs } = await keel.events.emit('acme', {
    id: `e-${n}`,
    type: 'go',
    time: '2026-11-30T10:00:00Z',
    payload: { n },
  });
  return runs[0]!.runId;
}

/** Rewrites run `runId` from `seq` on with `edit` applied to that entry's payload, every hash recomputed. */
function rewrite(runId: string, seq: number, edit: (p: Record<string, unknown>) => Record<string, unknown>) {
  const db = new Database(path);
  try {
    const runKey = (db.prepare('SELECT run_key FROM runs WHERE run_id = ?').get(runId) as { run_key: number })
      .run_key;
    const rows = db
      .prepare(
        "SELECT seq, v, kind, 'sha256:' || lower(hex(prev_hash)) AS prev, 'sha256:' || lower(hex(payload_hash)) AS ph, 'sha256:' || lower(hex(hash)) AS hash, at, payload FROM entries WHERE run_key = ? ORDER BY seq",
      )
      .all(runKey) as {
      seq: number;
      v: number;
      kind: string;
      prev: string;
      ph: string;
      hash: string;
      at: string;
      payload: Buffer;
    }[];
    const stored: StoredEntry[] = rows.map((r) => ({
      v: r.v,
      runId,
      seq: r.seq,
      kind: r.kind as StoredEntry['kind'],
      prevHash: r.seq === 0 ? null : (r.prev as StoredEntry['hash']),
      payloadHash: r.ph as StoredEntry['hash'],
      hash: r.hash as StoredEntry['hash'],
      at: r.at,
      payload: r.payload,
    }));
    let head: Head | null = seq === 0 ? null : { seq: seq - 1, hash: stored[seq - 1]!.hash };
    const fresh: StoredEntry[] = [];
    for (const e of stored.slice(seq)) {
      const payload = decodeEntry(e).payload as Record<string, unknown>;
      const next = chainEntry(
        runId,
        head,
        e.kind,
        (e.seq === seq ? edit(payload) : payload) as never,
        e.at,
      ).stored;
      fresh.push(next);
      head = { seq: next.seq, hash: next.hash };
    }
    db.prepare('DELETE FROM entries WHERE run_key = ? AND seq >= ?').run(runKey, seq);
    const insert = db.prepare(
      'INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload) VALUES (?, ?, ?, ?, unhex(substr(?, 8)), unhex(substr(?, 8)), unhex(substr(?, 8)), ?, ?)',
    );
    for (const e of fresh)
      insert.run(runKey, e.seq, e.v, e.kind, e.prevHash, e.payloadHash, e.hash, e.at, Buffer.from(e.payload));
    db.prepare('UPDATE runs SET head_hash = ? WHERE run_id = ?').run(head!.hash, runId);
    return fresh;
  } finally {
    db.close();
  }
}

describe('signed checkpoints', () => {
  before(async () => {
    keel = createKeel({ store: path, sources: fakeSources({ start: Date.UTC(2026, 10, 30, 10) }) });
    await deploy(keel, 'acme', SPEC);
    for (let n = 0; n < 4; n++) ids.push(await emit(n));
  });
  after(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a checkpoint covers every run; the next stores only the heads that moved; an honest store verifies', async () => {
    const first = await makeCheckpoint(keel.store, 'acme', key);
    assert.equal(first.checkpoint.seq, 1);
    assert.equal(first.checkpoint.runs, 4);
    assert.equal(first.changed, 4);
    await keel.approvals.approve('acme', ids[0]!, 'dana');
    ids.push(await emit(9));
    const second = await makeCheckpoint(keel.store, 'acme', key);
    assert.equal(second.checkpoint.seq, 2);
    assert.equal(second.checkpoint.prevHash, first.checkpoint.hash);
    assert.equal(second.checkpoint.runs, 5);
    assert.equal(second.changed, 2, 'the approved run moved and one run is new');
    const r = await verifyCheckpoints(keel.store, 'acme', { trustedKey: key.publicKey });
    assert.equal(r.ok, true, JSON.stringify(r.anomalies));
    assert.equal(r.runsChecked, 5);
    assert.deepEqual(
      r.checkpoints.map((c) => [c.checkpoint, c.verified]),
      [
        [1, true],
        [2, true],
      ],
    );
    const elsewhere = await verifyCheckpoints(keel.store, 'globex');
    assert.deepEqual([elsewhere.checkpoints.length, elsewhere.runsChecked], [0, 0]);
  });

  test('a run rewritten with its chain recomputed: verify and audit verify name it against its checkpoint, and no checkpoint signs over it', async () => {
    const runId = ids[0]!;
    const checkpointed = (await keel.runs.get('acme', runId)).head;
    rewrite(runId, 2, (p) => ({ ...p, output: { n: 'forged' } }));
    // The chain is self-consistent; only the head the last checkpoint recorded tells.
    const v = await keel.runs.verify('acme', runId);
    assert.ok(!v.ok && v.failure.code === 'checkpoint_mismatch', JSON.stringify(v));
    assert.equal(v.failure.seq, checkpointed.seq);
    assert.match(v.failure.message, /checkpoint 2 recorded .*: it was rewritten after it was checkpointed/);
    const r = await verifyCheckpoints(keel.store, 'acme', { trustedKey: key.publicKey });
    assert.equal(r.ok, false);
    const hit = r.anomalies.find((a) => a.runId === runId);
    assert.equal(hit?.kind, 'hash-mismatch', JSON.stringify(r.anomalies));
    assert.match(hit?.detail ?? '', /the run was rewritten/);
    assert.ok((hit?.seq ?? -1) >= 2);
    await assert.rejects(makeCheckpoint(keel.store, 'acme', key), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'ledger_invalid');
      assert.match(e.message, new RegExp(`run ${runId} has another entry at seq`));
      return true;
    });
  });

  test('edited recorded heads, an edited checkpoint and another key are each caught', async () => {
    const db = new Database(path);
    try {
      db.prepare(
        "UPDATE checkpoint_heads SET head_seq = head_seq + 1 WHERE tenant = 'acme' AND run_id = ?",
      ).run(ids[3]);
      const r = await verifyCheckpoints(keel.store, 'acme');
      assert.ok(
        r.anomalies.some((a) => a.kind === 'merkle-mismatch' && a.checkpoint === 1),
        JSON.stringify(r.anomalies),
      );
      assert.equal(r.checkpointsValid, false);
      db.prepare(
        "UPDATE checkpoint_heads SET head_seq = head_seq - 1 WHERE tenant = 'acme' AND run_id = ?",
      ).run(ids[3]);
      db.prepare("UPDATE checkpoints SET runs = runs + 1 WHERE tenant = 'acme' AND seq = 2").run();
      const s = await verifyCheckpoints(keel.store, 'acme');
      assert.ok(
        s.anomalies.some((a) => a.kind === 'signature-invalid' && a.checkpoint === 2),
        JSON.stringify(s.anomalies),
      );
      assert.equal(s.chainValid, false);
      db.prepare("UPDATE checkpoints SET runs = runs - 1 WHERE tenant = 'acme' AND seq = 2").run();
    } finally {
      db.close();
    }
    const pinned = await verifyCheckpoints(keel.store, 'acme', { trustedKey: other.publicKey });
    assert.equal(pinned.chainValid, false);
    assert.match(
      pinned.anomalies.find((a) => a.kind === 'signature-invalid')?.detail ?? '',
      /not the trusted key/,
    );
  });
});

test('a chain made before the head log (keel-checkpoint/1) goes on as /2: the first /2 takes every head the /1s recorded', () =>
  withStoreFile('keel-checkpoints-v1', async (file) => {
    const k = createKeel({ store: file, sources: fakeSources({ start: Date.UTC(2026, 10, 30, 10) }) });
    try {
      await deploy(k, 'acme', SPEC);
      const run = async (n: number) =>
        (
          await k.events.emit('acme', {
            id: `v1-${n}`,
            type: 'go',
            time: '2026-11-30T10:00:00Z',
            payload: { n },
          })
        ).runs[0]!.runId;
      const first = await run(1);
      await run(2);
      // A /1 checkpoint, as Keel made them before: a root only, signed over the /1 body.
      const heads = await k.store.checkpoints.runHeads('acme', { limit: 10 });
      const body = bodyOf({
        format: CHECKPOINT_FORMAT_V1,
        tenant: 'acme',
        seq: 1,
        at: '2026-11-30T10:00:00.000Z',
        runs: heads.length,
        root: merkleRoot(heads),
        prevHash: null,
        keyId: keyIdOf(key.publicKey),
      });
      const signature = sign(null, Buffer.from(canonicalize(body)), key.privateKey).toString('base64url');
      await k.store.checkpoints.appendCheckpoint(
        { ...body, signature, publicKey: spkiBase64(key.publicKey), hash: checkpointHash(body, signature) },
        heads,
      );
      await k.approvals.approve('acme', first, 'dana');
      const second = await makeCheckpoint(k.store, 'acme', key);
      assert.equal(second.checkpoint.format, 'keel-checkpoint/2');
      assert.equal(
        second.checkpoint.treeSize,
        3,
        'the two heads checkpoint 1 recorded, and the one that moved',
      );
      await run(3);
      const third = await makeCheckpoint(k.store, 'acme', key);
      assert.equal(third.checkpoint.treeSize, 4, 'extended from the stored right edge');
      const r = await verifyCheckpoints(k.store, 'acme', {
        trustedKey: key.publicKey,
        witnessed: second.checkpoint,
      });
      assert.equal(r.ok, true, JSON.stringify(r.anomalies));
      assert.deepEqual(
        r.checkpoints.map((c) => [c.checkpoint, c.verified]),
        [
          [1, true],
          [2, true],
          [3, true],
        ],
      );
      assert.deepEqual([r.witness?.held, r.witness?.consistency?.verified], [true, true]);
    } finally {
      await k.close();
    }
  }));
