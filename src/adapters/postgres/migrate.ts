/**
 * Applies the numbered migrations of schema.ts to one PostgreSQL schema, recording each in
 * `keel_migrations`. Safe to run from many processes at once: the whole run holds a transaction-
 * scoped advisory lock keyed on the schema name, so one process migrates and the others then find
 * nothing to do. It never applies part of a migration, and never touches a schema written by a
 * newer Keel (that is refused as store_unavailable).
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';

export interface MigrationReport {
  readonly schema: string;
  /** The version found before migrating (0 for an empty schema). */
  readonly from: number;
  /** The version after migrating: always this Keel's SCHEMA_VERSION. */
  readonly version: number;
  /** The migrations this call applied (empty when another process or an earlier run did). */
  readonly applied: readonly number[];
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function versionIn(client: pg.PoolClient): Promise<number> {
  const r = await client.query<{ v: number }>(
    'SELECT coalesce(max(version), 0)::int AS v FROM keel_migrations',
  );
  return r.rows[0]?.v ?? 0;
}

function newerThanKeel(schema: string, found: number): KeelError {
  return new KeelError(
    ErrorCode.storeUnavailable,
    `schema ${schema} is at version ${found}, newer than this Keel understands (${SCHEMA_VERSION}); upgrade Keel`,
    { schema, version: found, supported: SCHEMA_VERSION },
  );
}

/** Brings `schema` to SCHEMA_VERSION in one transaction. */
export async function migrateSchema(client: pg.PoolClient, schema: string): Promise<MigrationReport> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`keel.migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
    await client.query(`SET LOCAL search_path TO ${ident(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS keel_migrations (
         version INTEGER PRIMARY KEY,
         name TEXT NOT NULL,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const from = await versionIn(client);
    if (from > SCHEMA_VERSION) throw newerThanKeel(schema, from);
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO keel_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return { schema, from, version: SCHEMA_VERSION, applied };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

/** Reads the schema's version without changing anything; refuses one that is behind or ahead. */
export async function checkSchemaVersion(client: pg.PoolClient, schema: string): Promise<number> {
  let found: number;
  try {
    found = await versionIn(client);
  } catch (e) {
    if ((e as { code?: string }).code !== '42P01') throw e;
    found = 0;
  }
  if (found > SCHEMA_VERSION) throw newerThanKeel(schema, found);
  if (found < SCHEMA_VERSION) {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `schema ${schema} is at version ${found}, this Keel needs ${SCHEMA_VERSION}: run \`keel migrate\``,
      { schema, version: found, supported: SCHEMA_VERSION },
    );
  }
  return found;
}
