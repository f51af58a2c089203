/**
 * Leases, worker heartbeats and wake-ups in PostgreSQL: the statements of the work queue
 * (postgres-work-queue.ts), which lets many `keel worker` processes share runs with no queue but
 * the runs table; timers are the `wake_at` of waiting rows, claimed once due. Claims lock candidate rows
 * with `FOR UPDATE SKIP LOCKED` (two workers never wait on, or take, the same run); renewals lock
 * in run-id order, as appends do; each call is one statement, one transaction. Times come from
 * the caller (`now`, ms). Wake-ups are `LISTEN keel_runs` on a dedicated connection, filtered by
 * schema. A lease never guards the ledger: the head check of every append does.
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { StoredEntry } from '../../core/ledger/index.ts';
import type { ClaimedRun, ClaimScope, WorkerRecord, WorkerStatus } from '../../ports/index.ts';
import type { Row } from '../shared/row.ts';
import { entryFromColumns } from '../shared/rows.ts';
import { timersOf } from '../shared/timers-row.ts';
import type { PostgresTarget } from './connection.ts';
import { listenChannel } from './listen.ts';
import { attachBlobs, readEntryRows } from './queries.ts';

/** Rows of workers not seen for this long are dropped when a worker registers. */
export const WORKER_ROW_TTL_MS = 3_600_000;

export const WAKE_CHANNEL = 'keel_runs';

const CLAIMABLE = `status = 'running' AND (lease_until IS NULL OR lease_until < $1)`;

/**
 * A run a claim may take at `now` ($3): running, or waiting with its timer due, or waiting for an
 * approval whose deadline is due (runs_approval_due); `free`: no live lease.
 */
function due(free: string): string {
  return `((status = 'running' AND ${free}) OR (status = 'waiting' AND wake_at <= $3 AND ${free}) OR (status = 'waiting_approval' AND wake_at <= $3 AND ${free}))`;
}

/**
 * $1 owner, $2 until, $3 now, $4 limit: the claimed runs with their ledgers, one row per entry,
 * each run's entries in seq order, for the runs `where` picks. The ledgers are read per claimed run
 * (LATERAL, by the entries primary key): a join the planner is free to turn into a hash join would
 * scan the whole entries table on every claim once the table has grown (a generic plan guesses how
 * many runs are claimed).
 */
function claimStatement(where: string): string {
  return `WITH picked AS (
      SELECT run_key FROM runs
       WHERE ${where}
       ORDER BY created_at, run_key LIMIT $4
       FOR UPDATE SKIP LOCKED
    ),
    claimed AS (
      UPDATE runs r SET lease_owner = $1, lease_until = $2 FROM picked p WHERE r.run_key = p.run_key
      RETURNING r.run_key, r.tenant, r.run_id, r.lease_until, r.head_seq
    )
    SELECT c.tenant, c.run_id, c.lease_until, c.head_seq,
           e.seq, e.v, e.kind, e.prev_hash, e.payload_hash, e.hash, e.at, e.payload
      FROM claimed c
     CROSS JOIN LATERAL (
       SELECT seq, v, kind, prev_hash, payload_hash, hash, at, payload
         FROM entries WHERE run_key = c.run_key ORDER BY seq
     ) e`;
}

export const LEASE_SQL = {
  claim: claimStatement(due('(lease_until IS NULL OR lease_until < $3)')),
  /**
   * A scoped claim: $5 owners whose leases count as expired, $6 a tenant (NULL: any); the workers'
   * plain statement above stays as it was.
   */
  claimScoped: claimStatement(
    `${due('(lease_until IS NULL OR lease_until < $3 OR lease_owner = ANY($5::text[]))')}
       AND ($6::text IS NULL OR tenant = $6)`,
  ),
  /** One run: $6 tenant, $7 run id. */
  claimOne: claimStatement(
    `run_id = $7 AND tenant = $6
       AND ${due('(lease_until IS NULL OR lease_until < $3 OR lease_owner = ANY($5::text[]))')}`,
  ),
  /** $1 owner, $2 run ids, $3 until, $4 now. Data-modifying CTEs always run, read or not. */
  renew: `WITH mine AS (
      SELECT run_key FROM runs WHERE lease_owner = $1 AND run_id = ANY($2::text[])
       ORDER BY run_id FOR UPDATE
    ),
    seen AS (UPDATE workers SET seen_at = $4 WHERE id = $1)
    UPDATE runs r SET lease_until = $3 FROM mine m WHERE r.run_key = m.run_key RETURNING r.run_id`,
  /** $1 owner, $2 run id: clears the lease, and wakes workers if the run is still running. */
  release: `WITH released AS (
      UPDATE runs SET lease_owner = NULL, lease_until = NULL
       WHERE run_id = $2 AND lease_owner = $1 RETURNING status
    )
    SELECT r.status FROM released r
      LEFT JOIN LATERAL (SELECT pg_notify('${WAKE_CHANNEL}', current_schema()) WHERE r.status = 'running') n
        ON true`,
  releaseQuietly: `UPDATE runs SET lease_owner = NULL, lease_until = NULL
    WHERE run_id = $2 AND lease_owner = $1 RETURNING status`,
  /** Upserts a worker unless a live worker of another process holds the id ($7: prune before). */
  register: `WITH pruned AS (DELETE FROM workers WHERE seen_at < $7 AND id <> $1)
    INSERT INTO workers (id, host, pid, started_at, seen_at, lease_ms) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid,
      started_at = EXCLUDED.started_at, seen_at = EXCLUDED.seen_at, lease_ms = EXCLUDED.lease_ms
     WHERE (workers.host = EXCLUDED.host AND workers.pid = EXCLUDED.pid)
        OR workers.seen_at < EXCLUDED.seen_at - workers.lease_ms
    RETURNING id`,
  worker: 'SELECT * FROM workers WHERE id = $1',
  unregister: 'DELETE FROM workers WHERE id = $1',
  workers: 'SELECT * FROM workers ORDER BY id',
  leases: `SELECT lease_owner AS owner, count(*)::int AS runs FROM runs
    WHERE status = 'running' AND lease_until >= $1 GROUP BY lease_owner ORDER BY lease_owner`,
  queue: `SELECT count(*)::int AS n FROM runs WHERE ${CLAIMABLE}`,
  oldest: `SELECT tenant, run_id, created_at FROM runs WHERE ${CLAIMABLE} ORDER BY created_at, run_key LIMIT 1`,
  suspended: `SELECT count(*)::int AS n FROM runs WHERE status = 'outcome_unknown'`,
  /** $1 now: the earliest wake time after it (runs_waking). */
  // The next timer or approval deadline (each through its own index); a wake time no clock reaches
  // (an approval with no deadline, engine/approval-deadline.ts NEVER_MS) is none.
  nextWake: `SELECT min(t) AS next FROM (
               SELECT min(wake_at) AS t FROM runs WHERE status = 'waiting' AND wake_at > $1
               UNION ALL
               SELECT min(wake_at) FROM runs WHERE status = 'waiting_approval' AND wake_at > $1
                  AND wake_at < 8640000000000000) w`,
  timers: `SELECT count(*)::int AS n, min(wake_at) AS next FROM runs WHERE status = 'waiting'`,
} as const;

