/**
 * The scale-out Store: PostgreSQL through a `pg` pool, held to the same contract as SQLite.
 * `PostgresStore.open` connects and migrates; appends go through group commit (group-commit.ts),
 * reads and version writes are single tenant-scoped statements (queries.ts), leases and worker
 * heartbeats single statements of leases.ts, API keys and idempotency records those of
 * keys-idempotency.ts. Head checks live in SQL, so any number of processes
 * sharing the database can never both append at one seq. It must never hold state that another
 * process could contradict: every answer comes from the database.
 */
import type pg from 'pg';
import type { Digest } from '../../core/canonical/index.ts';
import type { Checkpoint } from '../../core/checkpoint/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, RunStatus, StoredEntry } from '../../core/ledger/index.ts';
import {
  type ApiKeyInfo,
  type ApiKeyRecord,
  type AppendRequest,
  type CheckpointHead,
  type CheckpointHeadRow,
  type ClaimedRun,
  type ClaimedShadowWork,
  type ClaimScope,
  type DeliveredEvent,
  type EntryFilter,
  type EntryPage,
  type EntryQuery,
  type EventClaim,
  type EventConflict,
  type HeadCursor,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyRef,
  type IdempotencyResponse,
  type LifecycleChange,
  type LiveRunTally,
  type LiveRunWindow,
  type LogCursor,
  type NewEventConflict,
  type NewPromotion,
  type PendingApproval,
  type Promotion,
  type RetainedRun,
  type RunCount,
  type RunFilter,
  type RunPage,
  type RunRecord,
  type ShadowClaimScope,
  type ShadowQueueStatus,
  type ShadowSkip,
  type ShadowWork,
  type Store,
  type StoredComparison,
  type StoredRollout,
  type StoreStats,
  type TriggerDisagreement,
  type TrustedKeyRecord,
  type VersionRecord,
  type WorkerRecord,
  type WorkerStatus,
  type WritBudgetUsage,
  type WritRevocation,
} from '../../ports/index.ts';
import { checkClaimScope, checkShadowClaimScope } from '../shared/check-claim-scope.ts';
import { toCheckpoint, toHead, toHeadRow, toRetainedRun } from '../shared/checkpoint-rows.ts';
import {
  afterCursor,
  decodeEntryCursor,
  entryConditions,
  entryLimit,
  entryOrder,
  entryPage,
  POSTGRES_ENTRY_SQL,
  unreadablePayload,
} from '../shared/entry-query-rows.ts';
import {
  conflictsQuery,
  conflictValues,
  EVENT_SQL,
  toDeliveredEvent,
  toDisagreementCount,
  toEventConflict,
} from '../shared/event-rows.ts';
import { checkIntArg } from '../shared/int-args.ts';
import { headersText, IDEMPOTENCY_PRUNE_EVERY_MS, toApiKeyInfo } from '../shared/keys-idempotency-rows.ts';
import {
  comparisonValues,
  LIFECYCLE_SQL,
  modeFilter,
  skipValues,
  toComparison,
  toRollout,
  toSkipCounts,
} from '../shared/lifecycle-rows.ts';
import { liveRunTallyValues, toLiveRunTally } from '../shared/live-run-tally.ts';
import {
  decodeCursor,
  encodeCursor,
  type Row,
  RUN_COLUMNS,
  samePublishedVersion,
  toApproval,
  toPromotion,
  toRun,
  toVersion,
} from '../shared/rows.ts';
import { checkSecretKeyCandidate, SECRET_KEY_SQL } from '../shared/secret-key-rows.ts';
import { SHADOW_QUEUE_SQL, toQueueStatus, workValues } from '../shared/shadow-queue-rows.ts';
import { toRevocation, toTrustedKey, WRIT_TRUST_SQL as WT } from '../shared/writ-trust-rows.ts';
import { APPEND_CHANNEL } from './append-statement.ts';
import { afterParams, appendCheckpoint, CHECKPOINT_SQL, AFTER as RETAINED_AFTER_AT } from './checkpoints.ts';
import { RETENTION_SQL, retainOne } from './retention.ts';

