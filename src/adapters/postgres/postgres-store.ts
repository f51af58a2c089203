/**
 * The scale-out Store: PostgreSQL through a `pg` pool, held to the same contract as SQLite.
 *
 * Group commit: appends issued in the same turn of the event loop are written together — one
 * statement (append-statement.ts) in one transaction, one round trip — and an append's promise
 * resolves only after that transaction committed. Head checks live in SQL, so any number of
 * processes sharing the database can never both append at one seq. If the group's statement fails
 * as a whole, the group is written again with a SAVEPOINT per append, so a bad append fails alone.
 * This class never retries an append that might have committed under a different head.
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, StoredEntry } from '../../core/ledger/index.ts';
import type {
  AppendRequest,
  PendingApproval,
  Promotion,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  StoreStats,
  VersionRecord,
} from '../../ports/index.ts';
import { APPEND_SQL, APPEND_STATEMENT, appendParams, checkChain, splitRounds } from './append-statement.ts';
import { createPool, type PoolOptions, type PostgresTarget, parsePostgresTarget, unavailable } from './connection.ts';
import { checkSchemaVersion, type MigrationReport, migrateSchema } from './migrate.ts';
import { readEntryRows, SQL } from './queries.ts';
import { decodeCursor, encodeCursor, RUN_COLUMNS, type Row, toApproval, toPromotion, toRun, toVersion } from './rows.ts';

export interface PostgresStoreOptions extends PoolOptions {
  /** The schema Keel's tables live in (default `public`, or the URL's `?schema=`). */
  readonly schema?: string;
  /** Apply pending migrations at open (default true); false refuses a schema that is behind. */
  readonly migrate?: boolean;
  /** Group-commit transactions in flight at once (default 2). */
  readonly maxInFlight?: number;
}

interface Pending {
  readonly req: AppendRequest;
  readonly resolve: (h: Head) => void;
  readonly reject: (e: unknown) => void;
}

type Outcome = { ok: true } | { ok: false; error: unknown };

