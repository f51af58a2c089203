/**
 * The embedded Store: one SQLite file, WAL, `synchronous=FULL` by default.
 *
 * Group commit: appends issued in the same turn of the event loop are written in one transaction
 * (one fsync), each inside its own savepoint so one stale head fails alone. An append's promise
 * resolves only after that transaction committed. Head checks live in SQL (`UPDATE ... WHERE
 * head_seq = ?`), so several processes sharing the file still cannot both append at one seq.
 * Leases and worker heartbeats live in sqlite-leases.ts; wake-ups reach listeners of this handle
 * only (other processes poll). API keys and idempotency records live in sqlite-keys-idempotency.ts.
 * Opened `readonly` or as a `snapshot` (see SqliteOpenMode), it never writes: every statement that
 * would is refused as store_unavailable before it reaches SQLite.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Digest } from '../../core/canonical/index.ts';
import type { Checkpoint } from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, RunStatus, StoredEntry } from '../../core/ledger/index.ts';
import { retainedRunError } from '../../core/run/index.ts';
import type {
  ApiKeyInfo,
  ApiKeyRecord,
  AppendRequest,
  CheckpointHead,
  CheckpointHeadRow,
  ClaimedRun,
  ClaimedShadowWork,
  ClaimScope,
  DeliveredEvent,
  EntryFilter,
  EntryPage,
  EntryQuery,
  EventClaim,
  EventConflict,
  HeadCursor,
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyRef,
  IdempotencyResponse,
  LifecycleChange,
  LiveRunTally,
  LiveRunWindow,
  LogCursor,
  NewEventConflict,
  NewPromotion,
  PendingApproval,
  Promotion,
  RetainedRun,
  RunCount,
  RunFilter,
  RunPage,
  RunRecord,
  ShadowClaimScope,
  ShadowQueueStatus,
  ShadowSkip,
  ShadowWork,
  Store,
  StoredComparison,
  StoredRollout,
  StoreStats,
  TriggerDisagreement,
  TrustedKeyRecord,
  VersionRecord,
  WorkerRecord,
  WorkerStatus,
  WritBudgetUsage,
  WritRevocation,
} from '../../ports/index.ts';
import { appendedBlobs, blobsWanted, withBlobs } from '../shared/blob-rows.ts';
import { checkChain } from '../shared/check-chain.ts';
import { checkClaimScope, checkShadowClaimScope } from '../shared/check-claim-scope.ts';
import {
  afterCursor,
  decodeEntryCursor,
  entryConditions,
  entryLimit,
  entryOrder,
  entryPage,
  SQLITE_ENTRY_SQL,
  unreadablePayload,
} from '../shared/entry-query-rows.ts';
import { checkIntArg } from '../shared/int-args.ts';
import { modeFilter } from '../shared/lifecycle-rows.ts';
import {
  decodeCursor,
  encodeCursor,
  entryFromColumns,
  type Row,
  samePublishedVersion,
  toApproval,
  toRun,
  toVersion,
} from '../shared/rows.ts';
import { checkSecretKeyCandidate, SECRET_KEY_SQL } from '../shared/secret-key-rows.ts';
import {
  type BudgetLink,
  BudgetLinkCache,
  budgetLinks,
  budgetRefusal,
  chainMissing,
  checkBudgetChange,
  fits,
  usageOf,
} from '../shared/writ-budget-rows.ts';
import { sqliteStatement } from '../shared/writ-trust-rows.ts';
import { digestBlob, digestText, MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { SqliteCheckpoints } from './sqlite-checkpoints.ts';
import { SqliteEvents } from './sqlite-events.ts';
import { SqliteKeysIdempotency } from './sqlite-keys-idempotency.ts';
import { SqliteLeases } from './sqlite-leases.ts';
import { SqliteLifecycle } from './sqlite-lifecycle.ts';
import { SqliteRetention } from './sqlite-retention.ts';
import { SqliteShadowQueue } from './sqlite-shadow-queue.ts';
import { SqliteWritTrust } from './sqlite-writ-trust.ts';

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

/** How often, while anyone listens for appends, another process's commits are looked for (ms). */
export const APPEND_POLL_MS = 100;

/**
 * A write waiting for the next group commit: an append, or (`write`) another small write that
 * rides in the same transaction rather than paying a commit of its own (a shadow comparison, an
 * event's claim, a conflicting redelivery). A `lazy` write is one a durable commit always follows
 * before anyone relies on it (the claim of an event whose runs start next): a group of lazy writes
 * alone commits without its own fsync (synchronous=NORMAL for that transaction). In WAL mode the
 * next FULL commit syncs the log, and with it every frame before its own, so the write is durable
 * before anything it names is; a crash in between loses it together with runs never started.
 */
type Pending =
  | {
      readonly req: AppendRequest;
      readonly resolve: (h: Head) => void;
      readonly reject: (e: unknown) => void;
    }
  | {
      readonly write: () => unknown;
      readonly lazy?: boolean;
      readonly resolve: (v: unknown) => void;
      readonly reject: (e: unknown) => void;
    };