const RETAINED_AFTER = RETAINED_AFTER_AT(2);

import {
  createPool,
  type PoolOptions,
  type PostgresTarget,
  parsePostgresTarget,
  unavailable,
} from './connection.ts';
import { claimEvent } from './events.ts';
import { GroupCommit } from './group-commit.ts';
import { claimIdempotency, KEYS_SQL } from './keys-idempotency.ts';
import {
  claimWithLedgers,
  idInUse,
  LEASE_SQL,
  listenForRunnable,
  readWorkerStatus,
  toWorker,
  WORKER_ROW_TTL_MS,
} from './leases.ts';
import { countRunsQuery, LIVE_RUN_TALLY_SQL, PROMOTIONS_SQL, recordLifecycle } from './lifecycle.ts';
import { listenChannel } from './listen.ts';
import { checkSchemaVersion, type MigrationReport, migrateSchema } from './migrate.ts';
import { attachBlobs, readEntryRows, SQL } from './queries.ts';
import { claimShadowWork } from './shadow-queue.ts';

export interface PostgresStoreOptions extends PoolOptions {
  /** The schema Keel's tables live in (default `public`, or the URL's `?schema=`). */
  readonly schema?: string;
  /** Apply pending migrations at open (default true); false refuses a schema that is behind. */
  readonly migrate?: boolean;
  /** Group-commit transactions in flight at once (default 1: the next group gathers while one commits). */
  readonly maxInFlight?: number;
}

