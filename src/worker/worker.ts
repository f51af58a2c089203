/**
 * A worker: claims runnable runs (leases on the run rows), walks each with `engine.resume` — from
 * its ledger head — while a heartbeat renews the leases every lease/3, and releases a run it stops
 * walking before the run is done. It wakes on the store's wake-ups (LISTEN/NOTIFY on PostgreSQL)
 * and polls slowly as a fallback, never hot. Timers: a run waiting on one is claimed like a
 * running run once due, and the worker sleeps exactly until the next due timer (`nextWakeAt`,
 * re-armed after each claim that drained the queue, so on every wake-up — a NOTIFY, a new wait
 * in this process — too) rather than finding it at the next poll. When that timer goes off, it
 * fires the due waits in batches beyond its concurrency (`fireBatch`: each such walk only records
 * the wait's end) and holds those runs for its walk slots. `stop()` stops claiming, lets
 * each walk finish its current step, releases what is left and unregisters.
 *
 * It decides nothing about a run: the engine walks it and the ledger says where it is. A lease
 * lost to another worker, or an append refused as a head_conflict, only makes it drop the run.
 */
import { ErrorCode, isKeelError } from '../core/errors.ts';
import type { ClaimedRun } from '../ports/index.ts';
import type { WorkerOptions, WorkerStats } from './worker-options.ts';

export type { WorkerEvent, WorkerOptions, WorkerStats } from './worker-options.ts';

/** How long a worker holds a run that failed verification before anyone tries it again. */
export const QUARANTINE_MS = 3_600_000;

/** The default of WorkerOptions.fireBatch: due waits fired at once beyond the concurrency. */
export const FIRE_BATCH = 256;

/** The most runs a worker holds whose waits it fired and that wait for a walk slot. */
export const MAX_FIRED_HELD = 10_000;

/** The longest a timer is armed for: a later one is re-armed from the poll. */
export const MAX_TIMER_MS = 60_000;

/**
 * How long a worker keeps a run its claim found due but its walk found still waiting (the store's
 * clock and the run's disagree): it is tried again after this, never in a hot loop.
 */
export const EARLY_WAKE_MS = 250;

interface Slot {
  readonly run: ClaimedRun;
  /** Set when the lease was lost: the walk stops at its next step boundary. */
  lost: boolean;
  done?: Promise<void>;
}

export class Worker {
  readonly stats: WorkerStats = {
    claims: 0,
    claimed: 0,
    walked: 0,
    completed: 0,
    dropped: 0,
    released: 0,
    errors: 0,
  };
  private readonly active = new Map<string, Slot>();
  /** Walks firing a due wait (they end once the wait's end is recorded), beside `active`. */
  private readonly firing = new Map<string, Slot>();
  /** Runs held whose waits were fired, with their ledgers: walked first as slots free up. */
  private fired: ClaimedRun[] = [];
  /** The wake timer went off: waits are due, so claims fire them in batches until none is left. */
  private timersDue = false;
  private readonly fireBatch: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly refillAt: number;
  private stopping = false;
  private filling = false;
  private again = false;
  private fillScheduled = false;
  private timers: NodeJS.Timeout[] = [];
  /** The timer armed for the next due wait (`nextWakeAt`), and when it fires (ms). */
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt: number | undefined;
  private arming = false;
  private unlisten: (() => Promise<void>) | undefined;
  /** Owners whose leases count as expired in the next claims (refreshed at every poll). */
  private takeOver: readonly string[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly o: WorkerOptions) {
    this.concurrency = o.concurrency ?? 8;
    this.fireBatch = o.fireBatch ?? FIRE_BATCH;
    this.leaseMs = o.leaseMs ?? 5000;
    this.pollMs = o.pollMs ?? 1000;
    this.refillAt = Math.max(1, Math.floor(this.concurrency / 4));
  }

  /** Registers, starts listening, heartbeating and polling, and claims the first runs. */
  async start(): Promise<void> {
    const { store, id, host, pid, clock } = this.o;
    const now = clock.now();
    await store.queue.registerWorker({ id, host, pid, startedAt: now, leaseMs: this.leaseMs }, now);
    this.unlisten = await store.queue.onRunnable(this.wake);
    this.timers.push(setInterval(() => void this.beat(), Math.max(1, Math.floor(this.leaseMs / 3))));
    this.timers.push(setInterval(() => void this.poll(), this.pollMs));
    this.o.log?.({ kind: 'started', id, concurrency: this.concurrency, leaseMs: this.leaseMs });
    await this.poll();
  }

  /** Resolves once nothing is left to claim and no walk is running (`keel recover --all`). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.wake();
    });
  }

  /** The fallback poll: learns which lease holders are gone, then claims. */
  private async poll(): Promise<void> {
    if (this.o.goneOwners) {
      try {
        this.takeOver = await this.o.goneOwners();
      } catch (e) {
        this.error(e);
      }
    }
    this.wake();
  }