export class SqliteStore implements Store {
  get ledger(): this {
    return this;
  }
  get runs(): this {
    return this;
  }
  get registry(): this {
    return this;
  }
  get evidence(): this {
    return this;
  }
  get shadowQueue(): this {
    return this;
  }
  get queue(): this {
    return this;
  }
  get keys(): this {
    return this;
  }
  get idempotency(): this {
    return this;
  }
  get budgets(): this {
    return this;
  }
  get checkpoints(): this {
    return this;
  }
  get events(): this {
    return this;
  }
  private readonly db: Database.Database;
  private readonly st: ReturnType<SqliteStore['prepare']>;
  private pending: Pending[] = [];
  private flushScheduled = false;
  private commits = 0;
  private entriesAppended = 0;
  private closed = false;
  private readonly leases: SqliteLeases;
  private readonly keyRows: SqliteKeysIdempotency;
  private readonly writTrust: SqliteWritTrust;
  private readonly lifecycle: SqliteLifecycle;
  private readonly shadowRows: SqliteShadowQueue;
  private readonly eventRows: SqliteEvents;
  private readonly checkpointRows: SqliteCheckpoints;
  private readonly retention: SqliteRetention;
  private readonly wakeListeners = new Set<() => void>();
  /** Writ chains' budget links read so far (a chain never changes). */
  private readonly budgetLinks = new BudgetLinkCache();
  /** Append listeners (onAppended) and the poll that notices other processes' commits for them. */
  private readonly appendListeners = new Set<(runId?: string) => void>();
  private appendPoll: NodeJS.Timeout | undefined;
  private dataVersion = 0;
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
      this.st = this.prepare();
      this.leases = new SqliteLeases(this.db, (tenant, runId) => this.ledgerOf(tenant, runId));
      this.keyRows = new SqliteKeysIdempotency(this.db);
      this.writTrust = new SqliteWritTrust(this.db);
      this.lifecycle = new SqliteLifecycle(this.db);
      this.shadowRows = new SqliteShadowQueue(this.db);
      this.eventRows = new SqliteEvents(this.db);
      this.checkpointRows = new SqliteCheckpoints(this.db);
      this.retention = new SqliteRetention(this.db);
    } catch (e) {
      if (e instanceof KeelError) throw e;
      throw new KeelError(
        ErrorCode.storeUnavailable,
        `cannot open store ${path}: ${(e as Error).message}`,
        { path },
        { cause: e },
      );
    }
    this.writeBatch = this.db.transaction((body: () => void) => body()).immediate;
    this.inSavepoint = this.db.transaction((apply: () => unknown) => apply());
  }

  /** Runs `body` in one IMMEDIATE transaction (one commit, one fsync). */
  private readonly writeBatch: (body: () => void) => void;
  /** Inside writeBatch: applies one queued write in a savepoint, so it can fail alone. */
  private readonly inSavepoint: (apply: () => unknown) => unknown;

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

  private prepare() {
    const db = this.db;
    return {
      insertRun: db.prepare(
        `INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at, lease_owner, lease_until, mode, shadow_of)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING RETURNING run_key`,
      ),
      advanceRun: db.prepare(
        `UPDATE runs SET status = ?, head_seq = ?, head_hash = ?, updated_at = ?,
           lease_owner = CASE WHEN ? THEN ? ELSE lease_owner END,
           lease_until = CASE WHEN ? THEN ? ELSE lease_until END
         WHERE run_id = ? AND tenant = ? AND head_seq = ? AND head_hash = ? RETURNING run_key`,
      ),
      insertEntry: db.prepare(
        // Digests are stored as their 32 bytes (schema v7). checkChain saw that hash and payload
        // hash are digests, and that prev_hash is null or the hash of the entry before.
        `INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
         VALUES (?, ?, ?, ?, ${digestBlob('?')}, ${digestBlob('?')}, ${digestBlob('?')}, ?, ?)`,
      ),
      openApproval: db.prepare(
        `INSERT INTO approvals (run_id, proposal_id, tenant, step, tool, args, reason, channel, requested_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      closeApproval: db.prepare('DELETE FROM approvals WHERE run_id = ? AND proposal_id = ?'),
      hasBlob: db.prepare('SELECT 1 FROM blobs WHERE tenant = ? AND hash = ?').pluck(),
      insertBlob: db.prepare(
        'INSERT INTO blobs (tenant, hash, bytes) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      linkBlob: db.prepare('INSERT INTO run_blobs (run_key, hash) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      readBlobs: db
        .prepare(
          'SELECT hash, bytes FROM blobs WHERE tenant = ? AND hash IN (SELECT value FROM json_each(?))',
        )
        .raw(),
      getRun: db.prepare('SELECT * FROM runs WHERE run_id = ? AND tenant = ?'),
      runKey: db.prepare('SELECT run_key FROM runs WHERE run_id = ? AND tenant = ?').pluck(),
      readEntries: db
        .prepare(
          `SELECT seq, v, kind, ${digestText('prev_hash')}, ${digestText('payload_hash')}, ${digestText('hash')}, at, payload
           FROM entries WHERE run_key = ? AND seq >= ? ORDER BY seq LIMIT ?`,
        )
        .raw(),
      getSecretKey: db.prepare(sqliteStatement(SECRET_KEY_SQL.get).sql),
      putSecretKey: db.prepare(sqliteStatement(SECRET_KEY_SQL.put).sql),
      approvalsByTenant: db.prepare('SELECT * FROM approvals WHERE tenant = ? ORDER BY requested_at, run_id'),
      // By the primary key (run_id first): the planner would otherwise walk the tenant's whole
      // approvals index for its order, which every action on a run pays (run-evidence.ts).
      approvalsByRun: db.prepare(
        'SELECT * FROM approvals WHERE run_id = ? AND +tenant = ? ORDER BY requested_at',
      ),
      insertVersion: db.prepare(
        `INSERT INTO workflow_versions (tenant, workflow_id, version, spec_hash, spec, status, published_at, published_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      getVersion: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? AND version = ?',
      ),
      latestVersion: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? ORDER BY version DESC LIMIT 1',
      ),
      versionsOf: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? AND workflow_id = ? ORDER BY version',
      ),
      versionsAll: db.prepare(
        'SELECT * FROM workflow_versions WHERE tenant = ? ORDER BY workflow_id, version',
      ),

      budgetRow: db.prepare('SELECT * FROM writ_budgets WHERE tenant = ? AND hash = ?'),
      // Reserve and release in one statement per writ; the table's CHECK backs the check made first.
      budgetChange: db.prepare(
        `INSERT INTO writ_budgets (tenant, hash, steps_limit, calls_limit, cents_limit, steps_used, calls_used, cents_used)
         VALUES (@tenant, @hash, @stepsLimit, @callsLimit, @centsLimit, @steps, @calls, @cents)
         ON CONFLICT (tenant, hash) DO UPDATE SET
           steps_used = max(0, steps_used - @freeSteps) + @steps,
           calls_used = max(0, calls_used - @freeCalls) + @calls,
           cents_used = max(0, cents_used - @freeCents) + @cents`,
      ),
    };
  }

  append(req: AppendRequest): Promise<Head> {
    return this.enqueue<Head>((resolve, reject) => ({ req, resolve, reject }));
  }

  /** Queues a write for the next group commit (one transaction, one fsync, for all queued). */
  private enqueue<T>(make: (resolve: (v: T) => void, reject: (e: unknown) => void) => Pending): Promise<T> {
    if (this.closed) return Promise.reject(new KeelError(ErrorCode.storeUnavailable, 'store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.pending.push(make(resolve, reject));
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const lazy =
      this.durability.synchronous === 'FULL' && batch.every((p) => 'write' in p && p.lazy === true);
    if (lazy) this.db.pragma('synchronous = NORMAL');
    try {
      this.writeBatch(() => {
        for (const p of batch) {
          try {
            // A lone write needs no savepoint: if it throws, the whole transaction rolls back.
            const apply = 'req' in p ? () => this.applyAppend(p.req) : p.write;
            outcomes.push({
              ok: true,
              value: batch.length === 1 ? apply() : this.inSavepoint(apply),
            });
          } catch (error) {
            if (batch.length === 1) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (e) {
      const error =
        e instanceof KeelError
          ? e
          : new KeelError(
              ErrorCode.storeUnavailable,
              `append failed: ${(e as Error).message}`,
              {},
              { cause: e },
            );
      for (const p of batch) p.reject(error);
      return;
    } finally {
      if (lazy) this.db.pragma('synchronous = FULL');
    }
    // A lazy group is not durable on its own (no fsync): the commit that follows it counts.
    if (!lazy) this.commits++;
    let wake = false;
    const appended = this.appendListeners.size > 0 ? new Set<string>() : undefined;
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (!o.ok) p.reject(o.error);
      else if ('req' in p) {
        this.entriesAppended += p.req.entries.length;
        if (p.req.lease?.op === 'release' && p.req.status === 'running') wake = true;
        appended?.add(p.req.runId);
        p.resolve(o.value as Head);
      } else p.resolve(o.value);
    });
    if (wake) this.wake();
    if (appended) for (const runId of appended) this.announce(runId);
  }

  /** Tells this handle's append listeners (after the commit) that a run, or any run, has new entries. */
  private announce(runId?: string): void {
    for (const listener of this.appendListeners) setImmediate(listener, runId);
  }

  /** Tells this handle's listeners that runs may have become claimable (after the commit). */
  private wake(): void {
    for (const listener of this.wakeListeners) setImmediate(listener);
  }

  /** Runs inside a savepoint: throwing rolls back this append only. */
  private applyAppend(req: AppendRequest): Head {
    checkChain(req);
    const { entries, expectedHead } = req;
    const first = entries[0]!;
    const last = entries[entries.length - 1]!;
    let row: { run_key: number } | undefined;
    // A lease change: [whether to change it, owner, until]; `hold` counts from this store's clock.
    const lease = req.lease;
    const [leaseOwner, leaseUntil] =
      lease?.op === 'hold' ? [lease.owner, Date.now() + lease.ms] : [null, null];
    if (expectedHead === null) {
      const c = req.create;
      if (!c) throw new KeelError(ErrorCode.internal, 'creating a run needs its identity');
      if (this.retention.isRetained(req.runId)) throw retainedRunError(req.runId);
      row = this.st.insertRun.get(
        req.runId,
        req.tenant,
        c.workflowId,
        c.version,
        c.specHash,
        req.status,
        last.seq,
        last.hash,
        c.eventId,
        c.eventType,
        first.at,
        last.at,
        leaseOwner,
        leaseUntil,
        c.mode ?? null,
        c.shadowOf ?? null,
      ) as { run_key: number } | undefined;
      if (!row) throw conflict(req, 'the run already exists');
    } else {
      row = this.st.advanceRun.get(
        req.status,
        last.seq,
        last.hash,
        last.at,
        lease ? 1 : 0,
        leaseOwner,
        lease ? 1 : 0,
        leaseUntil,
        req.runId,
        req.tenant,
        expectedHead.seq,
        expectedHead.hash,
      ) as { run_key: number } | undefined;
      if (!row) throw conflict(req, `the head is no longer seq ${expectedHead.seq}`);
    }
    if (req.budget) this.changeBudget(req);
    for (const e of entries) {
      this.st.insertEntry.run(
        row.run_key,
        e.seq,
        e.v,
        e.kind,
        e.prevHash,
        e.payloadHash,
        e.hash,
        e.at,
        e.payload,
      );
    }
    for (const b of appendedBlobs(entries)) {
      // A blob the tenant already holds (a run's later appends, other runs with the same answer)
      // is looked up by its key, not bound and built into a row only for the conflict to drop it.
      // The write lock is held from here to the commit: the row cannot go before the link is in.
      if (this.st.hasBlob.get(req.tenant, b.hash) === undefined)
        this.st.insertBlob.run(req.tenant, b.hash, b.bytes);
      this.st.linkBlob.run(row.run_key, b.hash);
    }
    if (req.closeApproval) this.st.closeApproval.run(req.runId, req.closeApproval);
    if (req.shadowWork) this.shadowRows.insert(req.shadowWork);
    const a = req.openApproval;
    if (a) {
      this.st.openApproval.run(
        a.runId,
        a.proposalId,
        a.tenant,
        a.step,
        a.tool,
        JSON.stringify(a.args),
        a.reason,
        a.channel,
        a.requestedAt,
      );
    }
    return { seq: last.seq, hash: last.hash };
  }

  /**
   * Inside the append's savepoint: reserves from (or releases to) every writ of the run's chain.
   * A reservation that does not fit any of them throws writ_budget_exhausted, and the savepoint
   * rolls the whole append back. One process at a time writes the file, so check-then-update is exact.
   */
  private changeBudget(req: AppendRequest): void {
    const b = req.budget!;
    checkBudgetChange(req.runId, b);
    const links = this.linksOf(req.tenant, b.writ);
    if (b.reserve) {
      const usage = this.usage(req.tenant, links);
      if (!usage.every((u) => fits(u.used, u.limit, b))) throw budgetRefusal(usage, b);
    }
    const reserve = b.reserve;
    const release = b.release;
    for (const l of links)
      this.st.budgetChange.run({
        tenant: req.tenant,
        hash: l.hash,
        stepsLimit: l.limit.steps,
        callsLimit: l.limit.calls,
        centsLimit: l.limit.cents,
        steps: reserve?.steps ?? 0,
        calls: reserve?.calls ?? 0,
        cents: reserve?.cents ?? 0,
        freeSteps: release?.steps ?? 0,
        freeCalls: release?.calls ?? 0,
        freeCents: release?.cents ?? 0,
      });
  }

  /** The budget links of the chain stored under `leaf` (root first); ledger_invalid without one. */
  private linksOf(tenant: string, leaf: Digest): readonly BudgetLink[] {
    let links = this.budgetLinks.get(tenant, leaf);
    if (!links) {
      const text = this.writTrust.getChain(tenant, leaf);
      if (text === undefined) throw chainMissing(tenant, leaf);
      links = budgetLinks(text, leaf);
      this.budgetLinks.set(tenant, leaf, links);
    }
    return links;
  }

  private usage(tenant: string, links: readonly BudgetLink[]): WritBudgetUsage[] {
    const rows = links.map((l) => this.st.budgetRow.get(tenant, l.hash) as Row | undefined);
    return usageOf(
      links,
      rows.filter((r): r is Row => r !== undefined),
    );
  }

  async readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined> {
    return io('reading writ budgets', () => {
      if (this.writTrust.getChain(tenant, hash) === undefined) return undefined;
      return this.usage(tenant, this.linksOf(tenant, hash));
    });
  }

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const row = this.st.getRun.get(runId, tenant) as Row | undefined;
    return row ? toRun(row) : undefined;
  }

  async listRuns(tenant: string, filter: RunFilter = {}): Promise<RunPage> {
    checkIntArg('version', filter.version);
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const where = ['tenant = ?'];
    const params: unknown[] = [tenant];
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.workflowId) {
      where.push('workflow_id = ?');
      params.push(filter.workflowId);
    }
    where.push(
      ...modeFilter(filter, (v) => {
        params.push(v);
        return '?';
      }),
    );
    if (filter.cursor) {
      const [createdAt, runId] = decodeCursor(filter.cursor);
      where.push('(created_at < ? OR (created_at = ? AND run_id < ?))');
      params.push(createdAt, createdAt, runId);
    }
    const rows = this.db
      .prepare(
        `SELECT * FROM runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, run_id DESC LIMIT ?`,
      )
      .all(...params, limit + 1) as Row[];
    const runs = rows.slice(0, limit).map(toRun);
    const lastRun = runs[runs.length - 1];
    return rows.length > limit && lastRun
      ? { runs, next: encodeCursor(lastRun.createdAt, lastRun.runId) }
      : { runs };
  }

  async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number): Promise<StoredEntry[]> {
    checkIntArg('fromSeq', fromSeq, 0);
    return this.ledgerOf(tenant, runId, fromSeq, limit);
  }

  /** readEntries, synchronously (claims read ledgers inside their transaction). */
  private ledgerOf(tenant: string, runId: string, fromSeq = 0, limit?: number): StoredEntry[] {
    const key = this.st.runKey.get(runId, tenant) as number | undefined;
    if (key === undefined) return [];
    const rows = this.st.readEntries.all(key, fromSeq, limit ?? -1) as unknown[][];
    return this.attachBlobs(
      tenant,
      rows.map((r) => entryFromColumns(runId, r)),
    );
  }

  /** Entries with the blobs their v2 payloads reference (one query, only when there are any). */
  private attachBlobs<T extends StoredEntry>(tenant: string, entries: T[]): T[] {
    const wanted = blobsWanted(entries);
    if (wanted.length === 0) return entries;
    const found = new Map<string, Uint8Array>();
    for (const [hash, bytes] of this.st.readBlobs.all(tenant, JSON.stringify(wanted)) as [string, Buffer][])
      found.set(hash, bytes);
    return withBlobs(entries, found);
  }

  async queryEntries(tenant: string, q: EntryQuery): Promise<EntryPage> {
    const limit = entryLimit(q.limit);
    const cursor = q.cursor === undefined ? undefined : decodeEntryCursor(q.cursor);
    const params: unknown[] = [];
    const bind = (v: unknown) => {
      params.push(v);
      return '?';
    };
    const where = entryConditions(tenant, q, SQLITE_ENTRY_SQL, bind);
    if (cursor) where.push(afterCursor(cursor, SQLITE_ENTRY_SQL, bind));
    const rows = this.readPayloads(q, () =>
      this.db
        .prepare(
          `SELECT r.run_id, r.workflow_id, r.version, e.seq, e.v, e.kind, ${digestText('e.prev_hash')}, ${digestText('e.payload_hash')}, ${digestText('e.hash')}, e.at, e.payload
           FROM entries e JOIN runs r ON r.run_key = e.run_key
           WHERE ${where.join(' AND ')} ORDER BY ${entryOrder(SQLITE_ENTRY_SQL)} LIMIT ${bind(limit + 1)}`,
        )
        .raw()
        .all(...params),
    ) as unknown[][];
    const page = entryPage(rows as unknown[][], limit);
    return { ...page, entries: this.attachBlobs(tenant, [...page.entries]) };
  }

  async countEntries(tenant: string, f: EntryFilter): Promise<Record<string, number>> {
    const params: unknown[] = [];
    const where = entryConditions(tenant, f, SQLITE_ENTRY_SQL, (v) => {
      params.push(v);
      return '?';
    });
    const rows = this.readPayloads(f, () =>
      this.db
        .prepare(
          `SELECT e.kind AS kind, count(*) AS n FROM entries e JOIN runs r ON r.run_key = e.run_key
           WHERE ${where.join(' AND ')} GROUP BY e.kind`,
        )
        .all(...params),
    ) as { kind: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
  }

  /** Runs an audit statement; a payload the actor or code filter cannot parse refuses the query. */
  private readPayloads<T>(f: EntryFilter, body: () => T): T {
    return io('querying entries', () => {
      try {
        return body();
      } catch (e) {
        const readsPayloads = f.actor !== undefined || f.code !== undefined;
        throw readsPayloads && /malformed JSON/i.test((e as Error).message) ? unreadablePayload(e) : e;
      }
    });
  }

  async listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]> {
    const rows = (
      runId === undefined ? this.st.approvalsByTenant.all(tenant) : this.st.approvalsByRun.all(runId, tenant)
    ) as Row[];
    return rows.map(toApproval);
  }

  async putVersion(rec: VersionRecord): Promise<{ created: boolean; record: VersionRecord }> {
    checkIntArg('version', rec.version);
    const r = this.st.insertVersion.run(
      rec.tenant,
      rec.workflowId,
      rec.version,
      rec.specHash,
      JSON.stringify(rec.spec),
      rec.status,
      rec.publishedAt,
      rec.publishedBy,
    );
    if (r.changes === 1) return { created: true, record: rec };
    const existing = await this.getVersion(rec.tenant, rec.workflowId, rec.version);
    return { created: false, record: samePublishedVersion(rec, existing) };
  }

  async getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined> {
    checkIntArg('version', version);
    const row = (
      version === undefined
        ? this.st.latestVersion.get(tenant, workflowId)
        : this.st.getVersion.get(tenant, workflowId, version)
    ) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  async listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]> {
    const rows = (
      workflowId === undefined ? this.st.versionsAll.all(tenant) : this.st.versionsOf.all(tenant, workflowId)
    ) as Row[];
    return rows.map(toVersion);
  }

  async setVersionStatus(p: NewPromotion): Promise<void> {
    await this.recordLifecycle({ tenant: p.tenant, workflowId: p.workflowId, records: [p] });
  }

  async listPromotions(tenant: string, workflowId: string): Promise<Promotion[]> {
    return this.lifecycle.list(tenant, workflowId);
  }

  async recordLifecycle(change: LifecycleChange): Promise<Promotion[]> {
    const records = this.lifecycle.record(change);
    this.commits++;
    return records;
  }

  async getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined> {
    return this.lifecycle.rollout(tenant, workflowId);
  }

  // --- The event index (sqlite-events.ts) ---

  /** Kept in the next group commit with the appends around it: concurrent deliveries share one fsync. */
  claimEvent(d: DeliveredEvent, disagreements: readonly TriggerDisagreement[] = []): Promise<EventClaim> {
    return this.enqueue<EventClaim>((resolve, reject) => ({
      write: () => this.eventRows.claim(d, disagreements),
      // The runs it names are started next, in durable commits.
      lazy: d.runs.length > 0,
      resolve: (v: unknown) => resolve(v as EventClaim),
      reject,
    }));
  }

  async getDeliveredEvent(
    tenant: string,
    source: string,
    eventId: string,
  ): Promise<DeliveredEvent | undefined> {
    return this.eventRows.get(tenant, source, eventId);
  }

  recordEventConflict(c: NewEventConflict): Promise<EventConflict> {
    return this.enqueue<EventConflict>((resolve, reject) => ({
      write: () => this.eventRows.recordConflict(c),
      resolve: (v: unknown) => resolve(v as EventConflict),
      reject,
    }));
  }

  async listEventConflicts(
    tenant: string,
    q: { source?: string; eventId?: string; limit?: number } = {},
  ): Promise<EventConflict[]> {
    return this.eventRows.listConflicts(tenant, q);
  }

  async countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { to: number; startedAt: string },
  ): Promise<{ chosen: number; taken: number | null; count: number }[]> {
    return this.eventRows.countDisagreements(tenant, workflowId, o);
  }

  // --- Signed checkpoints (sqlite-checkpoints.ts) ---

  async appendCheckpoint(c: Checkpoint, changed: readonly CheckpointHead[]): Promise<void> {
    this.checkpointRows.append(c, changed);
    this.commits++;
  }

  async listCheckpoints(tenant: string): Promise<Checkpoint[]> {
    return this.checkpointRows.list(tenant);
  }

  async getCheckpoint(tenant: string, seq: number): Promise<Checkpoint | undefined> {
    return this.checkpointRows.get(tenant, seq);
  }

  async checkpointedHead(tenant: string, runId: string): Promise<CheckpointHeadRow | undefined> {
    return this.checkpointRows.headOf(tenant, runId);
  }

  async checkpointLog(tenant: string, o: { after?: LogCursor; limit: number }): Promise<CheckpointHeadRow[]> {
    return this.checkpointRows.logRows(tenant, o);
  }

  async retainedHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return this.retention.heads(tenant, o);
  }

  async getRetainedRun(tenant: string, runId: string): Promise<RetainedRun | undefined> {
    return this.retention.get(tenant, runId);
  }

  async retainRuns(
    tenant: string,
    runs: readonly { readonly runId: string; readonly head: Head }[],
    manifestDigest: string,
    at: string,
  ): Promise<{ removed: string[]; skipped: { runId: string; reason: string }[] }> {
    return this.retention.retain(tenant, runs, manifestDigest, at);
  }

  async tenantsWithRuns(): Promise<string[]> {
    return this.db.prepare('SELECT DISTINCT tenant FROM runs ORDER BY tenant').pluck().all() as string[];
  }

  async runHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return this.checkpointRows.runHeads(tenant, o);
  }

  async checkpointedHeads(
    tenant: string,
    seq: number,
    o: { after?: HeadCursor; limit: number },
  ): Promise<CheckpointHead[]> {
    return this.checkpointRows.checkpointedHeads(tenant, seq, o);
  }

  async checkpointHeadRows(
    tenant: string,
    o: { after?: { runId: string; checkpointSeq: number }; limit: number },
  ): Promise<CheckpointHeadRow[]> {
    return this.checkpointRows.headRows(tenant, o);
  }

  async countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>> {
    checkIntArg('version', c.version);
    return this.lifecycle.countRuns(tenant, c);
  }

  async tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally> {
    return this.lifecycle.tallyLiveRuns(tenant, w);
  }

  /** Kept in the next group commit with the appends around it: no transaction of its own. */
  putComparison(c: StoredComparison): Promise<boolean> {
    return this.enqueue<boolean>((resolve, reject) => ({
      write: () => this.lifecycle.putComparison(c),
      resolve: (v: unknown) => resolve(v as boolean),
      reject,
    }));
  }

  async listComparisons(
    tenant: string,
    workflowId: string,
    shadowVersion: number,
    o: { since?: string } = {},
  ): Promise<StoredComparison[]> {
    return this.lifecycle.comparisons(tenant, workflowId, shadowVersion, o.since);
  }

  async recordShadowSkip(skip: ShadowSkip): Promise<void> {
    this.lifecycle.recordSkip(skip);
    this.commits++;
  }

  async shadowSkips(
    tenant: string,
    workflowId: string,
    version: number,
    since?: string,
  ): Promise<{ liveVersion: number | null; count: number }[]> {
    return this.lifecycle.skips(tenant, workflowId, version, since);
  }

  /** The queue's writes ride the group commit with the appends around them (one transaction each). */
  private queued<T>(write: () => T): Promise<T> {
    return this.enqueue<T>((resolve, reject) => ({
      write,
      resolve: (v: unknown) => resolve(v as T),
      reject,
    }));
  }

  enqueueShadowWork(items: readonly ShadowWork[]): Promise<number> {
    return items.length === 0 ? Promise.resolve(0) : this.queued(() => this.shadowRows.insert(items));
  }

  async claimShadowWork(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ShadowClaimScope,
  ): Promise<ClaimedShadowWork[]> {
    if (limit < 1) return [];
    checkShadowClaimScope(scope);
    return this.queued(() => this.shadowRows.claim(owner, leaseMs, limit, now, scope));
  }

  finishShadowWork(tenant: string, id: string): Promise<boolean> {
    return this.queued(() => this.shadowRows.finish(tenant, id));
  }

  releaseShadowWork(
    tenant: string,
    id: string,
    owner: string,
    retryAt?: number,
    failure?: string,
  ): Promise<boolean> {
    return this.queued(() => this.shadowRows.release(tenant, id, owner, retryAt, failure));
  }

  failShadowWork(tenant: string, id: string, owner: string, error: string, at: number): Promise<boolean> {
    return this.queued(() => this.shadowRows.fail(tenant, id, owner, error, at));
  }

  retryFailedShadowWork(tenant: string): Promise<number> {
    return this.queued(() => this.shadowRows.retryFailed(tenant));
  }

  wakeShadowWork(tenant: string, liveRunId: string): Promise<string[]> {
    return this.queued(() => this.shadowRows.wake(tenant, liveRunId));
  }

  async shadowQueueStatus(
    now: number,
    filter?: { tenant?: string; workflowId?: string; version?: number },
  ): Promise<ShadowQueueStatus> {
    return this.shadowRows.status(now, filter);
  }

  async claimRuns(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ClaimScope,
  ): Promise<ClaimedRun[]> {
    if (limit < 1) return [];
    checkClaimScope(scope);
    const claimed = io('claiming runs', () => this.leases.claim(owner, leaseMs, limit, now, scope));
    this.commits++;
    return claimed;
  }

  async renewLeases(
    owner: string,
    runIds: readonly string[],
    leaseMs: number,
    now: number,
  ): Promise<string[]> {
    const held = io('renewing leases', () => this.leases.renew(owner, runIds, leaseMs, now));
    this.commits++;
    return held;
  }

  async releaseRun(owner: string, runId: string): Promise<boolean> {
    const status = io('releasing a run', () => this.leases.release(owner, runId));
    this.commits++;
    if (status === 'running') this.wake();
    return status !== undefined;
  }

  async registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void> {
    io('registering a worker', () => this.leases.register(w, now));
    this.commits++;
  }

  async unregisterWorker(id: string): Promise<void> {
    io('unregistering a worker', () => this.leases.unregister(id));
    this.commits++;
  }

  async workerStatus(now: number): Promise<WorkerStatus> {
    return this.leases.status(now);
  }

  async onRunnable(listener: () => void): Promise<() => Promise<void>> {
    const own = () => listener();
    this.wakeListeners.add(own);
    return async () => {
      this.wakeListeners.delete(own);
    };
  }

  async putApiKey(rec: ApiKeyRecord): Promise<void> {
    io('storing an API key', () => this.keyRows.putKey(rec));
    this.commits++;
  }

  async findApiKey(hash: string): Promise<ApiKeyInfo | undefined> {
    return io('looking up an API key', () => this.keyRows.findKey(hash));
  }

  async listApiKeys(tenant: string): Promise<ApiKeyInfo[]> {
    return io('listing API keys', () => this.keyRows.listKeys(tenant));
  }

  async revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    const revoked = io('revoking an API key', () => this.keyRows.revokeKey(tenant, keyId, at));
    this.commits++;
    return revoked;
  }

  async claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const claim = io('claiming an idempotency key', () => this.keyRows.claim(req));
    this.commits++;
    return claim;
  }

  async finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean> {
    const done = io('finishing an idempotency key', () => this.keyRows.finish(req));
    this.commits++;
    return done;
  }

  async releaseIdempotency(ref: IdempotencyRef): Promise<boolean> {
    const released = io('releasing an idempotency key', () => this.keyRows.release(ref));
    this.commits++;
    return released;
  }

  async addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }> {
    const r = io('storing a trusted writ key', () => this.writTrust.addKey(rec));
    this.commits++;
    return r;
  }

  async listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]> {
    return io('listing trusted writ keys', () => this.writTrust.listKeys(tenant));
  }

  async retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    const retired = io('retiring a trusted writ key', () => this.writTrust.retireKey(tenant, keyId, at));
    this.commits++;
    return retired;
  }

  async revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }> {
    const r = io('revoking a writ', () => this.writTrust.revoke(rec));
    this.commits++;
    return r;
  }

  async listRevokedWrits(tenant: string): Promise<WritRevocation[]> {
    return io('listing revoked writs', () => this.writTrust.listRevocations(tenant));
  }

  async putWritChain(tenant: string, hash: string, chain: string): Promise<void> {
    if (io('storing a writ chain', () => this.writTrust.putChain(tenant, hash, chain))) this.commits++;
  }

  async getWritChain(tenant: string, hash: string): Promise<string | undefined> {
    return io('reading a writ chain', () => this.writTrust.getChain(tenant, hash));
  }

  async secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array> {
    const fresh = checkSecretKeyCandidate(candidate);
    return io('reading the tenant secret key', () => {
      const stored = this.st.getSecretKey.get(tenant) as { key: Buffer } | undefined;
      if (stored) return new Uint8Array(stored.key);
      if (this.st.putSecretKey.run(tenant, fresh).changes === 1) this.commits++;
      return new Uint8Array((this.st.getSecretKey.get(tenant) as { key: Buffer }).key);
    });
  }

  stats(): StoreStats {
    return { commits: this.commits, entriesAppended: this.entriesAppended };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.pending.length > 0) this.flush();
    this.closed = true;
    this.stopAppendPoll();
    this.db.close();
  }

  // ---- Run append notifications ----------------------------------------------------------------

  /**
   * This handle's appends are announced with their run ids right after the commit. Another
   * process's commits cannot be named: while anyone listens, `PRAGMA data_version` (which changes
   * only when another connection commits) is read every APPEND_POLL_MS, and a change is announced
   * without a run id.
   */
  async onAppended(listener: (runId?: string) => void): Promise<() => Promise<void>> {
    const own = (runId?: string) => listener(runId);
    this.appendListeners.add(own);
    if (!this.appendPoll && this.path !== ':memory:' && !this.closed) {
      this.dataVersion = this.db.pragma('data_version', { simple: true }) as number;
      this.appendPoll = setInterval(() => this.pollDataVersion(), APPEND_POLL_MS);
      this.appendPoll.unref();
    }
    return async () => {
      this.appendListeners.delete(own);
      if (this.appendListeners.size === 0) this.stopAppendPoll();
    };
  }

  private pollDataVersion(): void {
    if (this.closed) {
      this.stopAppendPoll();
      return;
    }
    let v: number;
    try {
      v = this.db.pragma('data_version', { simple: true }) as number;
    } catch {
      return; // a busy or vanished file: the listeners' own slow poll covers the gap
    }
    if (v === this.dataVersion) return;
    this.dataVersion = v;
    this.announce();
  }

  private stopAppendPoll(): void {
    if (this.appendPoll) clearInterval(this.appendPoll);
    this.appendPoll = undefined;
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

/** Runs a lease operation, reporting a SQLite failure (a busy file, a full disk) as store_unavailable. */
function io<T>(what: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof KeelError) throw e;
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `${what} failed: ${(e as Error).message}`,
      {},
      { cause: e },
    );
  }
}

function conflict(req: AppendRequest, why: string): KeelError {
  return new KeelError(ErrorCode.headConflict, `cannot append to run ${req.runId}: ${why}`, {
    runId: req.runId,
    expectedHead: req.expectedHead,
  });
}
