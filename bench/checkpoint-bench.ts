/**
 * The checkpoint section of `npm run bench`: how long a signed checkpoint of a tenant with
 * 1,000,000 runs takes on SQLite (every head read in creation order, streamed into the Merkle
 * root, signed, and the heads that moved stored), the first time (every head is new) and again
 * with nothing moved. The run rows are written straight into the file (the figure is the
 * checkpoint's, not the runs'); median of three for the second.
 */
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/adapters/sqlite/index.ts';
import { makeCheckpoint } from '../src/app/checkpoints/index.ts';
import { hashOf } from '../src/core/canonical/index.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function checkpointFigures(
  dir: string,
  o: { runs?: number } = {},
): Promise<Record<string, number>> {
  const runs = o.runs ?? 1_000_000;
  const path = join(dir, 'checkpoints.db');
  await new SqliteStore(path).close(); // the schema
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
     VALUES (?, 'bench', 'bench', 1, ?, 'completed', 7, ?, ?, 'go', ?, ?)`,
  );
  const spec = hashOf('bench');
  db.transaction(() => {
    for (let i = 0; i < runs; i++) {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 10).toISOString();
      insert.run(hashOf({ run: i }), spec, hashOf({ head: i }), `e-${i}`, at, at);
    }
  })();
  db.close();
  const store = new SqliteStore(path, { synchronous: 'FULL' });
  const key = generateKeyPairSync('ed25519');
  try {
    const first = await makeCheckpoint(store, 'bench', key);
    if (first.checkpoint.runs !== runs) throw new Error('bench: the checkpoint missed runs');
    const again: number[] = [];
    for (let i = 0; i < 3; i++) again.push((await makeCheckpoint(store, 'bench', key)).ms);
    const n = runs.toLocaleString('en-US');
    return {
      [`checkpoint of ${n} runs, first (every head new), ms`]: first.ms,
      [`checkpoint of ${n} runs, nothing moved since the last, ms`]: median(again),
    };
  } finally {
    await store.close();
  }
}
