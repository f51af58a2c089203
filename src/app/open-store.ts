/**
 * Choosing a store by name, for the composition root and the CLI: a SQLite file path (the
 * default, opened at once) or a `postgres://` / `postgresql://` URL (opened asynchronously, its
 * migrations applied). Like keel.ts, this is a place allowed to name concrete adapters; nothing
 * here prints a password — URLs leave this module through `describeStoreTarget` only.
 *
 * `openStoreFor` opens with a stated access: `create` may create the store, `write` needs an
 * existing one this process can write, and `read` an existing one it opens read-only when it cannot
 * write there (an archive on read-only media). A missing store is never created by `write` or
 * `read`: it is `store_not_found`, naming the target.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactUrl } from '../adapters/postgres/postgres-url.ts';
import { SCHEMA_VERSION as PG_SCHEMA } from '../adapters/postgres/schema.ts';
import { type SqliteOpenMode, SqliteStore } from '../adapters/sqlite/index.ts';
import { SCHEMA_VERSION as SQLITE_SCHEMA } from '../adapters/sqlite/schema.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { Store } from '../ports/index.ts';
import { isPostgresUrl } from './store-target.ts';

export interface OpenStoreOptions {
  /** SQLite only: `FULL` (default) or `NORMAL`. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** PostgreSQL only: the schema (default `public`, or the URL's `?schema=`). */
  readonly schema?: string;
}

/**
 * What opening may do: `create` the store when it is missing; `write` to an existing one (refused
 * when it is missing or this process cannot write there); `read` an existing one, read-only when
 * this process cannot write there.
 */
export type StoreAccess = 'create' | 'write' | 'read';

export interface OpenedStore {
  readonly store: Store;
  /** True when this call created the store (a new SQLite file, or an empty PostgreSQL schema). */
  readonly created: boolean;
  /** True when the store is open read-only: nothing can be written through it. */
  readonly readOnly: boolean;
}

export interface StoreMigration {
  readonly kind: 'sqlite' | 'postgres';
  readonly store: string;
  /** True when this call created the store. */
  readonly created: boolean;
  readonly schema?: string;
  /** The schema version before (PostgreSQL only) and after migrating. */
  readonly from?: number;
  readonly version: number;
  /** The migrations this call applied (PostgreSQL only). */
  readonly applied?: readonly number[];
}

/** The PostgreSQL adapter (and the pg driver) is loaded when a postgres:// store is opened, not before. */
const postgresAdapter = () => import('../adapters/postgres/index.ts');

const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

export { describeStoreTarget, isPostgresUrl } from './store-target.ts';

/** Opens a SQLite file synchronously (`create` by default); refuses URLs, which need `openStore`. */
export function openSqliteStore(
  path: string,
  synchronous?: 'FULL' | 'NORMAL',
  open: SqliteOpenMode = 'create',
): SqliteStore {
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
  return new SqliteStore(path, { ...(synchronous ? { synchronous } : {}), open });
}

/**
 * A SqliteStore for a path, a PostgresStore (migrated) for a postgres:// or postgresql:// URL,
 * created when missing.
 */
export async function openStore(target: string, o: OpenStoreOptions = {}): Promise<Store> {
  return (await openStoreFor(target, 'create', o)).store;
}

