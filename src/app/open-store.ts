/**
 * Choosing a store by name, for the composition root and the CLI: a SQLite file path (the
 * default, opened at once) or a `postgres://` / `postgresql://` URL (opened asynchronously, its
 * migrations applied). Like keel.ts, this is a place allowed to name concrete adapters; nothing
 * here prints a password — URLs leave this module through `describeStoreTarget` only.
 */
import { SCHEMA_VERSION as PG_SCHEMA, PostgresStore, redactUrl } from '../adapters/postgres/index.ts';
import { SqliteStore } from '../adapters/sqlite/index.ts';
import { SCHEMA_VERSION as SQLITE_SCHEMA } from '../adapters/sqlite/schema.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Store } from '../ports/index.ts';
import { isPostgresUrl } from './store-target.ts';

export interface OpenStoreOptions {
  /** SQLite only: `FULL` (default) or `NORMAL`. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** PostgreSQL only: the schema (default `public`, or the URL's `?schema=`). */
  readonly schema?: string;
}

export interface StoreMigration {
  readonly kind: 'sqlite' | 'postgres';
  readonly store: string;
  readonly schema?: string;
  /** The schema version before (PostgreSQL only) and after migrating. */
  readonly from?: number;
  readonly version: number;
  /** The migrations this call applied (PostgreSQL only). */
  readonly applied?: readonly number[];
}

const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

export { describeStoreTarget, isPostgresUrl } from './store-target.ts';

/** Opens a SQLite file synchronously; refuses URLs, which need `openStore`. */
export function openSqliteStore(path: string, synchronous?: 'FULL' | 'NORMAL'): SqliteStore {
  if (isPostgresUrl(path)) {
    throw new KeelError(
      ErrorCode.usage,
      `store: ${redactUrl(path)} is a PostgreSQL URL; open it with \`await openStore(url)\` and pass the store to createKeel`,
      { field: 'store' },
    );
  }
  if (ANY_URL.test(path)) {
    throw new KeelError(
      ErrorCode.usage,
      `store: ${path.split('://')[0]}:// is not a supported store; use a SQLite file path or a postgres:// URL`,
      { field: 'store' },
    );
  }
  if (path.trim() === '') {
    throw new KeelError(ErrorCode.usage, 'store: expected a SQLite file path or a postgres:// URL, got ""', {
      field: 'store',
    });
  }
  return new SqliteStore(path, synchronous ? { synchronous } : {});
}

/** A SqliteStore for a path, a PostgresStore (migrated) for a postgres:// or postgresql:// URL. */
export async function openStore(target: string, o: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(target)) return PostgresStore.open(target, o.schema ? { schema: o.schema } : {});
  return openSqliteStore(target, o.synchronous);
}

/** Applies pending schema migrations to the target and reports its version (`keel migrate`). */
export async function migrateStore(target: string, o: OpenStoreOptions = {}): Promise<StoreMigration> {
  if (isPostgresUrl(target)) {
    const r = await PostgresStore.migrate(target, o.schema ? { schema: o.schema } : {});
    return {
      kind: 'postgres',
      store: redactUrl(target),
      schema: r.schema,
      from: r.from,
      version: r.version,
      applied: r.applied,
    };
  }
  // Opening a SQLite store migrates it in one transaction (and refuses a newer schema).
  await openSqliteStore(target, o.synchronous).close();
  return { kind: 'sqlite', store: target, version: SQLITE_SCHEMA };
}

/** The schema versions this Keel writes, per store kind. */
export const STORE_SCHEMA_VERSIONS = { sqlite: SQLITE_SCHEMA, postgres: PG_SCHEMA } as const;
