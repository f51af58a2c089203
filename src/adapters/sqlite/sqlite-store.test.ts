import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { type Digest, hashOf } from '../../core/canonical/index.ts';
import { type StoredEntry, verifyLedger } from '../../core/ledger/index.ts';
import { eventContent } from '../../core/run/index.ts';
import { blobRun, buildLedger, LARGE_ANSWER, runStoreContract } from '../../testing/index.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { SqliteStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-sqlite-contract-'));

runStoreContract('sqlite (file, synchronous=FULL)', {
  open: async () => new SqliteStore(join(dir, 'contract.db')),
  openAnother: async () => new SqliteStore(join(dir, 'contract.db')),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

/** The append that creates a completed run of tenant t1 holding `entries`. */
const newRun = (entries: StoredEntry[]) => ({
  tenant: 't1',
  runId: entries[0]!.runId,
  expectedHead: null,
  entries,
  status: 'completed' as const,
  create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
});
const create = (runId: string, steps: number) => newRun(buildLedger(runId, steps));

test('group commit: appends issued together share one transaction', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-group-'));
  try {
    const store = new SqliteStore(join(d, 'k.db'));
    const before = store.stats().commits;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.ledger.append(create(hashOf({ group: i }), 1))),
    );
    assert.equal(store.stats().commits - before, 1);
    assert.equal((await store.runs.listRuns('t1', { limit: 100 })).runs.length, 20);
    await store.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('group commit: event claims and appends issued together share one transaction', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-group-'));
  try {
    const store = new SqliteStore(join(d, 'k.db'));
    const claim = (i: number) => {
      const event = {
        id: `e${i}`,
        type: 't',
        tenant: 't1',
        source: 's',
        subject: '',
        payload: {},
        time: 'x',
      };
      return store.events.claimEvent({
        tenant: 't1',
        source: 's',
        eventId: event.id,
        ...eventContent(event),
        runs: [],
        deliveredAt: '2026-12-01T00:00:00.000Z',
      });
    };
    const before = store.stats().commits;
    const claims = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => claim(i)),
      claim(0),
      ...Array.from({ length: 4 }, (_, i) => store.ledger.append(create(hashOf({ claimed: i }), 1))),
    ]);
    assert.equal(store.stats().commits - before, 1);
    assert.deepEqual(
      claims.slice(0, 9).map((c) => (c as { state: string }).state),
      [...Array(8).fill('first'), 'again'],
    );
    await store.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a claim naming runs commits without an fsync of its own (the durable commits of its runs sync it); one naming none is durable alone', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-lazy-'));
  try {
    const path = join(d, 'k.db');
    const store = new SqliteStore(path);
    const claim = (id: string, runs: number) => {
      const event = { id, type: 't', tenant: 't1', source: 's', subject: '', payload: {}, time: 'x' };
      return store.events.claimEvent({
        tenant: 't1',
        source: 's',
        eventId: id,
        ...eventContent(event),
        runs: Array.from({ length: runs }, (_, i) => ({
          workflowId: 'wf',
          version: 1,
          runId: hashOf({ id, i }),
        })),
        deliveredAt: '2026-12-01T00:00:00.000Z',
      });
    };
    const before = store.stats().commits;
    assert.equal((await claim('with-runs', 1)).state, 'first');
    assert.equal(store.stats().commits - before, 0, 'no durable commit of its own');
    assert.equal(store.durability.synchronous, 'FULL');
    await store.ledger.append(create(hashOf('the run it names'), 1));
    assert.equal(store.stats().commits - before, 1);
    assert.equal((await claim('no-runs', 0)).state, 'first');
    assert.equal(store.stats().commits - before, 2, 'a claim naming no run is a durable commit');
    await store.close();
    const again = new SqliteStore(path);
    assert.equal(again.durability.synchronous, 'FULL');
    assert.equal((await again.events.getDeliveredEvent('t1', 's', 'with-runs'))?.runs.length, 1);
    await again.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('entries survive closing and reopening the file, and verify', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-reopen-'));
  try {
    const path = join(d, 'k.db');
    const runId = hashOf('reopen');
    const a = new SqliteStore(path);
    await a.ledger.append(create(runId, 3));
    await a.close();
    const b = new SqliteStore(path);
    const run = await b.runs.getRun('t1', runId);
    const r = verifyLedger(runId, await b.ledger.readEntries('t1', runId), run!.head);
    assert.equal(r.ok, true);
    await b.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('two handles on one file cannot both append at one seq', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-twohandles-'));
  try {
    const path = join(d, 'k.db');
    const runId = hashOf('two');
    const a = new SqliteStore(path);
    const b = new SqliteStore(path);
    const ledger = buildLedger(runId, 1);
    await a.ledger.append({ ...create(runId, 0), entries: ledger.slice(0, 1), status: 'running' });
    const head = { seq: 0, hash: ledger[0]!.hash };
    const results = await Promise.allSettled([
      a.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: head,
        entries: ledger.slice(1, 2),
        status: 'running',
      }),
      b.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: head,
        entries: ledger.slice(1, 2),
        status: 'running',
      }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    await a.close();
    await b.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('refuses a database written by a newer schema', () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-newer-'));
  try {
    const path = join(d, 'k.db');
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    assert.throws(
      () => new SqliteStore(path),
      (e: unknown) => (e as { code?: string }).code === 'store_unavailable',
    );
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('uses synchronous=FULL and WAL by default', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-pragmas-'));
  try {
    const path = join(d, 'k.db');
    const store = new SqliteStore(path);
    assert.deepEqual(store.durability, { journalMode: 'wal', synchronous: 'FULL' });
    assert.equal(
      new SqliteStore(join(d, 'n.db'), { synchronous: 'NORMAL' }).durability.synchronous,
      'NORMAL',
    );
    await store.ledger.append(create(hashOf('p'), 0));
    await store.close();
    const raw = new Database(path);
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    raw.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a v1 file with runs is upgraded to the current schema in place: its running runs become claimable', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-v1-'));
  try {
    const path = join(d, 'k.db');
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    raw.exec(`INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
      VALUES ('r-old', 't1', 'wf', 1, 'h', 'running', 0, 'h', 'e', 't', '2026-01-01', '2026-01-01'),
             ('r-done', 't1', 'wf', 1, 'h', 'completed', 0, 'h', 'e', 't', '2026-01-01', '2026-01-01')`);
    raw.close();
    const store = new SqliteStore(path);
    assert.equal((await store.runs.getRun('t1', 'r-old'))?.status, 'running');
    assert.deepEqual(
      (await store.queue.claimRuns('w1', 1000, 10, Date.now())).map((r) => r.runId),
      ['r-old'],
    );
    await store.close();
    const check = new Database(path);
    assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    check.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a v13 file with queued shadow work is upgraded in place: the items stay, claimable, no attempt counted', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-v13-'));
  try {
    const path = join(d, 'k.db');
    const raw = new Database(path);
    for (const m of MIGRATIONS.slice(0, 13)) raw.exec(m);
    raw.pragma('user_version = 13');
    raw.exec(`INSERT INTO shadow_queue (tenant, id, workflow_id, version, live_version, live_run_id, judged_as, event, enqueued_ms, lease_owner, lease_until)
      VALUES ('t1', 'w-1', 'wf', 2, 1, 'live-1', 'LIVE', '{}', 100, 'gone', 200)`);
    raw.close();
    const store = new SqliteStore(path);
    const [item] = await store.shadowQueue.claimShadowWork('me', 1_000, 5, 1_000, { tenant: 't1' });
    assert.deepEqual([item?.id, item?.liveRunId, item?.attempts], ['w-1', 'live-1', 0]);
    assert.equal((await store.shadowQueue.shadowQueueStatus(1_000, { tenant: 't1' })).failed, 0);
    await store.close();
    const check = new Database(path);
    assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    check.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

/**
 * A file at schema `version` (the migrations up to it, as published) holding `runs`, each with a
 * ledger of 2, 3, ... steps written as that version's store wrote them (digests as text).
 */
function legacyFile(path: string, version: number, runs: readonly string[]) {
  const raw = new Database(path);
  for (const m of MIGRATIONS.slice(0, version)) raw.exec(m);
  raw.pragma(`user_version = ${version}`);
  const ledgers = runs.map((runId, i) => buildLedger(runId, 2 + i));
  const insertEntry = raw.prepare(
    'INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  runs.forEach((runId, i) => {
    const ledger = ledgers[i]!;
    const head = ledger[ledger.length - 1]!;
    const { lastInsertRowid: key } = raw
      .prepare(`INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
        VALUES (?, 't1', 'wf', 1, 'h', 'completed', ?, ?, 'e', 't', '2026-01-01', '2026-01-01')`)
      .run(runId, head.seq, head.hash);
    for (const e of ledger)
      insertEntry.run(
        key,
        e.seq,
        e.v,
        e.kind,
        e.prevHash,
        e.payloadHash,
        e.hash,
        e.at,
        Buffer.from(e.payload),
      );
  });
  return { raw, ledgers };
}

/** Every entry of every run reads back as written (envelope and bytes) and verifies. */
async function assertLedgersKept(store: SqliteStore, runs: readonly string[], ledgers: StoredEntry[][]) {
  for (const [i, runId] of runs.entries()) {
    const read = await store.ledger.readEntries('t1', runId);
    const view = (es: readonly StoredEntry[]) =>
      es.map((e) => [
        e.seq,
        e.kind,
        e.prevHash,
        e.payloadHash,
        e.hash,
        e.at,
        Buffer.from(e.payload).toString('hex'),
      ]);
    assert.deepEqual(view(read), view(ledgers[i]!));
    assert.equal(verifyLedger(runId, read, (await store.runs.getRun('t1', runId))!.head).ok, true);
  }
}

test('a v5 file keeps every entry byte for byte when v6 moves entries into a rowid table', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-v5-'));
  try {
    const path = join(d, 'k.db');
    const runs = [hashOf('v5-a'), hashOf('v5-b')];
    const { raw, ledgers } = legacyFile(path, 5, runs);
    raw.close();
    const store = new SqliteStore(path);
    await assertLedgersKept(store, runs, ledgers);
    await store.close();
    const check = new Database(path);
    const sql = (
      check.prepare("SELECT sql FROM sqlite_schema WHERE name = 'entries'").get() as { sql: string }
    ).sql;
    assert.doesNotMatch(sql, /WITHOUT ROWID/);
    assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    check.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a v6 file keeps every entry when v7 stores its digests as 32 bytes, and new appends continue the chains', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-v6-'));
  try {
    const path = join(d, 'k.db');
    const runs = [hashOf('v6-a'), hashOf('v6-b'), hashOf('v6-c')];
    const { raw, ledgers } = legacyFile(path, 6, runs);
    const before = raw.prepare('SELECT count(*) FROM entries').pluck().get() as number;
    raw.close();
    const store = new SqliteStore(path);
    await assertLedgersKept(store, runs, ledgers);
    // A run read back continues: its next entry names the converted head.
    const runId = runs[0]!;
    const ledger = ledgers[0]!;
    const head = ledger[ledger.length - 1]!;
    const more = buildLedger(runId, 4).slice(ledger.length);
    await store.ledger.append({
      tenant: 't1',
      runId,
      expectedHead: { seq: head.seq, hash: head.hash },
      entries: more,
      status: 'completed',
    });
    await assertLedgersKept(store, [runId], [[...ledger, ...more]]);
    await store.close();
    const check = new Database(path);
    const lengths = check
      .prepare('SELECT DISTINCT length(hash), length(payload_hash), typeof(hash) FROM entries')
      .raw()
      .all();
    assert.deepEqual(lengths, [[32, 32, 'blob']]);
    assert.equal(check.prepare('SELECT count(*) FROM entries').pluck().get(), before + more.length);
    assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    check.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a v6 file with a stored digest that is not one is refused and left at v6, every entry as it was', async () => {
  // Not a sha256 prefix, not hex, and the right digest in upper case (unhex reads it, but it
  // would come back as another string).
  const breakages = [
    () => 'SHA256:AB',
    () => 'sha256:zz',
    (good: string) => `sha256:${good.slice(7).toUpperCase()}`,
  ];
  for (const breakage of breakages) {
    const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-v6-bad-'));
    try {
      const path = join(d, 'k.db');
      const runs = [hashOf('v6-bad')];
      const { raw, ledgers } = legacyFile(path, 6, runs);
      const broken = breakage(ledgers[0]![1]!.payloadHash);
      raw.prepare('UPDATE entries SET payload_hash = ? WHERE seq = 1').run(broken);
      raw.close();
      assert.throws(
        () => new SqliteStore(path),
        (e: Error & { code?: string }) =>
          e.code === 'store_unavailable' && /CHECK constraint/.test(e.message),
      );
      const check = new Database(path);
      assert.equal(check.pragma('user_version', { simple: true }), 6);
      assert.equal(check.prepare('SELECT payload_hash FROM entries WHERE seq = 1').pluck().get(), broken);
      assert.equal(check.prepare('SELECT count(*) FROM entries').pluck().get(), ledgers[0]!.length);
      check.close();
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }
});

test('an append whose entry hash is not a sha256 digest is refused before anything is written', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-digest-'));
  try {
    const store = new SqliteStore(join(d, 'k.db'));
    const runId = hashOf('not-a-digest');
    const entries = buildLedger(runId, 1);
    const bad = entries.map((e, i) =>
      i === entries.length - 1 ? { ...e, hash: 'sha256:nothex' as Digest } : e,
    );
    await assert.rejects(
      store.ledger.append({ ...create(runId, 1), entries: bad }),
      (e: Error & { code?: string }) => e.code === 'internal' && /not a sha256 digest/.test(e.message),
    );
    assert.equal(await store.runs.getRun('t1', runId), undefined);
    await store.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('1,000 runs carrying the same 100 KiB model answer store it once (the file stays small)', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-blobs-'));
  try {
    const path = join(d, 'k.db');
    const store = new SqliteStore(path);
    const runs = Array.from({ length: 1000 }, (_, i) => blobRun('t1', `dedupe-${i}`));
    await Promise.all(runs.map((entries) => store.ledger.append(newRun(entries))));
    const back = await store.ledger.readEntries('t1', runs[999]![0]!.runId);
    assert.equal(verifyLedger(runs[999]![0]!.runId, back).ok, true);
    await store.close();
    const raw = new Database(path);
    assert.equal(raw.prepare('SELECT count(*) FROM blobs').pluck().get(), 1);
    assert.equal(raw.prepare('SELECT count(*) FROM run_blobs').pluck().get(), 1000);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const size = statSync(path).size;
    assert.ok(size < 4 * 1024 * 1024, `1,000 × ${LARGE_ANSWER.length} bytes held in ${size} bytes`);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('a blob row removed under a run is named blob_missing, and written again by the next append carrying it', async () => {
  const d = mkdtempSync(join(tmpdir(), 'keel-sqlite-blob-gone-'));
  try {
    const path = join(d, 'k.db');
    const store = new SqliteStore(path);
    const append = (entries: StoredEntry[]) => store.ledger.append(newRun(entries));
    const first = blobRun('t1', 'gone-1');
    await append(first);
    // Another handle (retention elsewhere, an operator) removes the row behind this store's back.
    const raw = new Database(path);
    assert.equal(raw.prepare('DELETE FROM blobs').run().changes, 1);
    const broken = verifyLedger(first[0]!.runId, await store.ledger.readEntries('t1', first[0]!.runId));
    assert.equal(!broken.ok && broken.failure.code, 'blob_missing');
    // The store knows nothing stale: the next run with the same answer stores the blob again.
    const second = blobRun('t1', 'gone-2');
    await append(second);
    assert.equal(raw.prepare('SELECT count(*) FROM blobs').pluck().get(), 1);
    for (const r of [first, second])
      assert.equal(verifyLedger(r[0]!.runId, await store.ledger.readEntries('t1', r[0]!.runId)).ok, true);
    raw.close();
    await store.close();
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});
