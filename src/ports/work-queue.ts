/**
 * The work queue: workers share runs through leases on the run row (`claimRuns`, `renewLeases`,
 * `releaseRun`) and register their heartbeats. A lease only says who should walk a run now; the
 * head check on every append stays the fence that keeps two walkers from both writing at one seq.
 * Lease times are milliseconds since the epoch, taken from the caller (`now`), never read by the
 * engine. Wake-ups (`onRunnable`) are hints; workers still poll.
 *
 * Timers live here too: a run waiting on a timer has status `waiting` and a `wake_at` (ms), set by
 * the append that starts the wait (`LeaseChange` `wait`); from `wake_at` on, a claim takes it like
 * a running run, and `nextWakeAt` tells a worker how long it may sleep.
 */
import type { StoredEntry } from '../core/ledger/index.ts';

/**
 * Who may walk a run, changed with an append in the same transaction: `hold` leases the run to
 * `owner` for `ms` from the store's clock (an inline walk no worker should claim meanwhile);
 * `release` clears the lease and, if the run is running, wakes the workers to claim it; `wait`
 * clears the lease and sets the run's wake time (`wakeAt`, ms): the append leaves the run
 * `waiting`, claimable once `wakeAt` has passed, and tells the workers a timer was set.
 */
export type LeaseChange =
  | { readonly op: 'hold'; readonly owner: string; readonly ms: number }
  | { readonly op: 'release' }
  | { readonly op: 'wait'; readonly wakeAt: number };

/** A run a worker claimed: it holds the lease until `leaseUntil` (ms) unless it renews it. */
export interface ClaimedRun {
  readonly tenant: string;
  readonly runId: string;
  readonly leaseUntil: number;
  /** The run's ledger as of the claim (in seq order), so the claimer starts walking without a read. */
  readonly entries: readonly StoredEntry[];
}

/**
 * Narrows a claim: only one tenant's runs, or one run, and leases that count as expired because
 * their holders are known to be gone (a process on this host that no longer exists, or the
 * claimer itself from before a crash). Without a scope a claim takes any claimable run.
 */
export interface ClaimScope {
  readonly tenant?: string;
  /** One run (of `tenant`, which is then required). */
  readonly runId?: string;
  /** Owners whose live leases count as expired. */
  readonly takeOver?: readonly string[];
}

/** A worker process as it registers itself; `seenAt` is its last heartbeat (ms). */
export interface WorkerRecord {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly seenAt: number;
  readonly leaseMs: number;
}

/** What `keel status` shows: across all tenants, an operator's view of the workers and the queue. */
export interface WorkerStatus {
  readonly now: number;
  readonly workers: readonly WorkerRecord[];
  /** Live leases on running runs, per owner. */
  readonly leases: readonly { readonly owner: string; readonly runs: number }[];
  /** Runs a worker could claim now: running, with no lease or an expired one. */
  readonly queueDepth: number;
  readonly oldestRunnable?: { readonly tenant: string; readonly runId: string; readonly createdAt: string };
  /** Runs suspended as outcome_unknown, waiting for reconciliation. */
  readonly suspended: number;
  /** Runs waiting on a timer, and the earliest wake time among them (ms). */
  readonly timers?: { readonly waiting: number; readonly nextWakeAt?: number };
}

export interface WorkQueue {
  /**
   * Leases up to `limit` claimable runs (running, or waiting with a wake time at or before `now`;
   * no lease or one expired before `now`) to `owner`
   * until `now + leaseMs`, oldest first, skipping rows another claim holds; one transaction, which
   * also returns each claimed run's ledger. A `scope` narrows what is claimed (ClaimScope).
   */
  claimRuns(
    owner: string,
    leaseMs: number,
    limit: number,
    now: number,
    scope?: ClaimScope,
  ): Promise<ClaimedRun[]>;
  /**
   * The earliest wake time (ms) after `now` of any waiting run, every tenant's; undefined when no
   * run waits on a later timer. A worker sleeps until then (or a wake-up) instead of polling.
   */
  nextWakeAt(now: number): Promise<number | undefined>;
  /** Extends the leases `owner` still holds among `runIds` and stamps its heartbeat; returns those. */
  renewLeases(owner: string, runIds: readonly string[], leaseMs: number, now: number): Promise<string[]>;
  /** Clears `owner`'s lease on a run (false if it no longer held it); wakes workers if the run is running. */
  releaseRun(owner: string, runId: string): Promise<boolean>;
  /** Registers (or re-registers) a worker; a usage error when a live worker of another process has the id. */
  registerWorker(w: Omit<WorkerRecord, 'seenAt'>, now: number): Promise<void>;
  unregisterWorker(id: string): Promise<void>;
  workerStatus(now: number): Promise<WorkerStatus>;
  /**
   * Calls `listener` when runs may have become claimable (PostgreSQL: LISTEN on a dedicated
   * connection, for every process; SQLite: appends through this handle only). A hint, never a
   * guarantee: workers still poll. Resolves to a function that stops listening.
   */
  onRunnable(listener: () => void): Promise<() => Promise<void>>;
}