  /** Runs being walked now. */
  get walking(): number {
    return this.active.size;
  }

  /**
   * Stops claiming, lets every walk finish its current step (for at most `graceMs`, default 80% of
   * the lease), releases the runs still held unfinished, and unregisters. Leases keep being renewed
   * meanwhile, so no other worker takes a run that is still being walked.
   */
  async stop(graceMs = Math.floor(this.leaseMs * 0.8)): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.unlisten?.().catch(() => {});
    const walks = [...this.active.values(), ...this.firing.values()].map((s) => s.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(walks),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(timer);
    // Walks still inside a tool call: their runs go back to the queue now, not when the lease ends.
    for (const slot of this.active.values()) await this.release(slot);
    for (const slot of this.firing.values()) await this.release(slot);
    for (const run of this.fired.splice(0)) await this.release({ run, lost: false });
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    await this.o.store.queue.unregisterWorker(this.o.id).catch((e) => this.error(e));
    this.o.log?.({ kind: 'stopped', id: this.o.id, released: this.stats.released });
  }

  /** Coalesces wake-ups (NOTIFY, poll, a finished walk) into one claim per turn of the event loop. */
  private readonly wake = (): void => {
    if (this.fillScheduled || this.stopping) return;
    this.fillScheduled = true;
    setImmediate(() => {
      this.fillScheduled = false;
      void this.fill();
    });
  };

  private async fill(): Promise<void> {
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = true;
    try {
      do {
        this.again = false;
        let free = this.concurrency - this.active.size;
        // Runs whose waits were fired are walked first, as slots free up.
        for (; free > 0 && !this.stopping && this.fired.length > 0; free--) this.walk(this.fired.shift()!);
        // Timers due: claim beyond the free slots, and fire the due waits among the runs claimed.
        const burst =
          this.timersDue && this.fired.length < MAX_FIRED_HELD
            ? Math.max(0, this.fireBatch - this.firing.size)
            : 0;
        // Refill in batches (a quarter of the slots, or when idle): one claim serves several runs.
        if (this.stopping) return;
        if (burst === 0 && (free <= 0 || (free < this.refillAt && this.active.size > 0))) return;
        const limit = Math.max(0, free) + burst;
        const { store, id, clock } = this.o;
        let claimed: ClaimedRun[];
        try {
          const { tenant } = this.o;
          const scope =
            tenant !== undefined || this.takeOver.length > 0
              ? { ...(tenant !== undefined ? { tenant } : {}), takeOver: this.takeOver }
              : undefined;
          claimed = await store.queue.claimRuns(id, this.leaseMs, limit, clock.now(), scope);
        } catch (e) {
          this.error(e);
          return;
        }
        this.stats.claims++;
        this.stats.claimed += claimed.length;
        if (this.stopping) {
          // Stopped while the claim was in flight: hand the runs straight back.
          for (const run of claimed) await this.release({ run, lost: false });
          return;
        }
        let fires = burst;
        for (const run of claimed) {
          if (fires > 0 && run.entries.at(-1)?.kind === 'wait.started') {
            fires--;
            this.walk(run, true);
          } else if (free > 0) {
            free--;
            this.walk(run);
          } else this.fired.push(run);
        }
        // The queue is drained for now: sleep until the next timer is due.
        if (claimed.length < limit) {
          this.timersDue = false;
          void this.arm();
        }
        if (
          claimed.length === 0 &&
          this.active.size === 0 &&
          this.firing.size === 0 &&
          this.fired.length === 0
        ) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      } while (this.again);
    } finally {
      this.filling = false;
    }
  }

