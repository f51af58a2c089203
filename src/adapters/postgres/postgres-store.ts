/**
 * The scale-out Store: PostgreSQL through a `pg` pool, held to the same contracts as SQLite.
 * `PostgresStore.open` connects, migrates, and composes the ports (docs/storage.md), each in its
 * own file, over one connection object (postgres-handle.ts: the pool, the target and the group
 * commit), so an append that spans several concerns stays one transaction. Head checks live in
 * SQL, so any number of processes sharing the database can never both append at one seq. It must
 * never hold state that another process could contradict: every answer comes from the database.
 */
import type pg from 'pg';
import type { Store, StoreStats } from '../../ports/index.ts';
import {
  createPool,
  type PoolOptions,
  type PostgresTarget,
  parsePostgresTarget,
  unavailable,
} from './connection.ts';
import { checkSchemaVersion, type MigrationReport, migrateSchema } from './migrate.ts';
import { PostgresCheckpoints } from './postgres-checkpoints.ts';
import { PostgresEventIndex } from './postgres-event-index.ts';
import { PostgresEventWaits } from './postgres-event-waits.ts';
import { PostgresEvidence } from './postgres-evidence.ts';
import { PostgresHandle } from './postgres-handle.ts';
import { PostgresIdempotency } from './postgres-idempotency.ts';
import { PostgresKeys } from './postgres-keys.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { PostgresRegistry } from './postgres-registry.ts';
import { PostgresRunIndex } from './postgres-run-index.ts';
import { PostgresShadowQueue } from './postgres-shadow-queue.ts';
import { PostgresUnroutedInbox } from './postgres-unrouted-inbox.ts';
import { PostgresWorkQueue } from './postgres-work-queue.ts';
import { PostgresWritBudgets } from './postgres-writ-budgets.ts';

export interface PostgresStoreOptions extends PoolOptions {
  /** The schema Keel's tables live in (default `public`, or the URL's `?schema=`). */
  readonly schema?: string;
  /** Apply pending migrations at open (default true); false refuses a schema that is behind. */
  readonly migrate?: boolean;
  /** Group-commit transactions in flight at once (default 1: the next group gathers while one commits). */
  readonly maxInFlight?: number;
}

export class PostgresStore implements Store {
  readonly ledger: PostgresLedger;
  readonly runs: PostgresRunIndex;
  readonly registry: PostgresRegistry;
  readonly evidence: PostgresEvidence;
  readonly shadowQueue: PostgresShadowQueue;
  readonly queue: PostgresWorkQueue;
  readonly keys: PostgresKeys;
  readonly idempotency: PostgresIdempotency;
  readonly budgets: PostgresWritBudgets;
  readonly checkpoints: PostgresCheckpoints;
  readonly events: PostgresEventIndex;
  readonly waits: PostgresEventWaits;
  readonly unrouted: PostgresUnroutedInbox;
  private readonly handle: PostgresHandle;

  private constructor(pool: pg.Pool, target: PostgresTarget, maxInFlight: number) {
    const h = new PostgresHandle(pool, target, maxInFlight);
    this.handle = h;
    this.ledger = new PostgresLedger(h);
    this.runs = new PostgresRunIndex(h);
    this.registry = new PostgresRegistry(h);
    this.evidence = new PostgresEvidence(h);
    this.shadowQueue = new PostgresShadowQueue(h);
    this.queue = new PostgresWorkQueue(h);
    this.keys = new PostgresKeys(h);
    this.idempotency = new PostgresIdempotency(h);
    this.budgets = new PostgresWritBudgets(h);
    this.checkpoints = new PostgresCheckpoints(h);
    this.events = new PostgresEventIndex(h);
    this.waits = new PostgresEventWaits(h);
    this.unrouted = new PostgresUnroutedInbox(h);
  }

  /** Connects, applies pending migrations (unless `migrate: false`) and returns a ready store. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const target = parsePostgresTarget(url, options.schema);
    const pool = createPool(target, options);
    try {
      await withClient<unknown>(pool, target, (c) =>
        options.migrate === false ? checkSchemaVersion(c, target.schema) : migrateSchema(c, target.schema),
      );
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return new PostgresStore(pool, target, Math.max(1, options.maxInFlight ?? 1));
  }

  /** Applies pending migrations to the URL's schema and reports the version (`keel migrate`). */
  static async migrate(
    url: string,
    options: Pick<PostgresStoreOptions, 'schema' | 'connectTimeoutMs'> = {},
  ): Promise<MigrationReport> {
    const target = parsePostgresTarget(url, options.schema);
    const pool = createPool(target, { ...options, poolSize: 1 });
    try {
      return await withClient(pool, target, (c) => migrateSchema(c, target.schema));
    } finally {
      await pool.end().catch(() => {});
    }
  }

  stats(): StoreStats {
    const h = this.handle;
    return { commits: h.commits + h.writer.commits, entriesAppended: h.writer.entriesAppended };
  }

  /** Writes what is queued, waits for groups in flight, then closes the pool. */
  close(): Promise<void> {
    return this.handle.close(() => this.ledger.stopListening());
  }
}

async function withClient<T>(pool: pg.Pool, target: PostgresTarget, body: (c: pg.PoolClient) => Promise<T>) {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw unavailable(e, 'cannot connect to PostgreSQL at', target);
  }
  try {
    return await body(client);
  } catch (e) {
    throw unavailable(e, 'cannot prepare the schema on', target);
  } finally {
    client.release();
  }
}