export class PostgresStore implements Store {
  private queue: Pending[] = [];
  private flushScheduled = false;
  private inFlight = 0;
  private drained: (() => void)[] = [];
  private commits = 0;
  private entriesAppended = 0;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly target: PostgresTarget,
    private readonly maxInFlight: number,
  ) {}

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
    return new PostgresStore(pool, target, Math.max(1, options.maxInFlight ?? 2));
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

  /** Where this store lives, printable (no password). */
  get location(): { readonly url: string; readonly schema: string } {
    return { url: this.target.display, schema: this.target.schema };
  }

  append(req: AppendRequest): Promise<Head> {
    if (this.closing) return Promise.reject(new KeelError(ErrorCode.storeUnavailable, 'store is closed'));
    try {
      checkChain(req);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<Head>((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    const group = this.queue;
    this.queue = [];
    this.inFlight++;
    void this.writeGroup(group).finally(() => {
      this.inFlight--;
      if (this.queue.length > 0) this.scheduleFlush();
      else if (this.inFlight === 0) for (const done of this.drained.splice(0)) done();
    });
  }

  /** Writes one group and settles every append in it; never rejects. */
  private async writeGroup(group: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.writeTogether(group);
    } catch (e) {
      if (group.length === 1) {
        group[0]!.reject(appendError(e, group[0]!.req, this.target));
        return;
      }
      try {
        outcomes = await this.writeIsolated(group);
      } catch (e2) {
        const error = unavailable(e2, 'append failed on', this.target);
        for (const p of group) p.reject(error);
        return;
      }
    }
    this.commits++;
    group.forEach((p, i) => {
      const o = outcomes[i]!;
      if (!o.ok) return p.reject(o.error);
      const last = p.req.entries[p.req.entries.length - 1]!;
      this.entriesAppended += p.req.entries.length;
      p.resolve({ seq: last.seq, hash: last.hash });
    });
  }

  /** The fast path: one statement per round (usually one round), one transaction. */
  private async writeTogether(group: Pending[]): Promise<Outcome[]> {
    const rounds = splitRounds(group);
    const won = new Set<Pending>();
    const runRound = async (client: pg.Pool | pg.PoolClient, round: Pending[]) => {
      for (const ord of await appendRound(client, round.map((p) => p.req))) won.add(round[ord]!);
    };
    if (rounds.length === 1) await runRound(this.pool, rounds[0]!);
    else await this.transaction(async (c) => {
      for (const round of rounds) await runRound(c, round);
    });
    return group.map((p) => (won.has(p) ? { ok: true } : { ok: false, error: conflict(p.req) }));
  }

  /** The slow path: one transaction, a savepoint per append, so a failing append fails alone. */
  private writeIsolated(group: Pending[]): Promise<Outcome[]> {
    return this.transaction(async (c) => {
      const outcomes: Outcome[] = [];
      for (const p of group) {
        await c.query('SAVEPOINT keel_append');
        try {
          const won = (await appendRound(c, [p.req])).length === 1;
          await c.query('RELEASE SAVEPOINT keel_append');
          outcomes.push(won ? { ok: true } : { ok: false, error: conflict(p.req) });
        } catch (e) {
          await c.query('ROLLBACK TO SAVEPOINT keel_append');
          outcomes.push({ ok: false, error: appendError(e, p.req, this.target) });
        }
      }
      return outcomes;
    });
  }

  private async transaction<T>(body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const result = await body(c);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      await c.query('ROLLBACK').catch((r: Error) => {
        broken = r;
      });
      throw e;
    } finally {
      c.release(broken);
    }
  }

  private async query(text: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query<Row>(text as string, values);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const r = await this.query({ name: 'keel_get_run', text: SQL.getRun, values: [runId, tenant] });
    return r.rows[0] ? toRun(r.rows[0]) : undefined;
  }

  async listRuns(tenant: string, filter: RunFilter = {}): Promise<RunPage> {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const params: unknown[] = [tenant];
    const where = ['tenant = $1'];
    if (filter.status) where.push(`status = $${params.push(filter.status)}`);
    if (filter.workflowId) where.push(`workflow_id = $${params.push(filter.workflowId)}`);
    if (filter.cursor) {
      const [createdAt, runId] = decodeCursor(filter.cursor);
      where.push(`(created_at, run_id) < ($${params.push(createdAt)}, $${params.push(runId)})`);
    }
    const { rows } = await this.query(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, run_id DESC LIMIT $${params.push(limit + 1)}`,
      params,
    );
    const runs = rows.slice(0, limit).map(toRun);
    const lastRun = runs[runs.length - 1];
    return rows.length > limit && lastRun ? { runs, next: encodeCursor(lastRun.createdAt, lastRun.runId) } : { runs };
  }

  async readEntries(tenant: string, runId: string, fromSeq = 0): Promise<StoredEntry[]> {
    try {
      return await readEntryRows(this.pool, tenant, runId, fromSeq);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  async listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]> {
    const r =
      runId === undefined
        ? await this.query({ name: 'keel_approvals_all', text: SQL.approvalsByTenant, values: [tenant] })
        : await this.query({ name: 'keel_approvals_run', text: SQL.approvalsByRun, values: [tenant, runId] });
    return r.rows.map(toApproval);
  }

  async putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }> {
    const r = await this.query(SQL.insertVersion, [
      rec.tenant,
      rec.workflowId,
      rec.version,
      rec.specHash,
      JSON.stringify(rec.spec),
      rec.status,
      rec.publishedAt,
      rec.publishedBy,
    ]);
    if (r.rowCount === 1) {
      this.commits++;
      return { created: true, record: rec };
    }
    const existing = await this.getVersion(rec.tenant, rec.workflowId, rec.version);
    if (!existing) throw new KeelError(ErrorCode.internal, 'version vanished during publish');
    if (existing.specHash !== rec.specHash) {
      throw new KeelError(
        ErrorCode.versionImmutable,
        `${rec.workflowId} v${rec.version} is already published with different content (${existing.specHash}); publish it as a new version`,
        { workflowId: rec.workflowId, version: rec.version, publishedHash: existing.specHash, newHash: rec.specHash },
      );
    }
    return { created: false, record: existing };
  }

  async getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined> {
    const r =
      version === undefined
        ? await this.query({ name: 'keel_latest_version', text: SQL.latestVersion, values: [tenant, workflowId] })
        : await this.query({ name: 'keel_get_version', text: SQL.getVersion, values: [tenant, workflowId, version] });
    return r.rows[0] ? toVersion(r.rows[0]) : undefined;
  }

  async listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]> {
    const r =
      workflowId === undefined
        ? await this.query(SQL.versionsAll, [tenant])
        : await this.query(SQL.versionsOf, [tenant, workflowId]);
    return r.rows.map(toVersion);
  }

  /** Compare-and-set on the status plus the promotion row, in one statement (one transaction). */
  async setVersionStatus(p: Promotion): Promise<void> {
    const r = await this.query(SQL.promote, [p.tenant, p.workflowId, p.version, p.from, p.to, p.by, p.at]);
    if (r.rowCount !== 1) {
      throw new KeelError(ErrorCode.headConflict, `${p.workflowId} v${p.version} is no longer ${p.from}`, {
        workflowId: p.workflowId,
        version: p.version,
      });
    }
    this.commits++;
  }

  async listPromotions(tenant: string, workflowId: string): Promise<Promotion[]> {
    return (await this.query(SQL.promotions, [tenant, workflowId])).rows.map(toPromotion);
  }

  stats(): StoreStats {
    return { commits: this.commits, entriesAppended: this.entriesAppended };
  }

  /** Writes what is queued, waits for groups in flight, then closes the pool. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.queue.length > 0 || this.inFlight > 0) {
        await new Promise<void>((done) => {
          this.drained.push(done);
          this.flush();
        });
      }
      await this.pool.end();
    })();
    return this.closing;
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

/** Runs APPEND_SQL for one round and returns the indexes (ords) of the appends that won. */
async function appendRound(client: pg.Pool | pg.PoolClient, reqs: readonly AppendRequest[]): Promise<number[]> {
  const r = await client.query<{ ord: number }>({ name: APPEND_STATEMENT, text: APPEND_SQL, values: appendParams(reqs) });
  return r.rows.map((row) => row.ord);
}

function conflict(req: AppendRequest): KeelError {
  const why =
    req.expectedHead === null ? 'the run already exists' : `the head is no longer seq ${req.expectedHead.seq}`;
  return new KeelError(ErrorCode.headConflict, `cannot append to run ${req.runId}: ${why}`, {
    runId: req.runId,
    expectedHead: req.expectedHead,
  });
}

/** A failed append: a taken (run, seq) is a head conflict, a broken constraint a broken invariant. */
function appendError(e: unknown, req: AppendRequest, target: PostgresTarget): KeelError {
  if (e instanceof KeelError) return e;
  const { code, constraint, detail } = e as { code?: string; constraint?: string; detail?: string };
  if (code === '23505' && (constraint === 'entries_pkey' || constraint === 'runs_run_id_key')) return conflict(req);
  if (code?.startsWith('23')) {
    return new KeelError(
      ErrorCode.internal,
      `append to run ${req.runId} violates ${constraint ?? 'a constraint'}${detail ? `: ${detail}` : ''}`,
      { runId: req.runId, constraint },
      { cause: e },
    );
  }
  return unavailable(e, 'append failed on', target);
}
