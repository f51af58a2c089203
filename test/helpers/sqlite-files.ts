/**
 * Direct reads (and deliberate tampering) of the SQLite files the CLI writes: the Keel store and
 * the example helpdesk beside it. Each call opens the file, does one thing and closes it, so the
 * next CLI process sees a settled file.
 */
import Database from 'better-sqlite3';
import { digestBlob, digestText } from '../../src/adapters/sqlite/schema.ts';

export function withDb<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

/** What the helpdesk records: handler calls, refunds and tickets. */
export class HelpdeskFile {
  constructor(readonly path: string) {}

  /** Handler calls of one tool (or of all tools). */
  calls(tool?: string): number {
    return withDb(this.path, (db) =>
      tool === undefined
        ? (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n
        : (db.prepare('SELECT count(*) AS n FROM calls WHERE tool = ?').get(tool) as { n: number }).n,
    );
  }

  refunds(ticketId: string): { id: string; amount_cents: number }[] {
    return withDb(
      this.path,
      (db) =>
        db.prepare('SELECT id, amount_cents FROM refunds WHERE ticket_id = ? ORDER BY id').all(ticketId) as {
          id: string;
          amount_cents: number;
        }[],
    );
  }

  ticket(id: string): { status: string; tags: string[] } {
    return withDb(this.path, (db) => {
      const row = db.prepare('SELECT status, tags FROM tickets WHERE id = ?').get(id) as
        | { status: string; tags: string }
        | undefined;
      if (!row) throw new Error(`ticket ${id} not in ${this.path}`);
      return { status: row.status, tags: JSON.parse(row.tags) as string[] };
    });
  }
}

/** One ledger entry as stored, named by its run id (whatever key the entries table uses). */
export interface EntryRow {
  run_id: string;
  seq: number;
  v: number;
  kind: string;
  prev_hash: string | null;
  payload_hash: string;
  hash: string;
  at: string;
  payload: Buffer;
}

/**
 * How the entries table names its run (by `run_id`, or by the compact integer `run_key` of the
 * runs table) and how it keeps digests (as `sha256:<hex>` text, or as their 32 bytes since schema
 * v7). Looked up, so tampering tests follow the schema rather than restate it.
 */
function entryLayout(
  db: Database.Database,
  runId: string,
): { column: string; value: string | number; read: (c: string) => string; write: (p: string) => string } {
  const columns = db.prepare('PRAGMA table_info(entries)').all() as { name: string; type: string }[];
  const blob = columns.find((c) => c.name === 'hash')?.type === 'BLOB';
  const digests = blob
    ? { read: (c: string) => `${digestText(c)} AS ${c}`, write: digestBlob }
    : { read: (c: string) => c, write: (p: string) => p };
  if (!columns.some((c) => c.name === 'run_key')) return { column: 'run_id', value: runId, ...digests };
  const row = db.prepare('SELECT run_key FROM runs WHERE run_id = ?').get(runId) as
    | { run_key: number }
    | undefined;
  if (!row) throw new Error(`no run ${runId} in the store`);
  return { column: 'run_key', value: row.run_key, ...digests };
}

export function entryRows(store: string, runId: string): EntryRow[] {
  return withDb(store, (db) => {
    const key = entryLayout(db, runId);
    const rows = db
      .prepare(
        `SELECT seq, v, kind, ${key.read('prev_hash')}, ${key.read('payload_hash')}, ${key.read('hash')}, at, payload
         FROM entries WHERE ${key.column} = ? ORDER BY seq`,
      )
      .all(key.value) as Omit<EntryRow, 'run_id'>[];
    return rows.map((r) => ({ run_id: runId, ...r }));
  });
}

export function runRow(store: string, runId: string): Record<string, unknown> | undefined {
  return withDb(
    store,
    (db) =>
      db.prepare('SELECT * FROM runs WHERE run_id = ?').get(runId) as Record<string, unknown> | undefined,
  );
}

/** Replaces one entry row wholesale (same run and seq), e.g. to restore it after tampering. */
export function putEntryRow(store: string, row: EntryRow): void {
  withDb(store, (db) => {
    const key = entryLayout(db, row.run_id);
    const { run_id: _, ...fields } = row;
    db.prepare(
      `INSERT OR REPLACE INTO entries (${key.column}, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
       VALUES (@key, @seq, @v, @kind, ${key.write('@prev_hash')}, ${key.write('@payload_hash')}, ${key.write('@hash')}, @at, @payload)`,
    ).run({ ...fields, key: key.value });
  });
}

export function deleteEntryRow(store: string, runId: string, seq: number): void {
  withDb(store, (db) => {
    const key = entryLayout(db, runId);
    const r = db.prepare(`DELETE FROM entries WHERE ${key.column} = ? AND seq = ?`).run(key.value, seq);
    if (r.changes !== 1) throw new Error(`no entry ${runId}#${seq} to delete`);
  });
}

export function setRunHead(store: string, runId: string, head: { seq: number; hash: string }): void {
  withDb(store, (db) => {
    db.prepare('UPDATE runs SET head_seq = ?, head_hash = ? WHERE run_id = ?').run(
      head.seq,
      head.hash,
      runId,
    );
  });
}
