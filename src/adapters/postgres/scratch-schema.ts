/**
 * Throwaway schemas for tests and benchmarks: each run of a suite works in its own uniquely named
 * schema of the test database and drops it afterwards, so parallel runs never collide. An
 * unreachable database is a loud failure naming the URL and how to fix it — never a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { driverMessage, parsePostgresTarget } from './connection.ts';
import { PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';

/** The database tests use: KEEL_TEST_DATABASE_URL, or the local trust-auth server. */
export function testDatabaseUrl(): string {
  return process.env.KEEL_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

/** A schema name unique to this process and call: `<prefix>_<pid>_<random>`. */
export function scratchSchemaName(prefix = 'keel_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Drops a schema and everything in it (its own short-lived connection). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const { connectionString } = parsePostgresTarget(url, schema);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Opens a store in `schema`, turning "cannot reach" into an error that says what to do. */
export async function openScratchStore(
  url: string,
  schema: string,
  options: Omit<PostgresStoreOptions, 'schema'> = {},
): Promise<PostgresStore> {
  try {
    return await PostgresStore.open(url, { ...options, schema });
  } catch (e) {
    throw new Error(
      `PostgreSQL is required here and could not be used: ${driverMessage(e)}. ` +
        'Start it (pg_ctlcluster --skip-systemctl-redirect 15 main start) or point KEEL_TEST_DATABASE_URL at one.',
      { cause: e },
    );
  }
}
