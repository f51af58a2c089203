/**
 * The one transaction handle of a SQLite store, shared by all its ports: the Database, the group
 * commit, the commit counters, and the listeners its commits wake (runnable runs, appended runs).
 *
 * Group commit: appends issued in the same turn of the event loop are written in one transaction
 * (one fsync), each inside its own savepoint so one stale head fails alone; other small writes
 * (a comparison, an event's claim, the shadow queue's) ride in the same transaction rather than
 * paying a commit of their own. A write's promise resolves only after that transaction committed.
 * Ports whose writes are transactions of their own count them here (`commits`).
 */
import type Database from 'better-sqlite3';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { Head, RunStatus, StoredEntry } from '../../core/ledger/index.ts';
import type { AppendListener, AppendRequest } from '../../ports/index.ts';

/**
 * A write waiting for the next group commit: an append (`req`, written by `apply`), or (`write`)
 * another small write. A `lazy` write is one a durable commit always follows before anyone relies
 * on it (the claim of an event whose runs start next): a group of lazy writes alone commits
 * without its own fsync (synchronous=NORMAL for that transaction). In WAL mode the next FULL
 * commit syncs the log, and with it every frame before its own, so the write is durable before
 * anything it names is; a crash in between loses it together with runs never started.
 */
type Pending =
  | {
      readonly req: AppendRequest;
      readonly apply: () => Head;
      readonly resolve: (h: Head) => void;
      readonly reject: (e: unknown) => void;
    }
  | {
      readonly write: () => unknown;
      readonly lazy?: boolean;
      readonly resolve: (v: unknown) => void;
      readonly reject: (e: unknown) => void;
    };

export class SqliteHandle {
  /** Durable transactions committed since the store was opened (one fsync each in FULL mode). */
  commits = 0;
  entriesAppended = 0;
  closed = false;
  /** Told (after the commit) that runs may have become claimable: this handle's only. */
  readonly wakeListeners = new Set<() => void>();
  /** Told (after the commit) that a run, or any run, has new entries. */
  readonly appendListeners = new Set<AppendListener>();
  private pending: Pending[] = [];
  private flushScheduled = false;
  /** Runs `body` in one IMMEDIATE transaction (one commit, one fsync). */
  private readonly writeBatch: (body: () => void) => void;
  /** Inside writeBatch: applies one queued write in a savepoint, so it can fail alone. */
  private readonly inSavepoint: (apply: () => unknown) => unknown;
  /** A lazy group's synchronous=NORMAL and back, compiled once (`db.pragma` compiles each call). */
  private readonly syncNormal: Database.Statement;
  private readonly syncFull: Database.Statement;

  constructor(
    readonly db: Database.Database,
    /** The synchronous level in force: lazy groups commit without an fsync only under FULL. */
    private readonly synchronous: string,
  ) {
    this.writeBatch = db.transaction((body: () => void) => body()).immediate;
    this.inSavepoint = db.transaction((apply: () => unknown) => apply());
    this.syncNormal = db.prepare('PRAGMA synchronous = NORMAL');
    this.syncFull = db.prepare('PRAGMA synchronous = FULL');
  }

  /** Queues an append, written by `apply` inside the next group commit's transaction. */
  append(req: AppendRequest, apply: () => Head): Promise<Head> {
    return this.enqueue<Head>((resolve, reject) => ({ req, apply, resolve, reject }));
  }

  /** Queues another write for the next group commit (one transaction each, shared with the appends). */
  queued<T>(write: () => T, lazy = false): Promise<T> {
    return this.enqueue<T>((resolve, reject) => ({
      write,
      ...(lazy ? { lazy } : {}),
      resolve: (v: unknown) => resolve(v as T),
      reject,
    }));
  }

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

  /** Writes everything queued, then stops taking writes. */
  close(): void {
    while (this.pending.length > 0) this.flush();
    this.closed = true;
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const lazy = this.synchronous === 'FULL' && batch.every((p) => 'write' in p && p.lazy === true);
    if (lazy) this.syncNormal.run();
    try {
      this.writeBatch(() => {
        for (const p of batch) {
          try {
            // A lone write needs no savepoint: if it throws, the whole transaction rolls back.
            const apply = 'req' in p ? p.apply : p.write;
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
      if (lazy) this.syncFull.run();
    }
    // A lazy group is not durable on its own (no fsync): the commit that follows it counts.
    if (!lazy) this.commits++;
    let wake = false;
    // Each run's entries this commit appended, in order (a run appended twice in one batch: both),
    // and its status after the last of them.
    const appended =
      this.appendListeners.size > 0
        ? new Map<string, { entries: StoredEntry[]; status: RunStatus }>()
        : undefined;
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (!o.ok) p.reject(o.error);
      else if ('req' in p) {
        this.entriesAppended += p.req.entries.length;
        if (p.req.lease?.op === 'release' && p.req.status === 'running') wake = true;
        // A new timer: workers re-arm theirs (nextWakeAt) instead of finding it at the next poll.
        if (p.req.lease?.op === 'wait') wake = true;
        const run = appended?.get(p.req.runId);
        if (run) {
          run.entries.push(...p.req.entries);
          run.status = p.req.status;
        } else appended?.set(p.req.runId, { entries: [...p.req.entries], status: p.req.status });
        p.resolve(o.value as Head);
      } else p.resolve(o.value);
    });
    if (wake) this.wake();
    if (appended) for (const [runId, run] of appended) this.announce(runId, run.entries, run.status);
  }

  /**
   * Tells this handle's append listeners (after the commit) that a run, or any run, has new
   * entries: those entries and the run's status after them, when they are this handle's own.
   */
  announce(runId?: string, entries?: readonly StoredEntry[], status?: RunStatus): void {
    for (const listener of this.appendListeners) setImmediate(listener, runId, entries, status);
  }

  /** Tells this handle's listeners that runs may have become claimable (after the commit). */
  wake(): void {
    for (const listener of this.wakeListeners) setImmediate(listener);
  }
}

/** Runs a statement of a port, reporting a SQLite failure (a busy file, a full disk) as store_unavailable. */
export function io<T>(what: string, body: () => T): T {
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