/**
 * Claims runs and reads their ledgers in one statement. The entries are read in the statement's
 * snapshot, while the run row is locked at its newest version: a ledger that ends before the
 * row's head (an append committed in between) is read again.
 */
export async function claimWithLedgers(
  pool: pg.Pool,
  values: readonly unknown[],
  scope?: ClaimScope,
): Promise<ClaimedRun[]> {
  const scoped = scope && [...values, scope.takeOver ?? [], scope.tenant ?? null];
  const r = await pool.query<unknown[]>(
    !scoped
      ? { name: 'keel_claim', text: LEASE_SQL.claim, values: [...values], rowMode: 'array' }
      : scope.runId !== undefined
        ? {
            name: 'keel_claim_one',
            text: LEASE_SQL.claimOne,
            values: [...scoped, scope.runId],
            rowMode: 'array',
          }
        : { name: 'keel_claim_scoped', text: LEASE_SQL.claimScoped, values: scoped, rowMode: 'array' },
  );
  const runs = new Map<
    string,
    { tenant: string; leaseUntil: number; headSeq: number; entries: StoredEntry[] }
  >();
  for (const row of r.rows) {
    const runId = row[1] as string;
    let run = runs.get(runId);
    if (!run) {
      run = { tenant: row[0] as string, leaseUntil: Number(row[2]), headSeq: row[3] as number, entries: [] };
      runs.set(runId, run);
    }
    run.entries.push(entryFromColumns(runId, row, 4));
  }
  const claimed: ClaimedRun[] = [];
  for (const [runId, run] of runs) {
    const entries =
      run.entries.at(-1)?.seq === run.headSeq
        ? await attachBlobs(pool, run.tenant, run.entries)
        : await readEntryRows(pool, run.tenant, runId, 0);
    claimed.push({ tenant: run.tenant, runId, leaseUntil: run.leaseUntil, entries });
  }
  return claimed;
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
export function idInUse(id: string, prior: WorkerRecord, now: number): KeelError {
  const ago = ((now - prior.seenAt) / 1000).toFixed(1);
  return new KeelError(
    ErrorCode.usage,
    `--id: worker ${id} is in use by pid ${prior.pid} on ${prior.host} (seen ${ago} s ago); choose another id or wait for its lease to expire`,
    { field: 'id', id, pid: prior.pid, host: prior.host },
  );
}

/** Reads `keel status` in six statements (reads only). */
export async function readWorkerStatus(pool: pg.Pool, now: number): Promise<WorkerStatus> {
  const [workers, leases, queue, oldest, suspended, timers] = await Promise.all([
    pool.query<Row>(LEASE_SQL.workers),
    pool.query<Row>(LEASE_SQL.leases, [now]),
    pool.query<Row>(LEASE_SQL.queue, [now]),
    pool.query<Row>(LEASE_SQL.oldest, [now]),
    pool.query<Row>(LEASE_SQL.suspended),
    pool.query<Row>(LEASE_SQL.timers),
  ]);
  const o = oldest.rows[0];
  return {
    now,
    workers: workers.rows.map(toWorker),
    leases: leases.rows.map((r) => ({ owner: r.owner as string, runs: r.runs as number })),
    queueDepth: queue.rows[0]?.n as number,
    ...(o
      ? {
          oldestRunnable: {
            tenant: o.tenant as string,
            runId: o.run_id as string,
            createdAt: o.created_at as string,
          },
        }
      : {}),
    suspended: suspended.rows[0]?.n as number,
    timers: timersOf(timers.rows[0] ?? { n: 0, next: null }),
  };
}

/**
 * LISTENs on a dedicated connection (listen.ts) and calls `listener` for wake-ups of this schema.
 * A dropped connection is re-established after a second; meanwhile workers poll. Runs that became
 * claimable while nobody listened are found at once after (re)connecting rather than at the next poll.
 */
export function listenForRunnable(
  target: PostgresTarget,
  listener: () => void,
): Promise<() => Promise<void>> {
  return listenChannel(
    target,
    WAKE_CHANNEL,
    (payload) => {
      if (payload === target.schema) listener();
    },
    listener,
  );
}