/** Opens the target with the stated access (see StoreAccess); says whether it created it. */
export async function openStoreFor(
  target: string,
  access: StoreAccess,
  o: OpenStoreOptions = {},
): Promise<OpenedStore> {
  if (isPostgresUrl(target)) return openPostgres(target, access, o);
  // Validates the path (a URL of another scheme, an empty path) before touching the file system.
  if (target === ':memory:' || target.trim() === '' || ANY_URL.test(target))
    return { store: openSqliteStore(target, o.synchronous), created: false, readOnly: false };
  const { open, created } = sqliteOpenMode(target, access);
  const store = openSqliteStore(target, o.synchronous, open);
  return { store, created, readOnly: store.readOnly };
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * How to open an existing SQLite file for `access`: in place for writing when this process can
 * write the file and its directory; otherwise (`read` only) read-only in place when SQLite can keep
 * its -wal/-shm files, or from a snapshot in memory when it cannot and no commits wait in a -wal.
 */
function sqliteOpenMode(path: string, access: StoreAccess): { open: SqliteOpenMode; created: boolean } {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw cannotOpen(path, e);
    if (access === 'create') return { open: 'create', created: true };
    throw new KeelError(ErrorCode.storeNotFound, `no store at ${path}`, { path });
  }
  if (!isFile) throw new KeelError(ErrorCode.storeUnavailable, `store ${path} is not a file`, { path });
  const dir = dirname(path);
  if (canWrite(path) && canWrite(dir)) return { open: 'existing', created: false };
  if (access !== 'read') {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `store ${path} is read-only here (${canWrite(path) ? `its directory ${dir}` : 'the file'} is not writable)`,
      { path, readOnly: true },
    );
  }
  if (canWrite(dir) || (existsSync(`${path}-wal`) && existsSync(`${path}-shm`)))
    return { open: 'readonly', created: false };
  if (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0) {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `store ${path} is read-only here and has commits in ${path}-wal but no ${path}-shm beside it; copy the store's files to a writable directory to read them`,
      { path, readOnly: true },
    );
  }
  return { open: 'snapshot', created: false };
}

function cannotOpen(path: string, e: unknown): KeelError {
  return new KeelError(
    ErrorCode.storeUnavailable,
    `cannot open store ${path}: ${(e as Error).message}`,
    { path },
    { cause: e },
  );
}

/**
 * PostgreSQL: the schema's version is checked first, without changing anything. An empty schema is
 * a store that does not exist (created only with `create`); one behind this Keel is migrated.
 */
async function openPostgres(target: string, access: StoreAccess, o: OpenStoreOptions): Promise<OpenedStore> {
  const { PostgresStore } = await postgresAdapter();
  const schema = o.schema ? { schema: o.schema } : {};
  let found: number;
  try {
    const store = await PostgresStore.open(target, { ...schema, migrate: false });
    return { store, created: false, readOnly: false };
  } catch (e) {
    const version = isKeelError(e) ? e.details.version : undefined;
    if (typeof version !== 'number' || version > PG_SCHEMA) throw e;
    found = version;
    if (found === 0 && access !== 'create') {
      const where = (e as KeelError).details.schema;
      throw new KeelError(
        ErrorCode.storeNotFound,
        `no store at ${redactUrl(target)}${typeof where === 'string' ? ` (schema ${where} has no Keel tables)` : ''}`,
        { path: redactUrl(target), ...(typeof where === 'string' ? { schema: where } : {}) },
      );
    }
  }
  return { store: await PostgresStore.open(target, schema), created: found === 0, readOnly: false };
}

/** Applies pending schema migrations to the target and reports its version (`keel migrate`). */
export async function migrateStore(target: string, o: OpenStoreOptions = {}): Promise<StoreMigration> {
  if (isPostgresUrl(target)) {
    const { PostgresStore } = await postgresAdapter();
    const r = await PostgresStore.migrate(target, o.schema ? { schema: o.schema } : {});
    return {
      kind: 'postgres',
      store: redactUrl(target),
      created: r.from === 0,
      schema: r.schema,
      from: r.from,
      version: r.version,
      applied: r.applied,
    };
  }
  // Opening a SQLite store migrates it in one transaction (and refuses a newer schema).
  const { store, created } = await openStoreFor(target, 'create', o);
  await store.close();
  return { kind: 'sqlite', store: target, created, version: SQLITE_SCHEMA };
}

/** The schema versions this Keel writes, per store kind. */
export const STORE_SCHEMA_VERSIONS = { sqlite: SQLITE_SCHEMA, postgres: PG_SCHEMA } as const;
