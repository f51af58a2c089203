/**
 * Evidence the database's owner cannot erase (docs/audit.md, "Witness"), on real SQLite and real
 * PostgreSQL stores tampered with through raw SQL, as the owner would. A run is approved (its
 * destructive tool runs once), checkpointed with a witness directory, then cut back to its
 * approval request with its run and approvals rows kept consistent and its checkpoints deleted:
 * `keel verify` cannot see it, but audit verify fails (never "no checkpoints yet"), the next
 * checkpoint refuses to sign, and approving again is refused before the tool runs. Deleting only
 * the newest checkpoint is found against the witness; a cut with the checkpoints left in place is
 * refused by every action; recorded heads edited to agree with a forged run stop the next
 * checkpoint; and the witness's head log is proven extended (RFC 9162 consistency proof).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parsePostgresTarget } from '../../src/adapters/postgres/connection.ts';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/scratch-schema.ts';
import { DirectoryWitness } from '../../src/adapters/witness/index.ts';
import { makeCheckpoint, verifyCheckpoints } from '../../src/app/checkpoints/index.ts';
import { createKeel } from '../../src/app/index.ts';
import { isKeelError } from '../../src/core/errors.ts';
import type { Store } from '../../src/ports/index.ts';
import { deploy, spyTool } from '../../src/testing/index.ts';

const SPEC = `id: close
version: 1
status: LIVE
triggers: [{ event: go }]
steps:
  - { name: reply, tool: reply, args: { ticket: "{{event.subject}}" } }
  - { name: close, tool: close, args: { ticket: "{{event.subject}}", reason: "resolved" } }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;

const key = generateKeyPairSync('ed25519');
const dirs: string[] = [];
const tempDir = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), `keel-${p}-`));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store and raw SQL on it (`?` placeholders), as its owner has it. */
interface Owned {
  readonly open: () => Promise<Store>;
  readonly sql: (text: string, ...params: unknown[]) => Promise<Record<string, unknown>[]>;
  readonly drop: () => Promise<void>;
}

function sqliteStore(): Owned {
  const path = join(tempDir('evidence'), 'k.db');
  return {
    open: async () => createKeel({ store: path }).store,
    sql: async (text, ...params) => {
      const db = new Database(path);
      try {
        const st = db.prepare(text);
        if (st.reader) return st.all(...params) as Record<string, unknown>[];
        st.run(...params);
        return [];
      } finally {
        db.close();
      }
    },
    drop: async () => {},
  };
}

function postgresStore(): Owned {
  const url = testDatabaseUrl();
  const schema = scratchSchemaName('keel_evidence');
  return {
    open: () => openScratchStore(url, schema),
    sql: async (text, ...params) => {
      const target = parsePostgresTarget(url, schema);
      const client = new pg.Client({
        connectionString: target.connectionString,
        options: `-c search_path=${target.schema}`,
      });
      await client.connect();
      try {
        let i = 0;
        return (
          await client.query(
            text.replace(/\?/g, () => `$${++i}`),
            params,
          )
        ).rows;
      } finally {
        await client.end();
      }
    },
    drop: () => dropSchema(url, schema),
  };
}

const STORES: [string, () => Owned][] = [
  ['SQLite', sqliteStore],
  ['PostgreSQL', postgresStore],
];

const refusedAs = (code: string) => (e: unknown) => {
  assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
  assert.equal(e.details.code, code, e.message);
  return true;
};

let n = 0;
/** A Keel over the store, one run waiting for the approval of its destructive, non-idempotent close. */
async function waitingRun(owned: Owned, o: { witness?: string } = {}) {
  const close = spyTool('close', { destructive: true, idempotent: false });
  const keel = createKeel({
    store: await owned.open(),
    tools: [spyTool('reply'), close],
    ...(o.witness ? { checkpointWitness: o.witness } : {}),
  });
  await deploy(keel, 'acme', SPEC);
  const [run] = (
    await keel.events.emit('acme', {
      id: `e${n++}`,
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      subject: 'T-1',
      payload: {},
    })
  ).runs;
  assert.equal(run?.status, 'waiting_approval');
  const runId = run!.runId;
  const head = (await keel.runs.get('acme', runId)).head;
  const [approvalRow] = await owned.sql('SELECT * FROM approvals WHERE run_id = ?', runId);
  return { keel, close, runId, head, approvalRow: approvalRow! };
}