export class PostgresStore implements Store {
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
  private readonly writer: GroupCommit;
  /** Commits other than appends' (publishing, promotions). */
  private commits = 0;
  private closing: Promise<void> | undefined;
  /** When this handle next deletes idempotency records older than the TTL (ms, from claims' `now`). */
  private nextPrune = 0;
  /** Connections committing without waiting for the WAL flush, for event claims (events.ts); opened on first use. */
  private lazyPool: pg.Pool | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly target: PostgresTarget,
    maxInFlight: number,
  ) {
    this.writer = new GroupCommit(pool, target, maxInFlight);
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

  append(req: AppendRequest): Promise<Head> {
    if (this.closing) return Promise.reject(new KeelError(ErrorCode.storeUnavailable, 'store is closed'));
    return this.writer.append(req);
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
    checkIntArg('version', filter.version);
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    const params: unknown[] = [tenant];
    const where = ['tenant = $1'];
    if (filter.status) where.push(`status = $${params.push(filter.status)}`);
    if (filter.workflowId) where.push(`workflow_id = $${params.push(filter.workflowId)}`);
    where.push(...modeFilter(filter, (v) => `$${params.push(v)}`));
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
    return rows.length > limit && lastRun
      ? { runs, next: encodeCursor(lastRun.createdAt, lastRun.runId) }
      : { runs };
  }

  async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number): Promise<StoredEntry[]> {
    checkIntArg('fromSeq', fromSeq, 0);
    try {
      return await readEntryRows(this.pool, tenant, runId, fromSeq, limit);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  async queryEntries(tenant: string, q: EntryQuery): Promise<EntryPage> {
    const limit = entryLimit(q.limit);
    const cursor = q.cursor === undefined ? undefined : decodeEntryCursor(q.cursor);
    const values: unknown[] = [];
    const bind = (v: unknown) => `$${values.push(v)}`;
    const where = entryConditions(tenant, q, POSTGRES_ENTRY_SQL, bind);
    if (cursor) where.push(afterCursor(cursor, POSTGRES_ENTRY_SQL, bind));
    const rows = await this.readPayloads<unknown[]>(q, {
      text: `SELECT r.run_id, r.workflow_id, r.version, e.seq, e.v, e.kind, e.prev_hash, e.payload_hash, e.hash, e.at, e.payload
        FROM entries e JOIN runs r ON r.run_key = e.run_key
        WHERE ${where.join(' AND ')} ORDER BY ${entryOrder(POSTGRES_ENTRY_SQL)} LIMIT ${bind(limit + 1)}`,
      values,
      rowMode: 'array',
    });
    const page = entryPage(rows as unknown[][], limit);
    return { ...page, entries: await attachBlobs(this.pool, tenant, [...page.entries]) };
  }

  async countEntries(tenant: string, f: EntryFilter): Promise<Record<string, number>> {
    const values: unknown[] = [];
    const where = entryConditions(tenant, f, POSTGRES_ENTRY_SQL, (v) => `$${values.push(v)}`);
    const rows = await this.readPayloads<Row>(f, {
      text: `SELECT e.kind, count(*) AS n FROM entries e JOIN runs r ON r.run_key = e.run_key
        WHERE ${where.join(' AND ')} GROUP BY e.kind`,
      values,
    });
    return Object.fromEntries(rows.map((r) => [r.kind as string, Number(r.n)]));
  }

  /**
   * Runs an audit statement; a payload the actor or code filter cannot read as UTF-8 JSON
   * (22P02 invalid json, 22021 invalid UTF-8) refuses the query.
   */
  private async readPayloads<R>(f: EntryFilter, q: pg.QueryConfig | pg.QueryArrayConfig): Promise<R[]> {
    try {
      return (await this.pool.query(q as pg.QueryConfig)).rows as R[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      if ((f.actor !== undefined || f.code !== undefined) && (code === '22P02' || code === '22021'))
        throw unreadablePayload(e);
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
    checkIntArg('version', rec.version);
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
    return { created: false, record: samePublishedVersion(rec, existing) };
  }

  async getVersion(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined> {
    checkIntArg('version', version);
    const r =
      version === undefined
        ? await this.query({
            name: 'keel_latest_version',
            text: SQL.latestVersion,
            values: [tenant, workflowId],
          })
        : await this.query({
            name: 'keel_get_version',
            text: SQL.getVersion,
            values: [tenant, workflowId, version],
          });
    return r.rows[0] ? toVersion(r.rows[0]) : undefined;
  }

  async listVersions(tenant: string, workflowId?: string): Promise<VersionRecord[]> {
    const r =
      workflowId === undefined
        ? await this.query(SQL.versionsAll, [tenant])
        : await this.query(SQL.versionsOf, [tenant, workflowId]);
    return r.rows.map(toVersion);
  }

  async setVersionStatus(p: NewPromotion): Promise<void> {
    await this.recordLifecycle({ tenant: p.tenant, workflowId: p.workflowId, records: [p] });
  }

  async listPromotions(tenant: string, workflowId: string): Promise<Promotion[]> {
    return (await this.query(PROMOTIONS_SQL, [tenant, workflowId])).rows.map(toPromotion);
  }

  /** A pooled client for one transaction of `what` (`fn` begins and ends it); failures name the store. */
  private async withTransaction<T>(what: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw unavailable(e, 'cannot connect to PostgreSQL at', this.target);
    }
    try {
      const r = await fn(client);
      this.commits++;
      return r;
    } catch (e) {
      throw unavailable(e, `${what} failed on`, this.target);
    } finally {
      client.release();
    }
  }

  recordLifecycle(change: LifecycleChange): Promise<Promotion[]> {
    return this.withTransaction('recording a lifecycle change', (client) => recordLifecycle(client, change));
  }

  // --- Signed checkpoints (checkpoints.ts) ---

  appendCheckpoint(c: Checkpoint, changed: readonly CheckpointHead[]): Promise<void> {
    return this.withTransaction('appending a checkpoint', (client) => appendCheckpoint(client, c, changed));
  }

  async listCheckpoints(tenant: string): Promise<Checkpoint[]> {
    return (await this.query(CHECKPOINT_SQL.list, [tenant])).rows.map(toCheckpoint);
  }

  async getCheckpoint(tenant: string, seq: number): Promise<Checkpoint | undefined> {
    const row = (await this.query(CHECKPOINT_SQL.one, [tenant, seq])).rows[0];
    return row ? toCheckpoint(row) : undefined;
  }

  async checkpointedHead(tenant: string, runId: string): Promise<CheckpointHeadRow | undefined> {
    const row = (await this.query(CHECKPOINT_SQL.runLast, [tenant, runId])).rows[0];
    return row ? toHeadRow(row) : undefined;
  }

  async checkpointLog(tenant: string, o: { after?: LogCursor; limit: number }): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    return (
      await this.query(CHECKPOINT_SQL.log, [
        tenant,
        a?.checkpointSeq ?? null,
        a?.createdAt ?? null,
        a?.runId ?? null,
        o.limit,
      ])
    ).rows.map(toHeadRow);
  }

  async retainedHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return (
      await this.query(RETENTION_SQL.heads(RETAINED_AFTER), [tenant, ...afterParams(o.after), o.limit])
    ).rows.map(toHead);
  }

  async getRetainedRun(tenant: string, runId: string): Promise<RetainedRun | undefined> {
    const row = (await this.query(RETENTION_SQL.get, [runId, tenant])).rows[0];
    return row ? toRetainedRun(row) : undefined;
  }

  async retainRuns(
    tenant: string,
    runs: readonly { readonly runId: string; readonly head: Head }[],
    manifestDigest: string,
    at: string,
  ): Promise<{ removed: string[]; skipped: { runId: string; reason: string }[] }> {
    const removed: string[] = [];
    const skipped: { runId: string; reason: string }[] = [];
    for (const r of runs) {
      const reason = await this.withTransaction('removing a retained run', (client) =>
        retainOne(client, tenant, r.runId, r.head, manifestDigest, at),
      );
      if (reason) skipped.push({ runId: r.runId, reason });
      else removed.push(r.runId);
    }
    return { removed, skipped };
  }

  async tenantsWithRuns(): Promise<string[]> {
    return (await this.query('SELECT DISTINCT tenant FROM runs ORDER BY tenant', [])).rows.map(
      (r) => r.tenant as string,
    );
  }

  async runHeads(tenant: string, o: { after?: HeadCursor; limit: number }): Promise<CheckpointHead[]> {
    return (await this.query(CHECKPOINT_SQL.runHeads, [tenant, ...afterParams(o.after), o.limit])).rows.map(
      toHead,
    );
  }

  async checkpointedHeads(
    tenant: string,
    seq: number,
    o: { after?: HeadCursor; limit: number },
  ): Promise<CheckpointHead[]> {
    // As of the last checkpoint, from checkpoint_latest (a scan in order); of an earlier one, from the history.
    const last = Number((await this.query(CHECKPOINT_SQL.lastSeq, [tenant])).rows[0]?.seq ?? 0);
    const r =
      seq >= last
        ? await this.query(CHECKPOINT_SQL.latest, [tenant, ...afterParams(o.after), o.limit])
        : await this.query(CHECKPOINT_SQL.asOf, [tenant, seq, ...afterParams(o.after), o.limit]);
    return r.rows.map(toHead);
  }

  async checkpointHeadRows(
    tenant: string,
    o: { after?: { runId: string; checkpointSeq: number }; limit: number },
  ): Promise<CheckpointHeadRow[]> {
    const a = o.after;
    return (
      await this.query(CHECKPOINT_SQL.rows, [tenant, a?.runId ?? null, a?.checkpointSeq ?? 0, o.limit])
    ).rows.map(toHeadRow);
  }

  // --- The event index (events.ts) ---

  async claimEvent(
    d: DeliveredEvent,
    disagreements: readonly TriggerDisagreement[] = [],
  ): Promise<EventClaim> {
    try {
      this.lazyPool ??= createPool(this.target, { poolSize: 4, asyncCommit: true });
      const claim = await claimEvent({ pool: this.pool, lazy: this.lazyPool }, d, disagreements);
      if (claim.state === 'first') this.commits++;
      return claim;
    } catch (e) {
      throw unavailable(e, 'claiming an event failed on', this.target);
    }
  }

  async getDeliveredEvent(
    tenant: string,
    source: string,
    eventId: string,
  ): Promise<DeliveredEvent | undefined> {
    const row = (
      await this.query({ name: 'keel_get_event', text: EVENT_SQL.get, values: [tenant, source, eventId] })
    ).rows[0];
    return row ? toDeliveredEvent(row) : undefined;
  }

  async recordEventConflict(c: NewEventConflict): Promise<EventConflict> {
    return toEventConflict(
      (await this.write('keel_put_event_conflict', EVENT_SQL.putConflict, conflictValues(c))).rows[0]!,
    );
  }

  async listEventConflicts(
    tenant: string,
    q: { source?: string; eventId?: string; limit?: number } = {},
  ): Promise<EventConflict[]> {
    const { text, values } = conflictsQuery(tenant, q);
    return (await this.query(text, values)).rows.map(toEventConflict);
  }

  async countTriggerDisagreements(
    tenant: string,
    workflowId: string,
    o: { to: number; startedAt: string },
  ): Promise<{ chosen: number; taken: number | null; count: number }[]> {
    const values = [tenant, workflowId, o.to, o.startedAt];
    return (
      await this.query({ name: 'keel_count_disagreements', text: EVENT_SQL.countDisagreements, values })
    ).rows.map(toDisagreementCount);
  }

  async getRollout(tenant: string, workflowId: string): Promise<StoredRollout | undefined> {
    const row = (await this.query(LIFECYCLE_SQL.getRollout, [tenant, workflowId])).rows[0];
    return row ? toRollout(row) : undefined;
  }

  async countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>> {
    checkIntArg('version', c.version);
    const q = countRunsQuery(tenant, c);
    const rows = (await this.query(q.text, q.values)).rows;
    return Object.fromEntries(rows.map((r) => [r.status as string, Number(r.n)]));
  }

  /** The counts are one statement's snapshot; the example ids, read after, are examples only. */
  async tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally> {
    const values = liveRunTallyValues(tenant, w);
    const counts = (await this.query(LIVE_RUN_TALLY_SQL.counts, values.slice(0, 4))).rows[0] ?? {};
    const runIds = (await this.query(LIVE_RUN_TALLY_SQL.runIds, values)).rows;
    const denied = (await this.query(LIVE_RUN_TALLY_SQL.deniedRunIds, values)).rows;
    return toLiveRunTally(counts, runIds, denied);
  }

  async putComparison(c: StoredComparison): Promise<boolean> {
    return (
      (await this.write('keel_put_comparison', LIFECYCLE_SQL.putComparison, comparisonValues(c))).rowCount ===
      1
    );
  }

  async listComparisons(
    tenant: string,
    workflowId: string,
    shadowVersion: number,
    o: { since?: string } = {},
  ): Promise<StoredComparison[]> {
    const values = [tenant, workflowId, shadowVersion, o.since ?? ''];
    return (await this.query(LIFECYCLE_SQL.comparisons, values)).rows.map(toComparison);
  }

  async recordShadowSkip(skip: ShadowSkip): Promise<void> {
    await this.write('keel_put_shadow_skip', LIFECYCLE_SQL.putSkip, skipValues(skip));
  }

  async shadowSkips(
    tenant: string,
    workflowId: string,
    version: number,
    since?: string,
  ): Promise<{ liveVersion: number | null; count: number }[]> {
    const values = [tenant, workflowId, version, since ?? ''];
    return toSkipCounts((await this.query(LIFECYCLE_SQL.skipsByLiveVersion, values)).rows);
  }

  async enqueueShadowWork(items: readonly ShadowWork[]): Promise<number> {
    if (items.length === 0) return 0;
    return this.withTransaction('queueing shadow work', async (client) => {
      await client.query('BEGIN');
      try {
        let n = 0;
        for (const w of items)
          n += (await client.query(SHADOW_QUEUE_SQL.enqueue, workValues(w))).rowCount ?? 0;
        await client.query('COMMIT');
        return n;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    });
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
    return this.withTransaction('claiming shadow work', (client) =>
      claimShadowWork(client, owner, leaseMs, limit, now, scope),
    );
  }

  async finishShadowWork(tenant: string, id: string): Promise<boolean> {
    return (
      (await this.write('keel_finish_shadow_work', SHADOW_QUEUE_SQL.finish, [tenant, id])).rowCount === 1
    );
  }

  async releaseShadowWork(
    tenant: string,
    id: string,
    owner: string,
    retryAt?: number,
    failure?: string,
  ): Promise<boolean> {
    const values = [tenant, id, owner, retryAt ?? null, failure === undefined ? 0 : 1, failure ?? null];
    return (await this.write('keel_release_shadow_work', SHADOW_QUEUE_SQL.release, values)).rowCount === 1;
  }

  async failShadowWork(
    tenant: string,
    id: string,
    owner: string,
    error: string,
    at: number,
  ): Promise<boolean> {
    const values = [tenant, id, owner, error, at];
    return (await this.write('keel_fail_shadow_work', SHADOW_QUEUE_SQL.fail, values)).rowCount === 1;
  }

  async retryFailedShadowWork(tenant: string): Promise<number> {
    return (
      (await this.write('keel_retry_failed_shadow_work', SHADOW_QUEUE_SQL.retryFailed, [tenant])).rowCount ??
      0
    );
  }

  async wakeShadowWork(tenant: string, liveRunId: string): Promise<string[]> {
    const r = await this.write('keel_wake_shadow_work', SHADOW_QUEUE_SQL.wake, [tenant, liveRunId]);
    return r.rows.map((x) => x.id as string);
  }

  async shadowQueueStatus(
    now: number,
    f: { tenant?: string; workflowId?: string; version?: number } = {},
  ): Promise<ShadowQueueStatus> {
    const filter = [f.tenant ?? null, f.workflowId ?? null, f.version ?? null];
    const values = [now, ...filter];
    const status = (await this.query(SHADOW_QUEUE_SQL.status, values)).rows[0];
    return toQueueStatus(
      status,
      (await this.query(SHADOW_QUEUE_SQL.owners, values)).rows,
      (await this.query(SHADOW_QUEUE_SQL.failures, filter)).rows,
    );
  }

  /** A write statement outside the append path: counted as a commit once it succeeded. */
  private async write(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    const r = await this.query({ name, text, values });
    this.commits++;
    return r;
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
    try {
      const claimed = await claimWithLedgers(this.pool, [owner, now + leaseMs, now, limit], scope);
      this.commits++;
      return claimed;
    } catch (e) {
      throw unavailable(e, 'claiming runs failed on', this.target);
    }
  }

  async renewLeases(
    owner: string,
    runIds: readonly string[],
    leaseMs: number,
    now: number,
  ): Promise<string[]> {
    const r = await this.write('keel_renew', LEASE_SQL.renew, [owner, runIds, now + leaseMs, now]);
    return r.rows.map((row) => row.run_id as string);
  }

  async releaseRun(owner: string, runId: string): Promise<boolean> {
    const sql = this.target.notify ? LEASE_SQL.release : LEASE_SQL.releaseQuietly;
    const name = this.target.notify ? 'keel_release' : 'keel_release_quiet';
    return (await this.write(name, sql, [owner, runId])).rowCount === 1;
  }

  async registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void> {
    const values = [w.id, w.host, w.pid, w.startedAt, now, w.leaseMs, now - WORKER_ROW_TTL_MS];
    if ((await this.write('keel_register', LEASE_SQL.register, values)).rowCount === 1) return;
    const prior = (await this.query(LEASE_SQL.worker, [w.id])).rows[0];
    throw idInUse(w.id, prior ? toWorker(prior) : { ...w, seenAt: now }, now);
  }

  async unregisterWorker(id: string): Promise<void> {
    await this.write('keel_unregister', LEASE_SQL.unregister, [id]);
  }

  async workerStatus(now: number): Promise<WorkerStatus> {
    try {
      return await readWorkerStatus(this.pool, now);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  async onRunnable(listener: () => void): Promise<() => Promise<void>> {
    // `?notify=off`: nothing is ever notified, and workers rely on their poll.
    if (!this.target.notify) return async () => {};
    try {
      return await listenForRunnable(this.target, listener);
    } catch (e) {
      throw unavailable(e, 'cannot LISTEN for runnable runs on', this.target);
    }
  }

  async putApiKey(rec: ApiKeyRecord): Promise<void> {
    await this.write('keel_put_key', KEYS_SQL.putKey, [
      rec.keyId,
      rec.tenant,
      rec.subject,
      rec.hash,
      rec.createdAt,
      rec.kind,
    ]);
  }

  async findApiKey(hash: string): Promise<ApiKeyInfo | undefined> {
    const r = await this.query({ name: 'keel_find_key', text: KEYS_SQL.findKey, values: [hash] });
    return r.rows[0] ? toApiKeyInfo(r.rows[0]) : undefined;
  }

  async listApiKeys(tenant: string): Promise<ApiKeyInfo[]> {
    const r = await this.query({ name: 'keel_list_keys', text: KEYS_SQL.listKeys, values: [tenant] });
    return r.rows.map(toApiKeyInfo);
  }

  async revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    return (await this.write('keel_revoke_key', KEYS_SQL.revokeKey, [tenant, keyId, at])).rowCount === 1;
  }

  async claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    if (req.now >= this.nextPrune) {
      this.nextPrune = req.now + IDEMPOTENCY_PRUNE_EVERY_MS;
      await this.write('keel_idem_prune', KEYS_SQL.prune, [req.now - IDEMPOTENCY_TTL_MS]);
    }
    try {
      const claim = await claimIdempotency(this.pool, req);
      this.commits++;
      return claim;
    } catch (e) {
      throw unavailable(e, 'claiming an idempotency key failed on', this.target);
    }
  }

  async finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean> {
    const values = [req.tenant, req.operation, req.key, req.status, req.body, headersText(req.headers)];
    return (await this.write('keel_idem_finish', KEYS_SQL.finish, values)).rowCount === 1;
  }

  async releaseIdempotency(ref: IdempotencyRef): Promise<boolean> {
    const values = [ref.tenant, ref.operation, ref.key];
    return (await this.write('keel_idem_release', KEYS_SQL.release, values)).rowCount === 1;
  }

  async addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }> {
    const values = [rec.tenant, rec.keyId, rec.publicKeyPem, rec.addedBy, rec.addedAt];
    const created = (await this.write('keel_writ_key_add', WT.addKey, values)).rowCount === 1;
    const r = await this.query({
      name: 'keel_writ_key_get',
      text: WT.getKey,
      values: [rec.tenant, rec.keyId],
    });
    return { created, record: toTrustedKey(r.rows[0]!) };
  }

  async listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]> {
    const r = await this.query({ name: 'keel_writ_key_list', text: WT.listKeys, values: [tenant] });
    return r.rows.map(toTrustedKey);
  }

  async retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean> {
    return (await this.write('keel_writ_key_retire', WT.retireKey, [tenant, keyId, at])).rowCount === 1;
  }

  async revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }> {
    const values = [rec.tenant, rec.hash, rec.by, rec.at, rec.reason ?? null];
    const created = (await this.write('keel_writ_revoke', WT.revoke, values)).rowCount === 1;
    const r = await this.query({
      name: 'keel_writ_revocation_get',
      text: WT.getRevocation,
      values: [rec.tenant, rec.hash],
    });
    return { created, record: toRevocation(r.rows[0]!) };
  }

  async listRevokedWrits(tenant: string): Promise<WritRevocation[]> {
    const r = await this.query({
      name: 'keel_writ_revocation_list',
      text: WT.listRevocations,
      values: [tenant],
    });
    return r.rows.map(toRevocation);
  }

  async putWritChain(tenant: string, hash: string, chain: string): Promise<void> {
    await this.write('keel_writ_chain_put', WT.putChain, [tenant, hash, chain]);
  }

  async getWritChain(tenant: string, hash: string): Promise<string | undefined> {
    const r = await this.query({ name: 'keel_writ_chain_get', text: WT.getChain, values: [tenant, hash] });
    return r.rows[0]?.chain as string | undefined;
  }

  async secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array> {
    const fresh = checkSecretKeyCandidate(candidate);
    const read = async () =>
      (await this.query({ name: 'keel_secret_key_get', text: SECRET_KEY_SQL.get, values: [tenant] })).rows[0]
        ?.key as Buffer | undefined;
    const stored = await read();
    if (stored) return new Uint8Array(stored);
    await this.write('keel_secret_key_put', SECRET_KEY_SQL.put, [tenant, fresh]);
    return new Uint8Array((await read())!);
  }

  async readWritBudgets(tenant: string, hash: Digest): Promise<WritBudgetUsage[] | undefined> {
    try {
      const links = await this.writer.budgets.linksOf(this.pool, tenant, hash);
      return links && (await this.writer.budgets.usage(this.pool, tenant, links));
    } catch (e) {
      if (e instanceof KeelError) throw e;
      throw unavailable(e, 'query failed on', this.target);
    }
  }

  stats(): StoreStats {
    return { commits: this.commits + this.writer.commits, entriesAppended: this.writer.entriesAppended };
  }

  /** Writes what is queued, waits for groups in flight, then closes the pool. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.writer.drain();
      await this.stopListeningForAppends();
      await this.lazyPool?.end();
      await this.pool.end();
    })();
    return this.closing;
  }

  // ---- Run append notifications ----------------------------------------------------------------

  private readonly appendListeners = new Set<(runId?: string) => void>();
  /** The LISTEN connection shared by this handle's append listeners, while there are any. */
  private appendListening: Promise<() => Promise<void>> | undefined;

  /**
   * Every append NOTIFYs `keel_appends` with `<schema> <run id>` in its own transaction; one LISTEN
   * connection per handle hears them for all its listeners. After (re)connecting, listeners are
   * called without an id: whatever was appended while nobody listened is looked for then.
   */
  async onAppended(listener: (runId?: string) => void): Promise<() => Promise<void>> {
    const own = (runId?: string) => listener(runId);
    if (!this.target.notify || this.closing) return async () => {};
    this.appendListeners.add(own);
    const prefix = `${this.target.schema} `;
    const call = (runId?: string) => {
      for (const l of this.appendListeners) l(runId);
    };
    this.appendListening ??= listenChannel(
      this.target,
      APPEND_CHANNEL,
      (payload) => {
        if (payload.startsWith(prefix)) call(payload.slice(prefix.length));
      },
      () => call(),
    );
    try {
      await this.appendListening;
    } catch (e) {
      this.appendListeners.delete(own);
      this.appendListening = undefined;
      throw unavailable(e, 'cannot LISTEN for appends on', this.target);
    }
    return async () => {
      this.appendListeners.delete(own);
      if (this.appendListeners.size === 0) await this.stopListeningForAppends();
    };
  }

  private async stopListeningForAppends(): Promise<void> {
    const listening = this.appendListening;
    this.appendListening = undefined;
    if (listening) await (await listening.catch(() => async () => {}))();
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
