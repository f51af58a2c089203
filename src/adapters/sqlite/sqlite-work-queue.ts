/**
 * The work queue in the SQLite file: leases and worker heartbeats, what lets `keel worker`
 * processes share runs. Each write is one IMMEDIATE transaction (the write lock is taken
 * first, so concurrent processes queue on busy_timeout instead of failing on a stale snapshot);
 * claims go through the handle's group commit (sqlite-handle.ts), as a lazy write.
 * Times come from the caller (`now`, ms). It never touches entries: a lease only says who should
 * walk a run; the head check of `append` stays the fence. Wake-ups reach listeners of this handle
 * only (other processes poll). Timers are the `wake_at` of waiting rows: a claim takes a waiting
 * run once its wake time has passed, exactly as a running one.
 */
import type Database from 'better-sqlite3';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { StoredEntry } from '../../core/ledger/index.ts';
import type { ClaimedRun, ClaimScope, WorkerRecord, WorkerStatus, WorkQueue } from '../../ports/index.ts';
import { checkClaimScope } from '../shared/check-claim-scope.ts';
import type { Row } from '../shared/row.ts';
import { timersOf } from '../shared/timers-row.ts';
import { io, type SqliteHandle } from './sqlite-handle.ts';

/** Rows of workers not seen for this long are dropped at the next registration. */
export const WORKER_ROW_TTL_MS = 3_600_000;

export class SqliteWorkQueue implements WorkQueue {
  private readonly st;
  private readonly claim: (
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ClaimScope,
  ) => ClaimedRun[];
  private readonly renew: (
    owner: string,
    runIds: readonly string[],
    leaseMs: number,
    now: number,
  ) => string[];
  private readonly register: (w: Omit<WorkerRecord, 'seenAt'>, now: number) => void;

