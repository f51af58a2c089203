/**
 * The embedded Store: one SQLite file, WAL, `synchronous=FULL` by default. It opens the file,
 * migrates it, and composes the ports (docs/storage.md), each in its own file, over one
 * transaction handle (sqlite-handle.ts: the Database and its group commit), so an append that
 * spans several concerns stays one transaction.
 * Opened `readonly` or as a `snapshot` (see SqliteOpenMode), it never writes: every statement that
 * would is refused as store_unavailable before it reaches SQLite.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Store, StoreStats } from '../../ports/index.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { SqliteCheckpoints } from './sqlite-checkpoints.ts';
import { SqliteEventIndex } from './sqlite-event-index.ts';
import { SqliteEventWaits } from './sqlite-event-waits.ts';
import { SqliteEvidence } from './sqlite-evidence.ts';
import { SqliteHandle } from './sqlite-handle.ts';
import { SqliteIdempotency } from './sqlite-idempotency.ts';
import { SqliteKeys } from './sqlite-keys.ts';
import { SqliteLedger } from './sqlite-ledger.ts';
import { SqliteRegistry } from './sqlite-registry.ts';
import { SqliteRunIndex } from './sqlite-run-index.ts';
import { SqliteShadowQueue } from './sqlite-shadow-queue.ts';
import { SqliteUnroutedInbox } from './sqlite-unrouted-inbox.ts';
import { SqliteWorkQueue } from './sqlite-work-queue.ts';
import { SqliteWritBudgets } from './sqlite-writ-budgets.ts';

/**
 * How the file is opened:
 * - `create` (default): the file, and its directory, are created when missing; pending migrations apply.
 * - `existing`: the file must exist (nothing is created); pending migrations apply.
 * - `readonly`: SQLite's read-only open of an existing file. Nothing is written and nothing migrated
 *   (a schema behind this Keel's is refused). SQLite still needs the -wal and -shm files beside the
 *   store to exist, or a directory where it can create them.
 * - `snapshot`: the file is read whole and opened from memory, read-only: for a store in a directory
 *   where SQLite can create nothing (an archive on read-only media). Commits still in a -wal file
 *   are not in the snapshot, so the caller uses it only when there is none.
 */
export type SqliteOpenMode = 'create' | 'existing' | 'readonly' | 'snapshot';

export interface SqliteStoreOptions {
  /** `FULL` (default) fsyncs every commit; `NORMAL` may lose the last commits on power loss. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How the file is opened (default `create`). */
  readonly open?: SqliteOpenMode;
}

export class SqliteStore implements Store {
  readonly ledger: SqliteLedger;
  readonly runs: SqliteRunIndex;
  readonly registry: SqliteRegistry;
  readonly evidence: SqliteEvidence;
  readonly shadowQueue: SqliteShadowQueue;
  readonly queue: SqliteWorkQueue;
  readonly waits: SqliteEventWaits;
  readonly keys: SqliteKeys;
  readonly idempotency: SqliteIdempotency;
  readonly budgets: SqliteWritBudgets;
  readonly checkpoints: SqliteCheckpoints;
  readonly events: SqliteEventIndex;
  readonly unrouted: SqliteUnroutedInbox;
  private readonly db: Database.Database;
  private readonly handle: SqliteHandle;
  /** True when opened `readonly` or as a `snapshot`: nothing is ever written. */
  readonly readOnly: boolean;
  /** The durability actually in force, read back from SQLite: journal mode and synchronous level. */
  readonly durability: {
    readonly journalMode: string;
    readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  };

