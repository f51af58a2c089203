/**
 * The PostgreSQL store's read and version statements, in one place so their text (and the names
 * they are prepared under) stay stable. Every statement is tenant-scoped: a run, version or
 * approval of another tenant matches nothing.
 */
import type pg from 'pg';
import type { StoredEntry } from '../../core/ledger/index.ts';
import { blobsWanted, withBlobs } from '../shared/blob-rows.ts';
import { entryFromColumns, RUN_COLUMNS } from '../shared/rows.ts';

export const SQL = {
  getRun: `SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1 AND tenant = $2`,
  readEntries: `SELECT e.seq, e.v, e.kind, e.prev_hash, e.payload_hash, e.hash, e.at, e.payload
    FROM runs r JOIN entries e ON e.run_key = r.run_key
    WHERE r.run_id = $1 AND r.tenant = $2 AND e.seq >= $3 ORDER BY e.seq LIMIT $4`,
  approvalsByTenant: 'SELECT * FROM approvals WHERE tenant = $1 ORDER BY requested_at, run_id, proposal_id',
  approvalsByRun:
    'SELECT * FROM approvals WHERE tenant = $1 AND run_id = $2 ORDER BY requested_at, proposal_id',
  insertVersion: `INSERT INTO workflow_versions
    (tenant, workflow_id, version, spec_hash, spec, status, published_at, published_by)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
  getVersion: 'SELECT * FROM workflow_versions WHERE tenant = $1 AND workflow_id = $2 AND version = $3',
  latestVersion:
    'SELECT * FROM workflow_versions WHERE tenant = $1 AND workflow_id = $2 ORDER BY version DESC LIMIT 1',
  versionsOf: 'SELECT * FROM workflow_versions WHERE tenant = $1 AND workflow_id = $2 ORDER BY version',
  routableTenants:
    "SELECT DISTINCT tenant FROM workflow_versions WHERE status IN ('LIVE', 'AUTONOMOUS') ORDER BY tenant",
  versionsAll: 'SELECT * FROM workflow_versions WHERE tenant = $1 ORDER BY workflow_id, version',
  readBlobs: 'SELECT hash, bytes FROM blobs WHERE tenant = $1 AND hash = ANY($2::text[])',
} as const;

/** A run's entries from `fromSeq`, in seq order, read as arrays (no per-row objects to build). */
export async function readEntryRows(
  pool: pg.Pool,
  tenant: string,
  runId: string,
  fromSeq: number,
  limit?: number,
): Promise<StoredEntry[]> {
  const r = await pool.query<unknown[]>({
    name: 'keel_read_entries',
    text: SQL.readEntries,
    values: [runId, tenant, fromSeq, limit ?? null],
    rowMode: 'array',
  });
  return attachBlobs(
    pool,
    tenant,
    r.rows.map((row) => entryFromColumns(runId, row)),
  );
}

/** Entries with the blobs their v2 payloads reference (one query, only when there are any). */
export async function attachBlobs<T extends StoredEntry>(
  pool: pg.Pool,
  tenant: string,
  entries: T[],
): Promise<T[]> {
  const wanted = blobsWanted(entries);
  if (wanted.length === 0) return entries;
  const r = await pool.query<unknown[]>({
    name: 'keel_read_blobs',
    text: SQL.readBlobs,
    values: [tenant, wanted],
    rowMode: 'array',
  });
  return withBlobs(entries, new Map(r.rows.map((row) => [row[0] as string, row[1] as Buffer])));
}