  /** `ledger` reads a run's entries; claims call it inside their transaction. */
  constructor(
    private readonly h: SqliteHandle,
    ledger: (tenant: string, runId: string) => StoredEntry[],
  ) {
    const db: Database.Database = h.db;
    this.st = {
      // Claimable: running, or waiting with its timer due (runs_waking), or waiting for an approval
      // whose deadline (a reminder, an escalation, the expiry) is due (runs_approval_due); no live
      // lease. The kinds are picked each through its own index and merged in creation order.
      claim: db.prepare(
        `UPDATE runs SET lease_owner = @owner, lease_until = @until
          WHERE run_key IN (SELECT run_key FROM (
                  SELECT run_key, created_at FROM runs
                   WHERE status = 'running' AND (lease_until IS NULL OR lease_until < @now)
                  UNION ALL
                  SELECT run_key, created_at FROM runs
                   WHERE status = 'waiting' AND wake_at <= @now
                     AND (lease_until IS NULL OR lease_until < @now)
                  UNION ALL
                  SELECT run_key, created_at FROM runs
                   WHERE status = 'waiting_approval' AND wake_at <= @now
                     AND (lease_until IS NULL OR lease_until < @now))
                 ORDER BY created_at, run_key LIMIT @limit)
         RETURNING tenant, run_id, lease_until`,
      ),
      // A scoped claim: one tenant (or all, tenant NULL), leases of `takeOver` owners (a JSON array)
      // counting as expired. The unscoped claim above stays the workers' plain statement.
      claimScoped: db.prepare(
        `UPDATE runs SET lease_owner = @owner, lease_until = @until
          WHERE run_key IN (SELECT run_key FROM runs
                             WHERE (status = 'running' OR (status IN ('waiting', 'waiting_approval') AND wake_at <= @now))
                               AND (lease_until IS NULL OR lease_until < @now
                                    OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
                               AND (@tenant IS NULL OR tenant = @tenant)
                             ORDER BY created_at, run_key LIMIT @limit)
         RETURNING tenant, run_id, lease_until`,
      ),
      claimOne: db.prepare(
        `UPDATE runs SET lease_owner = @owner, lease_until = @until
          WHERE run_id = @runId AND tenant = @tenant
            AND (status = 'running' OR (status IN ('waiting', 'waiting_approval') AND wake_at <= @now))
            AND (lease_until IS NULL OR lease_until < @now
                 OR lease_owner IN (SELECT value FROM json_each(@takeOver)))
         RETURNING tenant, run_id, lease_until`,
      ),
      // The next timer or approval deadline (each through its own index); a wake time no clock
      // reaches (an approval with no deadline, engine/approval-deadline.ts NEVER_MS) is none.
      nextWake: db
        .prepare(
          `SELECT min(t) FROM (
             SELECT min(wake_at) AS t FROM runs WHERE status = 'waiting' AND wake_at > @now
             UNION ALL
             SELECT min(wake_at) FROM runs WHERE status = 'waiting_approval' AND wake_at > @now
                AND wake_at < 8640000000000000)`,
        )
        .pluck(),
      timers: db.prepare(`SELECT count(*) AS n, min(wake_at) AS next FROM runs WHERE status = 'waiting'`),
      renew: db.prepare(
        'UPDATE runs SET lease_until = ? WHERE run_id = ? AND lease_owner = ? RETURNING run_id',
      ),
      seen: db.prepare('UPDATE workers SET seen_at = ? WHERE id = ?'),
      release: db.prepare(
        'UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE run_id = ? AND lease_owner = ? RETURNING status',
      ),
      worker: db.prepare('SELECT * FROM workers WHERE id = ?'),
      upsertWorker: db.prepare(
        `INSERT INTO workers (id, host, pid, started_at, seen_at, lease_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid,
           started_at = excluded.started_at, seen_at = excluded.seen_at, lease_ms = excluded.lease_ms`,
      ),
      pruneWorkers: db.prepare('DELETE FROM workers WHERE seen_at < ?'),
      deleteWorker: db.prepare('DELETE FROM workers WHERE id = ?'),
      workers: db.prepare('SELECT * FROM workers ORDER BY id'),
      leases: db.prepare(
        `SELECT lease_owner AS owner, count(*) AS runs FROM runs
          WHERE status = 'running' AND lease_until >= ? GROUP BY lease_owner ORDER BY lease_owner`,
      ),
      queue: db.prepare(
        `SELECT count(*) AS n FROM runs WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
      ),
      oldest: db.prepare(
        `SELECT tenant, run_id, created_at FROM runs
          WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)
          ORDER BY created_at, run_key LIMIT 1`,
      ),
      suspended: db.prepare(`SELECT count(*) AS n FROM runs WHERE status = 'outcome_unknown'`),
    };
    this.claim = db.transaction(
      (owner: string, leaseMs: number, limit: number, now: number, scope?: ClaimScope) => {
        const until = now + leaseMs;
        const takeOver = JSON.stringify(scope?.takeOver ?? []);
        const tenant = scope?.tenant ?? null;
        const rows = !scope
          ? this.st.claim.all({ owner, until, now, limit })
          : scope.runId !== undefined
            ? this.st.claimOne.all({ owner, until, now, takeOver, tenant, runId: scope.runId })
            : this.st.claimScoped.all({ owner, until, now, takeOver, tenant, limit });
        return (rows as Row[]).map((r) => ({
          tenant: r.tenant as string,
          runId: r.run_id as string,
          leaseUntil: r.lease_until as number,
          entries: ledger(r.tenant as string, r.run_id as string),
        }));
      },
    );
    this.renew = db.transaction((owner: string, runIds: readonly string[], leaseMs: number, now: number) => {
      this.st.seen.run(now, owner);
      const held: string[] = [];
      for (const id of [...runIds].sort()) if (this.st.renew.get(now + leaseMs, id, owner)) held.push(id);
      return held;
    }).immediate;
    this.register = db.transaction((w: Omit<WorkerRecord, 'seenAt'>, now: number) => {
      const prior = this.st.worker.get(w.id) as Row | undefined;
      if (prior && !(prior.host === w.host && prior.pid === w.pid)) {
        const seen = prior.seen_at as number;
        if (seen >= now - (prior.lease_ms as number)) throw idInUse(w.id, prior, now);
      }
      this.st.pruneWorkers.run(now - WORKER_ROW_TTL_MS);
      this.st.upsertWorker.run(w.id, w.host, w.pid, w.startedAt, now, w.leaseMs);
    }).immediate;
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
    // A lazy write of the group commit: alone in its group it commits without an fsync (a lease
    // is not a decision: lost with the machine, it is lost with every process that held it, and
    // the walk's first append, fsync'd, makes it durable with it); beside other writes it shares
    // their commit. So a run created by `keel serve` and claimed to be walked there costs no commit
    // of its own, and concurrent claims share one.
    return this.h.queued(
      () => io('claiming runs', () => this.claim(owner, leaseMs, limit, now, scope)),
      true,
    );
  }

  async nextWakeAt(now: number): Promise<number | undefined> {
    const next = io('reading the next timer', () => this.st.nextWake.get({ now })) as number | null;
    return next ?? undefined;
  }

  async renewLeases(
    owner: string,
    runIds: readonly string[],
    leaseMs: number,
    now: number,
  ): Promise<string[]> {
    const held = io('renewing leases', () => this.renew(owner, runIds, leaseMs, now));
    this.h.commits++;
    return held;
  }

  async releaseRun(owner: string, runId: string): Promise<boolean> {
    // The run's status when the lease was `owner`'s (undefined if it was not).
    const status = io(
      'releasing a run',
      () => (this.st.release.get(runId, owner) as Row | undefined)?.status as string | undefined,
    );
    this.h.commits++;
    if (status === 'running') this.h.wake();
    return status !== undefined;
  }

  async registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void> {
    io('registering a worker', () => this.register(w, now));
    this.h.commits++;
  }

  async unregisterWorker(id: string): Promise<void> {
    io('unregistering a worker', () => this.st.deleteWorker.run(id));
    this.h.commits++;
  }

  async workerStatus(now: number): Promise<WorkerStatus> {
    const oldest = this.st.oldest.get(now) as Row | undefined;
    return {
      now,
      workers: (this.st.workers.all() as Row[]).map(toWorker),
      leases: (this.st.leases.all(now) as Row[]).map((r) => ({
        owner: r.owner as string,
        runs: r.runs as number,
      })),
      queueDepth: (this.st.queue.get(now) as { n: number }).n,
      ...(oldest
        ? {
            oldestRunnable: {
              tenant: oldest.tenant as string,
              runId: oldest.run_id as string,
              createdAt: oldest.created_at as string,
            },
          }
        : {}),
      suspended: (this.st.suspended.get() as { n: number }).n,
      timers: timersOf(this.st.timers.get() as Row),
    };
  }

  /** This handle's releases and appends that release a running run call `listener`. */
  async onRunnable(listener: () => void): Promise<() => Promise<void>> {
    const own = () => listener();
    this.h.wakeListeners.add(own);
    return async () => {
      this.h.wakeListeners.delete(own);
    };
  }
}

export function toWorker(r: Row): WorkerRecord {
  return {
    id: r.id as string,
    host: r.host as string,
    pid: Number(r.pid),
    startedAt: Number(r.started_at),
    seenAt: Number(r.seen_at),
    leaseMs: Number(r.lease_ms),
  };
}

/** A live worker of another process already uses this id. */
export function idInUse(id: string, prior: Row, now: number): KeelError {
  const ago = ((now - Number(prior.seen_at)) / 1000).toFixed(1);
  return new KeelError(
    ErrorCode.usage,
    `--id: worker ${id} is in use by pid ${prior.pid} on ${prior.host} (seen ${ago} s ago); choose another id or wait for its lease to expire`,
    { field: 'id', id, pid: Number(prior.pid), host: prior.host },
  );
}
