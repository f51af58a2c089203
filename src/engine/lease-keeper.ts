/**
 * Keeps the leases of the runs this process walks inline (`keel serve`, `keel emit`, an approval
 * walked on at once): while a walk is held here its run's lease is renewed every third of the
 * lease, one store call for all of them, so a process that dies mid-walk leaves leases that expire
 * within `leaseMs`, and a live one keeps its runs however long a tool call takes.
 *
 * A renewal that no longer finds a committed run's lease ours (another process took the run after
 * this one stalled past its lease) marks the walk lost: it stops at its next step boundary. The
 * head check of every append stays the fence; the keeper never claims and never appends.
 */
import type { Clock, WorkQueue } from '../ports/index.ts';

export interface LeaseHold {
  readonly runId: string;
  /** Set when a renewal found the lease gone: the walk stops at its next step boundary. */
  readonly lost: boolean;
}

interface Held {
  readonly runId: string;
  lost: boolean;
  /** Whether the run's root is durable (before that there is no row, so nothing to renew). */
  readonly durable: () => boolean;
}

export class LeaseKeeper {
  private readonly held = new Set<Held>();
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly store: Pick<WorkQueue, 'renewLeases'>,
    /** The owner name on the leases this process's inline walks hold. */
    readonly owner: string,
    readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  /** Keeps renewing the run's lease until `release`; `durable` says whether the run's root is committed. */
  hold(runId: string, durable: () => boolean): LeaseHold {
    const h: Held = { runId, lost: false, durable };
    this.held.add(h);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
      // A short-lived command (`keel emit`) must not stay alive for its renewals.
      this.timer.unref();
    }
    return h;
  }

  release(h: LeaseHold): void {
    this.held.delete(h as Held);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    const holds = [...this.held];
    try {
      const ids = [...new Set(holds.filter((h) => h.durable()).map((h) => h.runId))];
      if (ids.length === 0) return;
      const kept = new Set(await this.store.renewLeases(this.owner, ids, this.leaseMs, this.clock.now()));
      for (const h of holds) if (h.durable() && !kept.has(h.runId)) h.lost = true;
    } catch {
      // A failed renewal leaves the leases to expire; the head check still fences every append.
    } finally {
      this.renewing = false;
    }
  }
}