  /**
   * Walks a claimed run; `fire`: only until the wait it is due at has ended (recorded), the run
   * then held with its ledger among `fired` for a walk slot.
   */
  private walk(run: ClaimedRun, fire = false): void {
    const slot: Slot = { run, lost: false };
    const walks = fire ? this.firing : this.active;
    walks.set(run.runId, slot);
    const t0 = this.o.clock.now();
    slot.done = (async () => {
      try {
        const r = await this.o.engine.recover(run.tenant, run.runId, {
          entries: run.entries,
          shouldStop: () => slot.lost || this.stopping,
          ...(fire ? { yieldAfterWait: true } : {}),
        });
        if (fire && r.status === 'running' && !slot.lost && !this.stopping) {
          // Fired: held (the lease renewed with the walks') until a slot walks the rest.
          const entries = await this.o.store.ledger.readEntries(run.tenant, run.runId);
          this.fired.push({ ...run, entries });
          return;
        }
        const last = run.entries.at(-1)?.kind;
        const unchanged =
          (r.status === 'waiting' && last === 'wait.started') ||
          (r.status === 'waiting_approval' &&
            (last === 'approval.requested' || last === 'approval.reminded'));
        if (unchanged) {
          // Claimed as due, yet its walk found it not due (the clocks disagree): tried again
          // shortly, by whichever worker, never at once and again.
          await this.o.store.queue
            .renewLeases(this.o.id, [run.runId], EARLY_WAKE_MS, this.o.clock.now())
            .catch((e) => this.error(e, run.runId));
        }
        if (r.status === 'running') {
          // Stopped at a step boundary: the lease was lost, or this worker is stopping.
          if (slot.lost) this.drop(run.runId, 'its lease was lost to another worker');
          else await this.release(slot);
          return;
        }
        this.stats.walked++;
        if (r.status === 'completed') this.stats.completed++;
        this.o.log?.({
          kind: 'walked',
          runId: run.runId,
          tenant: run.tenant,
          status: r.status,
          ms: this.o.clock.now() - t0,
        });
      } catch (e) {
        if (isKeelError(e) && e.code === ErrorCode.headConflict)
          this.drop(run.runId, 'another walker appended first');
        else if (isKeelError(e) && e.code === ErrorCode.ledgerInvalid) await this.quarantine(run.runId, e);
        else this.error(e, run.runId);
        // Anything else leaves the lease to expire: the run is retried after leaseMs, not hot.
      } finally {
        walks.delete(run.runId);
        this.wake();
      }
    })();
  }

  /**
   * Arms one timer for the earliest wait due after now (every tenant's, or this worker's tenant's
   * only when scoped: a claim narrows, the timer may wake it for nothing), capped at MAX_TIMER_MS;
   * it wakes the worker to claim. One query, skipped while one is in flight.
   */
  private async arm(): Promise<void> {
    if (this.arming || this.stopping) return;
    this.arming = true;
    try {
      const { store, clock } = this.o;
      const now = clock.now();
      const next = await store.queue.nextWakeAt(now);
      if (this.stopping) return;
      const at = next === undefined ? undefined : Math.min(next, now + MAX_TIMER_MS);
      if (at === this.wakeAt && this.wakeTimer) return;
      clearTimeout(this.wakeTimer);
      this.wakeTimer = undefined;
      this.wakeAt = at;
      if (at === undefined) return;
      this.wakeTimer = setTimeout(
        () => {
          this.wakeTimer = undefined;
          this.wakeAt = undefined;
          this.timersDue = this.fireBatch > 0;
          this.wake();
        },
        Math.max(0, at - clock.now()),
      );
    } catch (e) {
      this.error(e);
    } finally {
      this.arming = false;
    }
  }

  /**
   * A run that fails verification is never walked, and retrying it at every lease would be an
   * endless loop: this worker keeps its lease for QUARANTINE_MS (`keel status` shows it held), so
   * it is tried again at most once an hour, by whichever worker then claims it. `keel verify`
   * names what failed.
   */
  private async quarantine(runId: string, e: Error): Promise<void> {
    this.error(new Error(`${e.message}; left alone for ${QUARANTINE_MS / 60_000} minutes`), runId);
    try {
      await this.o.store.queue.renewLeases(this.o.id, [runId], QUARANTINE_MS, this.o.clock.now());
    } catch (x) {
      this.error(x, runId);
    }
  }

  /** Renews the leases of the runs being walked; a run whose lease is gone is stopped and dropped. */
  private async beat(): Promise<void> {
    const { store, id, clock } = this.o;
    const ids = [...this.active.keys(), ...this.firing.keys(), ...this.fired.map((r) => r.runId)];
    try {
      const held = new Set(await store.queue.renewLeases(id, ids, this.leaseMs, clock.now()));
      for (const runId of ids) {
        const slot = this.active.get(runId) ?? this.firing.get(runId);
        if (slot && !held.has(runId)) slot.lost = true;
      }
      // A held run whose lease was lost is another worker's now (one held since the renewal stays).
      const asked = new Set(ids);
      this.fired = this.fired.filter((r) => held.has(r.runId) || !asked.has(r.runId));
    } catch (e) {
      this.error(e);
    }
  }

  private async release(slot: Slot): Promise<void> {
    try {
      if (await this.o.store.queue.releaseRun(this.o.id, slot.run.runId)) this.stats.released++;
    } catch (e) {
      this.error(e, slot.run.runId);
    }
  }

  private drop(runId: string, reason: string): void {
    this.stats.dropped++;
    const tenant = this.active.get(runId)?.run.tenant;
    this.o.log?.({ kind: 'dropped', runId, ...(tenant !== undefined ? { tenant } : {}), reason });
  }

  private error(e: unknown, runId?: string): void {
    this.stats.errors++;
    const message = e instanceof Error ? e.message : String(e);
    const tenant = runId === undefined ? undefined : this.active.get(runId)?.run.tenant;
    this.o.log?.({
      kind: 'error',
      ...(runId ? { runId } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
      message,
    });
  }
}
