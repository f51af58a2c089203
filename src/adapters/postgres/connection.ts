/**
 * Connecting to PostgreSQL: parses a `postgres://` URL (with Keel's own optional `?schema=` and
 * `?notify=off`, for databases without LISTEN/NOTIFY), builds the pool with the schema as its search_path, and turns driver failures into
 * KeelErrors whose messages name the server and the problem. It must never print a password:
 * every URL that reaches a message goes through `redactUrl`.
 */
import pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { isPostgresUrl, redactUrl } from './postgres-url.ts';

export { isPostgresUrl, redactUrl };

export const DEFAULT_SCHEMA = 'public';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresTarget {
  /** The URL handed to the driver (without Keel's `schema` parameter). */
  readonly connectionString: string;
  /** The URL as it may be printed: password replaced by `***`. */
  readonly display: string;
  readonly schema: string;
  /** Whether appends and releases NOTIFY workers, and workers LISTEN (`?notify=off`: poll only). */
  readonly notify: boolean;
}

export interface PoolOptions {
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
}

/** Checks a schema name: lower-case letters, digits and underscores, as PostgreSQL folds them. */
export function checkSchemaName(schema: string, field = 'schema'): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new KeelError(
      ErrorCode.usage,
      `${field}: expected a PostgreSQL schema name of lower-case letters, digits and underscores (at most 63, not starting with a digit), got ${JSON.stringify(schema)}`,
      { field },
    );
  }
  return schema;
}

/** Splits a store URL into what the driver needs and the schema Keel works in. */
export function parsePostgresTarget(url: string, schema?: string): PostgresTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new KeelError(ErrorCode.usage, `store: not a valid PostgreSQL URL: ${redactUrl(url)}`, {
      field: 'store',
    });
  }
  if (!isPostgresUrl(url)) {
    throw new KeelError(
      ErrorCode.usage,
      `store: expected a postgres:// or postgresql:// URL, got ${u.protocol}//…`,
      { field: 'store' },
    );
  }
  const fromUrl = u.searchParams.get('schema');
  u.searchParams.delete('schema');
  const notify = u.searchParams.get('notify') ?? 'on';
  u.searchParams.delete('notify');
  if (notify !== 'on' && notify !== 'off') {
    throw new KeelError(
      ErrorCode.usage,
      `store: ?notify: expected on or off, got ${JSON.stringify(notify)}`,
      {
        field: 'store',
      },
    );
  }
  const chosen = schema ?? fromUrl ?? DEFAULT_SCHEMA;
  return {
    connectionString: u.toString(),
    display: redactUrl(u.toString()),
    schema: checkSchemaName(chosen, schema === undefined && fromUrl !== null ? 'store: ?schema' : 'schema'),
    notify: notify === 'on',
  };
}

/**
 * A pool on the target's schema. `asyncCommit`: its sessions commit without waiting for the WAL
 * flush (`synchronous_commit = off`), for writes that a synchronous commit always follows before
 * anyone relies on them (postgres-event-index.ts).
 */
export function createPool(
  target: PostgresTarget,
  o: PoolOptions & { readonly asyncCommit?: boolean } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: o.poolSize ?? 10,
    connectionTimeoutMillis: o.connectTimeoutMs ?? 5000,
    application_name: 'keel',
    // The schema name is checked against SCHEMA_NAME, so it needs no quoting here.
    options: `-c search_path=${target.schema}${o.asyncCommit ? ' -c synchronous_commit=off' : ''}`,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

/** The driver's own message; Node reports a refused dual-stack connect as an AggregateError with none. */
export function driverMessage(e: unknown): string {
  if (e instanceof AggregateError && e.errors.length > 0) {
    return [...new Set(e.errors.map((x) => driverMessage(x)))].join('; ');
  }
  if (e instanceof Error) return e.message || (e as NodeJS.ErrnoException).code || e.name;
  return String(e);
}

/**
 * A number out of its column's range (SQLSTATE 22003, `integer out of range`) is bad input, never an
 * outage. The edges bound every number first (core/int-range.ts); this keeps one that slipped past
 * from reading as a store that is down.
 */
const OUT_OF_RANGE = '22003';

/** A failure to reach or use the database, as the store_unavailable KeelError (exit 6). */
export function unavailable(e: unknown, what: string, target: PostgresTarget): KeelError {
  if (e instanceof KeelError) return e;
  const code = (e as { code?: unknown }).code;
  if (code === OUT_OF_RANGE)
    return new KeelError(ErrorCode.usage, `a value is out of range for the store: ${driverMessage(e)}`, {
      driverCode: code,
    });
  return new KeelError(
    ErrorCode.storeUnavailable,
    `${what} ${target.display} (schema ${target.schema}): ${driverMessage(e)}`,
    {
      store: target.display,
      schema: target.schema,
      ...(typeof code === 'string' ? { driverCode: code } : {}),
    },
    { cause: e },
  );
}
