/**
 * The ledger in the SQLite file. An append rides the group commit (sqlite-handle.ts) in its own
 * savepoint and writes, all or nothing: the run row (created, or moved from the expected head:
 * the head check lives in SQL, `UPDATE ... WHERE head_seq = ?`, so several processes sharing the
 * file still cannot both append at one seq), the lease it changes, the writ budgets it reserves
 * (sqlite-writ-budgets.ts), its entries, the blobs they reference, the approval it opens or
 * closes and the shadow work it queues (sqlite-shadow-queue.ts). Reads attach blobs; the audit
 * query reads across a tenant's runs. This handle's appends are announced after their commit.
 */
import type Database from 'better-sqlite3';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, StoredEntry } from '../../core/ledger/index.ts';
import { retainedRunError } from '../../core/run/index.ts';
import type {
  AppendListener,
  AppendRequest,
  EntryFilter,
  EntryPage,
  EntryQuery,
  Ledger,
} from '../../ports/index.ts';
import { appendedBlobs, blobsWanted, withBlobs } from '../shared/blob-rows.ts';
import { checkChain } from '../shared/check-chain.ts';
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
import { entryFromColumns } from '../shared/rows.ts';
import { digestBlob, digestText } from './schema.ts';
import type { SqliteCheckpoints } from './sqlite-checkpoints.ts';
import { io, type SqliteHandle } from './sqlite-handle.ts';
import type { SqliteShadowQueue } from './sqlite-shadow-queue.ts';
import type { SqliteWritBudgets } from './sqlite-writ-budgets.ts';

/** How often, while anyone listens for appends, another process's commits are looked for (ms). */
export const APPEND_POLL_MS = 100;

/** The other ports an append writes to, in its savepoint. */
export interface AppendTargets {
  readonly budgets: SqliteWritBudgets;
  readonly shadowQueue: SqliteShadowQueue;
  readonly checkpoints: SqliteCheckpoints;
}

export class SqliteLedger implements Ledger {
  private readonly st;
  private readonly db: Database.Database;
  /** The poll that notices other processes' commits for this handle's append listeners. */
  private appendPoll: NodeJS.Timeout | undefined;
  private dataVersion = 0;

  constructor(
    private readonly h: SqliteHandle,
    private readonly path: string,
    private readonly targets: AppendTargets,
  ) {
    const db = h.db;
    this.db = db;
    this.st = {
      insertRun: db.prepare(
        `INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at, lease_owner, lease_until, mode, shadow_of, wake_at, subject)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING RETURNING run_key`,
      ),
      advanceRun: db.prepare(
        `UPDATE runs SET status = ?, head_seq = ?, head_hash = ?, updated_at = ?,
           lease_owner = CASE WHEN ? THEN ? ELSE lease_owner END,
           lease_until = CASE WHEN ? THEN ? ELSE lease_until END,
           wake_at = CASE WHEN ? THEN ? ELSE wake_at END,
           wait_event = CASE WHEN ? = 'waiting' THEN wait_event ELSE NULL END
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
      runKey: db.prepare('SELECT run_key FROM runs WHERE run_id = ? AND tenant = ?').pluck(),
      readEntries: db
        .prepare(
          `SELECT seq, v, kind, ${digestText('prev_hash')}, ${digestText('payload_hash')}, ${digestText('hash')}, at, payload
           FROM entries WHERE run_key = ? AND seq >= ? ORDER BY seq LIMIT ?`,
        )
        .raw(),
    };
  }

  append(req: AppendRequest): Promise<Head> {
    return this.h.append(req, () => this.applyAppend(req));
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
    // A wait's timer: [whether to set it, the wake time]; the row keeps it while the run waits.
    const wakeAt = lease?.op === 'wait' ? lease.wakeAt : (req.wakeAt ?? null);
    if (expectedHead === null) {
      const c = req.create;
      if (!c) throw new KeelError(ErrorCode.internal, 'creating a run needs its identity');
      if (this.targets.checkpoints.isRetained(req.runId)) throw retainedRunError(req.runId);
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
        wakeAt,
        c.subject || null,
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
        wakeAt !== null ? 1 : 0,
        wakeAt,
        // A run that no longer waits waits for no event: arrivals of that type stop waking it.
        req.status,
        req.runId,
        req.tenant,
        expectedHead.seq,
        expectedHead.hash,
      ) as { run_key: number } | undefined;
      if (!row) throw conflict(req, `the head is no longer seq ${expectedHead.seq}`);
    }
    if (req.budget) this.targets.budgets.change(req);
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
    if (req.shadowWork) this.targets.shadowQueue.insert(req.shadowWork);
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

  async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number): Promise<StoredEntry[]> {
    checkIntArg('fromSeq', fromSeq, 0);
    return this.entriesOf(tenant, runId, fromSeq, limit);
  }

  /** readEntries, synchronously (claims read ledgers inside their transaction). */
  entriesOf(tenant: string, runId: string, fromSeq = 0, limit?: number): StoredEntry[] {
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

  /**
   * This handle's appends are announced with their run ids right after the commit. Another
   * process's commits cannot be named: while anyone listens, `PRAGMA data_version` (which changes
   * only when another connection commits) is read every APPEND_POLL_MS, and a change is announced
   * without a run id.
   */
  async onAppended(listener: AppendListener): Promise<() => Promise<void>> {
    const own: AppendListener = (runId, entries, status) => listener(runId, entries, status);
    const listeners = this.h.appendListeners;
    listeners.add(own);
    if (!this.appendPoll && this.path !== ':memory:' && !this.h.closed) {
      this.dataVersion = this.db.pragma('data_version', { simple: true }) as number;
      this.appendPoll = setInterval(() => this.pollDataVersion(), APPEND_POLL_MS);
      this.appendPoll.unref();
    }
    return async () => {
      listeners.delete(own);
      if (listeners.size === 0) this.stopAppendPoll();
    };
  }

  private pollDataVersion(): void {
    if (this.h.closed) {
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
    this.h.announce();
  }

  stopAppendPoll(): void {
    if (this.appendPoll) clearInterval(this.appendPoll);
    this.appendPoll = undefined;
  }
}

function conflict(req: AppendRequest, why: string): KeelError {
  return new KeelError(ErrorCode.headConflict, `cannot append to run ${req.runId}: ${why}`, {
    runId: req.runId,
    expectedHead: req.expectedHead,
  });
}
