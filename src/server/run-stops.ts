/**
 * Waiting over HTTP for a run to stop (`GET /api/runs/{runId}?waitMs=`): a long poll, so a client
 * that starts a run and wants its outcome asks once instead of polling every few milliseconds.
 * A run stops when it is no longer `running`: finished, or waiting (a timer, a person, an event),
 * paused or suspended. The store's append notifications (`ledger.onAppended`, one subscription per
 * process, shared by every waiting request) wake a waiter to read the run again, unless the
 * notification says the run is still running (SQLite says so of its own appends: a 3-step run
 * is then read twice, not once per append); a slow poll covers a notification missed (another
 * process's append on SQLite, a reconnection on PostgreSQL).
 */
import type { Keel } from '../app/index.ts';
import type { RunRecord } from '../ports/index.ts';

/** The longest wait served (ms); a longer `waitMs` is refused as bad input by the route. */
export const MAX_RUN_WAIT_MS = 30_000;
/** How often a waiter reads the run again without a notification (ms). */
const SLOW_POLL_MS = 1_000;

type Waiter = () => void;

class RunStops {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private subscribed: Promise<unknown> | undefined;

  constructor(private readonly keel: Keel) {}

  /** The run when it stops, or as it is after `ms` (not_found, as `keel.runs.get`, when none). */
  async until(tenant: string, runId: string, ms: number): Promise<RunRecord> {
    const deadline = performance.now() + ms;
    for (;;) {
      const woken = this.next(runId);
      const run = await this.keel.runs.get(tenant, runId).catch((e) => {
        woken.cancel();
        throw e;
      });
      const left = deadline - performance.now();
      if (run.status !== 'running' || left <= 0) {
        woken.cancel();
        return run;
      }
      await woken.after(Math.min(left, SLOW_POLL_MS));
    }
  }

  /** A wake-up for the run's next append, registered before the run is read (none is missed). */
  private next(runId: string): { after(ms: number): Promise<void>; cancel(): void } {
    this.subscribed ??= this.keel.store.ledger.onAppended((id, _entries, status) => {
      if (status !== 'running') this.wake(id);
    });
    let set = this.waiters.get(runId);
    if (!set) {
      set = new Set();
      this.waiters.set(runId, set);
    }
    const waiters = set;
    let fire: Waiter = () => undefined;
    const woken = new Promise<void>((resolve) => {
      fire = resolve;
    });
    waiters.add(fire);
    const cancel = () => {
      waiters.delete(fire);
      if (waiters.size === 0 && this.waiters.get(runId) === waiters) this.waiters.delete(runId);
    };
    return {
      after: async (ms) => {
        await settledWithin(woken, ms);
        cancel();
      },
      cancel,
    };
  }

  /** An append to `runId` (undefined: to runs the store cannot name) wakes its waiters. */
  private wake(runId?: string): void {
    if (runId === undefined) {
      for (const set of this.waiters.values()) for (const w of set) w();
      return;
    }
    for (const w of this.waiters.get(runId) ?? []) w();
  }
}

const byKeel = new WeakMap<Keel, RunStops>();

/**
 * The run when it stops (is no longer `running`) or after `ms`, whichever comes first. `walking`:
 * the walk this process started for the run (`onWalk`), awaited first: once it has settled, every
 * append it made is committed, so one read of the run tells where it stopped, with no wake-up to
 * register and no read before. A walk that ends with the run still running (its lease lost, a
 * pause) leaves the rest of the wait to the append notifications.
 */
export async function runWhenStopped(
  keel: Keel,
  tenant: string,
  runId: string,
  ms: number,
  walking?: Promise<unknown>,
): Promise<RunRecord> {
  const deadline = performance.now() + ms;
  if (walking) {
    await settledWithin(walking, ms);
    const run = await keel.runs.get(tenant, runId);
    if (run.status !== 'running' || performance.now() >= deadline) return run;
  }
  let stops = byKeel.get(keel);
  if (!stops) {
    stops = new RunStops(keel);
    byKeel.set(keel, stops);
  }
  return stops.until(tenant, runId, Math.max(0, deadline - performance.now()));
}

/** Resolves when `p` settles (either way: its failure is the walker's to report) or after `ms`. */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