/**
 * The owner's erasure: the run cut back to its approval request, its run and approvals rows as
 * they were then, so `verify` finds nothing wrong.
 */
async function cutBack(
  owned: Owned,
  runId: string,
  head: { seq: number; hash: string },
  approvalRow: Record<string, unknown>,
) {
  await owned.sql(
    'DELETE FROM entries WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq > ?',
    runId,
    head.seq,
  );
  await owned.sql(
    "UPDATE runs SET head_seq = ?, head_hash = ?, status = 'waiting_approval' WHERE run_id = ?",
    head.seq,
    head.hash,
    runId,
  );
  const cols = Object.keys(approvalRow);
  await owned.sql(
    `INSERT INTO approvals (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    ...cols.map((c) => approvalRow[c]),
  );
}

const eraseCheckpoints = async (owned: Owned, from = 1) => {
  await owned.sql('DELETE FROM checkpoints WHERE tenant = ? AND seq >= ?', 'acme', from);
  await owned.sql('DELETE FROM checkpoint_heads WHERE tenant = ? AND checkpoint_seq >= ?', 'acme', from);
  await owned.sql('DELETE FROM checkpoint_latest WHERE tenant = ? AND checkpoint_seq >= ?', 'acme', from);
};

for (const [name, make] of STORES) {
  describe(`evidence the owner cannot erase (${name})`, () => {
    test('approve, checkpoint, cut back, erase the checkpoints: audit fails, no checkpoint signs it, approve does not run the tool again', async () => {
      const owned = make();
      const witness = join(tempDir('witness'), 'w');
      const { keel, close, runId, head, approvalRow } = await waitingRun(owned);
      try {
        await keel.approvals.approve('acme', runId, 'dana');
        assert.equal(close.calls.length, 1);
        const made = await makeCheckpoint(keel.store, 'acme', key, undefined, {
          witness: new DirectoryWitness(witness),
        });
        assert.equal(made.checkpoint.format, 'keel-checkpoint/2');
        assert.deepEqual(readdirSync(join(witness, 'acme')), ['000000000001.json']);
        await cutBack(owned, runId, head, approvalRow);
        await eraseCheckpoints(owned);
        // verify cannot see a consistent cut: the ledger, run row and approvals row agree.
        assert.equal((await keel.runs.verify('acme', runId)).ok, true);

        // Without a witness: a tenant with runs and no checkpoint fails, never "no checkpoints yet".
        const bare = await verifyCheckpoints(keel.store, 'acme', { trustedKey: key.publicKey });
        assert.equal(bare.ok, false);
        assert.deepEqual(
          bare.anomalies.map((a) => a.kind),
          ['checkpoint-missing'],
        );
        // With the witness: the checkpoint it holds is named as missing.
        const w = new DirectoryWitness(witness);
        const witnessed = await w.last('acme');
        const r = await verifyCheckpoints(keel.store, 'acme', {
          trustedKey: key.publicKey,
          ...(witnessed ? { witnessed } : {}),
        });
        assert.equal(r.ok, false);
        assert.equal(r.chainValid, false);
        const missing = r.anomalies.find((a) => a.checkpoint === 1);
        assert.equal(missing?.kind, 'checkpoint-missing', JSON.stringify(r.anomalies));
        assert.match(
          missing?.detail ?? '',
          /holds no checkpoint: checkpoints were deleted or the store was rolled back/,
        );
        assert.equal(r.witness?.held, false);
        // The next checkpoint refuses to sign over the forgery; the witness keeps what it had.
        await assert.rejects(
          makeCheckpoint(keel.store, 'acme', key, undefined, { witness: w }),
          refusedAs('checkpoint_missing'),
        );
        assert.equal((await keel.store.checkpoints.listCheckpoints('acme')).length, 0);
        assert.deepEqual(readdirSync(join(witness, 'acme')), ['000000000001.json']);
      } finally {
        await keel.close();
      }
      // A Keel that knows the witness refuses every action on the tenant's runs before the tool.
      const again = createKeel({
        store: await owned.open(),
        tools: [spyTool('reply'), close],
        checkpointWitness: witness,
      });
      try {
        await assert.rejects(again.approvals.approve('acme', runId, 'dana'), refusedAs('checkpoint_missing'));
        await assert.rejects(
          again.runs.cancel('acme', runId, { by: 'dana' }),
          refusedAs('checkpoint_missing'),
        );
        const v = await again.runs.verify('acme', runId);
        assert.ok(!v.ok && v.failure.code === 'checkpoint_missing', JSON.stringify(v));
        assert.equal(close.calls.length, 1, 'the destructive tool ran once, never again');
      } finally {
        await again.close();
        await owned.drop();
      }
    });

    test('deleting only the newest checkpoint is found against the witness, and stops the next one', async () => {
      const owned = make();
      const dir = join(tempDir('witness'), 'w');
      const witness = new DirectoryWitness(dir);
      const { keel, runId } = await waitingRun(owned, { witness: dir });
      try {
        await makeCheckpoint(keel.store, 'acme', key, undefined, { witness });
        await keel.approvals.approve('acme', runId, 'dana');
        const second = await makeCheckpoint(keel.store, 'acme', key, undefined, { witness });
        assert.equal(second.checkpoint.seq, 2);
        // The owner deletes checkpoint 2 and puts the latest heads back as checkpoint 1 had them.
        await eraseCheckpoints(owned, 2);
        const heads = await owned.sql(
          'SELECT * FROM checkpoint_heads WHERE tenant = ? AND checkpoint_seq = 1',
          'acme',
        );
        for (const h of heads) {
          const cols = Object.keys(h);
          await owned.sql(
            `INSERT INTO checkpoint_latest (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
            ...cols.map((c) => h[c]),
          );
        }
        const unwitnessed = await verifyCheckpoints(keel.store, 'acme', { trustedKey: key.publicKey });
        assert.equal(unwitnessed.ok, true, 'alone, the store is a consistent older chain');
        const witnessed = await witness.last('acme');
        assert.equal(witnessed?.seq, 2);
        const r = await verifyCheckpoints(keel.store, 'acme', {
          trustedKey: key.publicKey,
          witnessed: witnessed!,
        });
        assert.deepEqual(
          r.anomalies.map((a) => [a.kind, a.checkpoint]),
          [['checkpoint-missing', 2]],
        );
        assert.match(r.anomalies[0]!.detail, /ends at checkpoint 1/);
        await assert.rejects(
          makeCheckpoint(keel.store, 'acme', key, undefined, { witness }),
          refusedAs('checkpoint_missing'),
        );
        await assert.rejects(
          keel.runs.cancel('acme', runId, { by: 'dana' }),
          refusedAs('checkpoint_missing'),
        );
      } finally {
        await keel.close();
        await owned.drop();
      }
    });

    test('a consistent cut with the checkpoints left in place: every action refuses it, audit verify names it', async () => {
      const owned = make();
      const { keel, close, runId, head, approvalRow } = await waitingRun(owned);
      try {
        await keel.approvals.approve('acme', runId, 'dana');
        await makeCheckpoint(keel.store, 'acme', key);
        const done = (await keel.runs.get('acme', runId)).head;
        await cutBack(owned, runId, head, approvalRow);
        const v = await keel.runs.verify('acme', runId);
        assert.ok(!v.ok && v.failure.code === 'checkpoint_mismatch', JSON.stringify(v));
        assert.match(
          v.failure.message,
          new RegExp(`ends at seq ${head.seq}, but checkpoint 1 recorded its head at seq ${done.seq}`),
        );
        const cut = refusedAs('checkpoint_mismatch');
        await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), cut);
        await assert.rejects(keel.approvals.deny('acme', runId, 'dana'), cut);
        await assert.rejects(keel.runs.cancel('acme', runId, { by: 'dana' }), cut);
        await assert.rejects(keel.runs.pause('acme', runId, { by: 'dana' }), cut);
        await assert.rejects(keel.runs.rerun('acme', runId), cut);
        await assert.rejects(keel.runs.fork('acme', runId, { fromSeq: 1, mode: 'branch' }), cut);
        await assert.rejects(keel.runs.recover('acme', runId), cut);
        assert.equal(close.calls.length, 1);
        const r = await verifyCheckpoints(keel.store, 'acme', { trustedKey: key.publicKey });
        assert.ok(
          r.anomalies.some((a) => a.kind === 'missing-entry' && a.runId === runId),
          JSON.stringify(r.anomalies),
        );
      } finally {
        await keel.close();
        await owned.drop();
      }
    });

    test('recorded heads edited to agree with a forged run stop the next checkpoint', async () => {
      const owned = make();
      const { keel, runId, head } = await waitingRun(owned);
      try {
        await keel.approvals.approve('acme', runId, 'dana');
        await makeCheckpoint(keel.store, 'acme', key);
        // The owner cuts the run back (rows consistent) and makes the last checkpoint's
        // recorded head say so too: the run then seems to extend what was checkpointed.
        await owned.sql('DELETE FROM approvals WHERE run_id = ?', runId);
        await owned.sql(
          'DELETE FROM entries WHERE run_key = (SELECT run_key FROM runs WHERE run_id = ?) AND seq > ?',
          runId,
          head.seq,
        );
        await owned.sql(
          "UPDATE runs SET head_seq = ?, head_hash = ?, status = 'waiting_approval' WHERE run_id = ?",
          head.seq,
          head.hash,
          runId,
        );
        for (const table of ['checkpoint_latest', 'checkpoint_heads'])
          await owned.sql(
            `UPDATE ${table} SET head_seq = ?, head_hash = ? WHERE run_id = ?`,
            head.seq,
            head.hash,
            runId,
          );
        await assert.rejects(makeCheckpoint(keel.store, 'acme', key), (e: unknown) => {
          assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
          assert.match(e.message, /the heads the store recorded for checkpoint 1 .* they were edited/);
          return true;
        });
        assert.equal((await keel.store.checkpoints.listCheckpoints('acme')).length, 1);
      } finally {
        await keel.close();
        await owned.drop();
      }
    });

    test('the witnessed head log is proven extended by the last one (RFC 9162 consistency proof)', async () => {
      const owned = make();
      const dir = join(tempDir('witness'), 'w');
      const witness = new DirectoryWitness(dir);
      const { keel, runId } = await waitingRun(owned);
      try {
        const first = await makeCheckpoint(keel.store, 'acme', key, undefined, { witness });
        const held = await witness.last('acme');
        await keel.approvals.approve('acme', runId, 'dana');
        const second = await makeCheckpoint(keel.store, 'acme', key, undefined, { witness });
        assert.equal(second.checkpoint.treeSize, first.checkpoint.treeSize! + 1, 'one head moved');
        const r = await verifyCheckpoints(keel.store, 'acme', {
          trustedKey: key.publicKey,
          witnessed: held!,
        });
        assert.equal(r.ok, true, JSON.stringify(r.anomalies));
        assert.deepEqual(
          [r.witness?.held, r.witness?.consistency?.verified, r.witness?.consistency?.toCheckpoint],
          [true, true, 2],
        );
        // A witness given that holds nothing of the tenant (a wrong path, a lost disk) is no proof.
        const empty = await verifyCheckpoints(keel.store, 'acme', {
          trustedKey: key.publicKey,
          emptyWitness: 'elsewhere',
        });
        assert.deepEqual(
          empty.anomalies.map((a) => [a.kind, a.checkpoint]),
          [['checkpoint-missing', 2]],
        );
        assert.match(
          empty.anomalies[0]!.detail,
          /witness elsewhere holds no checkpoint of tenant acme, but the store holds 2/,
        );
        // An edited head row of the witnessed checkpoint: the log the store holds no longer gives
        // what checkpoints 1 and 2 signed (the signed hashes themselves stay consistent).
        await owned.sql(
          'UPDATE checkpoint_heads SET head_hash = ? WHERE run_id = ? AND checkpoint_seq = 1',
          `sha256:${'0'.repeat(64)}`,
          runId,
        );
        const edited = await verifyCheckpoints(keel.store, 'acme', {
          trustedKey: key.publicKey,
          witnessed: held!,
        });
        assert.equal(edited.ok, false);
        assert.deepEqual(
          edited.anomalies.filter((a) => /head log/.test(a.detail)).map((a) => [a.kind, a.checkpoint]),
          [
            ['merkle-mismatch', 1],
            ['merkle-mismatch', 2],
          ],
        );
      } finally {
        await keel.close();
        await owned.drop();
      }
    });
  });
}