  constructor(
    readonly path: string,
    options: SqliteStoreOptions = {},
  ) {
    const mode = options.open ?? 'create';
    this.readOnly = mode === 'readonly' || mode === 'snapshot';
    if (mode === 'create' && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = openDatabase(path, mode);
      if (this.readOnly) refuseWrites(this.db, path);
      else {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
      }
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = ON');
      this.migrate();
      const sync = this.db.pragma('synchronous', { simple: true }) as number;
      this.durability = {
        journalMode: String(this.db.pragma('journal_mode', { simple: true })),
        synchronous: (['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const)[sync] ?? 'OFF',
      };
      // Preparing checks every statement against the schema: a file with another layout fails here.
      const h = new SqliteHandle(this.db, this.durability.synchronous);
      this.handle = h;
      this.keys = new SqliteKeys(h);
      this.budgets = new SqliteWritBudgets(this.db, (tenant, hash) => this.keys.chainOf(tenant, hash));
      this.shadowQueue = new SqliteShadowQueue(h);
      this.checkpoints = new SqliteCheckpoints(h);
      this.ledger = new SqliteLedger(h, path, {
        budgets: this.budgets,
        shadowQueue: this.shadowQueue,
        checkpoints: this.checkpoints,
      });
      this.runs = new SqliteRunIndex(this.db);
      this.registry = new SqliteRegistry(h);
      this.evidence = new SqliteEvidence(h);
      this.queue = new SqliteWorkQueue(h, (tenant, runId) => this.ledger.entriesOf(tenant, runId));
      this.idempotency = new SqliteIdempotency(h);
      this.events = new SqliteEventIndex(h);
      this.waits = new SqliteEventWaits(h);
      this.unrouted = new SqliteUnroutedInbox(h);
    } catch (e) {
      if (e instanceof KeelError) throw e;
      throw new KeelError(
        ErrorCode.storeUnavailable,
        `cannot open store ${path}: ${(e as Error).message}`,
        { path },
        { cause: e },
      );
    }
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new KeelError(
        ErrorCode.storeUnavailable,
        `store ${this.path} has schema v${current}, newer than this Keel understands (v${SCHEMA_VERSION}); upgrade Keel`,
        { path: this.path, schema: current },
      );
    }
    if (current === SCHEMA_VERSION) return;
    if (this.readOnly) {
      throw new KeelError(
        ErrorCode.storeUnavailable,
        current === 0
          ? `${this.path} is not a Keel store (it has no Keel schema)`
          : `store ${this.path} has schema v${current}, behind this Keel's v${SCHEMA_VERSION}, and is open read-only: migrate it where it is writable (keel migrate)`,
        { path: this.path, schema: current },
      );
    }
    this.db
      .transaction(() => {
        for (let v = current; v < SCHEMA_VERSION; v++) this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })
      .immediate();
  }

  stats(): StoreStats {
    return { commits: this.handle.commits, entriesAppended: this.handle.entriesAppended };
  }

  async close(): Promise<void> {
    if (this.handle.closed) return;
    this.handle.close();
    this.ledger.stopAppendPoll();
    this.db.close();
  }
}

/** Opens the SQLite file as `mode` says (see SqliteOpenMode). */
function openDatabase(path: string, mode: SqliteOpenMode): Database.Database {
  switch (mode) {
    case 'create':
      return new Database(path);
    case 'existing':
      return new Database(path, { fileMustExist: true });
    case 'readonly':
      return new Database(path, { readonly: true, fileMustExist: true });
    case 'snapshot': {
      const bytes = readFileSync(path);
      // Bytes 18 and 19 of the header are 2 in WAL mode; a database in memory has no WAL, so SQLite
      // refuses such an image unless it is marked as a rollback-journal database (1).
      if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) bytes[18] = bytes[19] = 1;
      return new Database(bytes, { readonly: true });
    }
  }
}

/**
 * Read-only handles: every statement that would write is refused as store_unavailable when it
 * runs, before it reaches SQLite (which would say "attempt to write a readonly database").
 */
function refuseWrites(db: Database.Database, path: string): void {
  const prepare = db.prepare.bind(db);
  const refuse = () => {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `store ${path} is open read-only; nothing can be written to it here`,
      { path, readOnly: true },
    );
  };
  db.prepare = ((sql: string) => {
    const stmt = prepare(sql);
    if (stmt.readonly) return stmt;
    const guarded: Database.Statement = new Proxy(stmt, {
      get(target, key) {
        if (key === 'run' || key === 'get' || key === 'all' || key === 'iterate') return refuse;
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        // Chained setters (raw, pluck, expand, safeIntegers...) return the statement: keep the guard.
        return (...args: unknown[]) => {
          const r = (value as (...a: unknown[]) => unknown).apply(target, args);
          return r === target ? guarded : r;
        };
      },
    });
    return guarded;
  }) as typeof db.prepare;
}
