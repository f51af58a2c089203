/**
 * The ledger in PostgreSQL. Appends go through group commit (group-commit.ts): one statement
 * (append-statement.ts) moves the run row from its expected head, changes its lease, reserves
 * writ budget, inserts the entries, blobs and links, opens or closes the approval and queues the
 * shadow work, all in one transaction, and NOTIFYs the append in it. Reads are single
 * tenant-scoped statements (queries.ts); the audit query reads across a tenant's runs.
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, StoredEntry } from '../../core/ledger/index.ts';
import type {
  AppendListener,
  AppendRequest,
  EntryFilter,
  EntryPage,
  EntryQuery,
  Ledger,
} from '../../ports/index.ts';
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
import { checkIntArg } from '../shared/int-args.ts';
import type { Row } from '../shared/row.ts';
import { APPEND_CHANNEL } from './append-statement.ts';
import { unavailable } from './connection.ts';
import { listenChannel } from './listen.ts';
import type { PostgresHandle } from './postgres-handle.ts';
import { attachBlobs, readEntryRows } from './queries.ts';

export class PostgresLedger implements Ledger {
  private readonly appendListeners = new Set<(runId?: string) => void>();
  /** The LISTEN connection shared by this handle's append listeners, while there are any. */
  private appendListening: Promise<() => Promise<void>> | undefined;

  constructor(private readonly h: PostgresHandle) {}

  append(req: AppendRequest): Promise<Head> {
    if (this.h.closing) return Promise.reject(new KeelError(ErrorCode.storeUnavailable, 'store is closed'));
    return this.h.writer.append(req);
  }

  async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number): Promise<StoredEntry[]> {
    checkIntArg('fromSeq', fromSeq, 0);
    try {
      return await readEntryRows(this.h.pool, tenant, runId, fromSeq, limit);
    } catch (e) {
      throw unavailable(e, 'query failed on', this.h.target);
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
    return { ...page, entries: await attachBlobs(this.h.pool, tenant, [...page.entries]) };
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
      return (await this.h.pool.query(q as pg.QueryConfig)).rows as R[];
    } catch (e) {
      const code = (e as { code?: string }).code;
      if ((f.actor !== undefined || f.code !== undefined) && (code === '22P02' || code === '22021'))
        throw unreadablePayload(e);
      throw unavailable(e, 'query failed on', this.h.target);
    }
  }

  /**
   * Every append NOTIFYs `keel_appends` with `<schema> <run id>` in its own transaction; one LISTEN
   * connection per handle hears them for all its listeners. After (re)connecting, listeners are
   * called without an id: whatever was appended while nobody listened is looked for then.
   */
  async onAppended(listener: AppendListener): Promise<() => Promise<void>> {
    const own = (runId?: string) => listener(runId);
    const target = this.h.target;
    if (!target.notify || this.h.closing) return async () => {};
    this.appendListeners.add(own);
    const prefix = `${target.schema} `;
    const call = (runId?: string) => {
      for (const l of this.appendListeners) l(runId);
    };
    this.appendListening ??= listenChannel(
      target,
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
      throw unavailable(e, 'cannot LISTEN for appends on', target);
    }
    return async () => {
      this.appendListeners.delete(own);
      if (this.appendListeners.size === 0) await this.stopListening();
    };
  }

  /** Closes the LISTEN connection, if one is open. */
  async stopListening(): Promise<void> {
    const listening = this.appendListening;
    this.appendListening = undefined;
    if (listening) await (await listening.catch(() => async () => {}))();
  }
}
