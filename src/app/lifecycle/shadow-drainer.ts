/**
 * Drains the shadow queue (docs/lifecycle.md, "The shadow queue"): claims items under leases, in
 * turn across candidate versions, and works each (shadows.ts), at most `concurrency` at once in this
 * process and `limit(tenant)` of a tenant. Nothing is ever skipped: an item waits until a drainer
 * gets to it, and an item a dead process held is taken over (at once when that process is known to
 * be gone, else when its lease expires).
 *
 * Shadow work is evidence, never service: in the background it yields to live work — it starts
 * when the process has had no live work for `quietMs`, or, when live work never pauses, one item at
 * a time once it has been put off for `maxLagMs`. `drain` (a closing process, `keel recover --all`)
 * works without yielding. A process drains what it queued itself; `run` (`keel serve`, `keel
 * worker`) drains every tenant's queue continually. It never touches a live run.
 *
 * Every retry is bounded: an item that could not be worked (the store unreachable, its shadow run
 * held elsewhere or stopped) is tried again after 5 s, 10 s, 20 s ..., at most `SHADOW_MAX_ATTEMPTS`
 * times in all, then kept in the queue as failed — reported with its error, never claimed again,
 * never dropped — until a person asks for it again (`keel recover --all`). An item beside a live run
 * that has not ended is no failure: it waits, looked at again less often the longer it waits, and
 * is woken when its run ends in this process (`liveRunEnded`).
 */
import { ErrorCode, isKeelError, KeelError } from '../../core/errors.ts';
import type { ClaimedShadowWork, ShadowGroup, ShadowWork, Store } from '../../ports/index.ts';
import type { Shadows, WorkOutcome } from './shadows.ts';

/** Shadow runs a tenant may have walked at once by one process, unless configured. */
export const DEFAULT_SHADOW_LIMIT = 8;
/** How long a claim holds an item (ms); a process that dies holding it loses it then, or at once on this host. */
export const SHADOW_LEASE_MS = 60_000;
/** How long an item that could not be worked waits before its second attempt (ms); each later wait doubles. */
export const SHADOW_RETRY_MS = 5_000;
/** The longest wait between two attempts (ms). */
export const SHADOW_RETRY_MAX_MS = 300_000;
/** Attempts at an item before it is kept as failed. */
export const SHADOW_MAX_ATTEMPTS = 6;
/** How often an item waiting for its live run to end is looked at: a tenth of its age, within these bounds (ms). */
export const SHADOW_LIVE_WAIT_MS = { min: 1_000, max: 60_000 } as const;

/** The wait before the attempt after `failed` failed ones (ms). */
export const retryDelay = (failed: number): number =>
  Math.min(SHADOW_RETRY_MS * 2 ** Math.max(0, failed - 1), SHADOW_RETRY_MAX_MS);
/** How long live work must have paused before background shadow work starts (ms). */
export const SHADOW_QUIET_MS = 50;
/** How long background shadow work may be put off by live work before one item at a time goes on beside it (ms). */
export const SHADOW_MAX_LAG_MS = 60_000;

export interface ShadowDrainerOptions {
  readonly shadows: Shadows;
  readonly store: Store;
  /** The owner name on this process's leases (`shadows:<host>:<pid>`). */
  readonly owner: string;
  /** Wall-clock ms (leases, lag). */
  readonly clock: () => number;
  /** Shadow runs of a tenant this process walks at once (0: it leaves them to other processes). */
  readonly limit: (tenant: string) => number;
  /** Shadow runs this process walks at once, all tenants together. */
  readonly concurrency: number;
  /** Whether live work is in hand in this process now (or ended less than `quietMs` ago). */
  readonly busy: (quietMs: number) => boolean;
  readonly quietMs?: number;
  readonly maxLagMs?: number;
  /** Of these lease owners, those known to be gone (dead processes of this host). */
  readonly goneOwners?: (owners: readonly string[]) => Promise<readonly string[]>;
  readonly onError?: (e: unknown, what: { tenant: string; liveRunId?: string }) => void;
}

/** What one claim may take: the items this process queued, or (`all`) every claimable item, of one tenant or all. */
interface Scope {
  readonly all: boolean;
  readonly tenant?: string;
}

export class ShadowDrainer {
  /** Items this process queued and has not seen done, per tenant. */
  private readonly mine = new Map<string, Set<string>>();
  /** Live runs that ended in this process lately (`tenant\u0000runId`): their items need not wait. */
  private readonly ended = new Set<string>();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAt = Number.POSITIVE_INFINITY;
  private readonly active = new Map<string, number>();
  /** Gone lease owners last looked up, per scope (a tenant, or '' for all). */
  private readonly gone = new Map<string, { at: number; owners: readonly string[] }>();
  /** Tenants whose items this process has met (the limits of these are applied before a claim). */
  private readonly tenantsSeen = new Set<string>();
  private readonly working = new Set<Promise<void>>();
  private total = 0;
  /** The candidate version served last: the next claim starts after it (the round robin). */
  private after: ShadowGroup | undefined;
  /** Claims are made one at a time, so two never race for this process's free slots. */
  private claiming: Promise<unknown> = Promise.resolve();
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  /** When background work was first put off by live work (reset once it gets to go). */
  private putOffSince: number | undefined;
  private continual = false;
  private stopped = false;
  private readonly quietMs: number;
  private readonly maxLagMs: number;

  constructor(private readonly o: ShadowDrainerOptions) {
    this.quietMs = o.quietMs ?? SHADOW_QUIET_MS;
    this.maxLagMs = o.maxLagMs ?? SHADOW_MAX_LAG_MS;
  }

  /** This process queued `items`: it works them in the background, and before it closes (`drain`). */
  queued(items: readonly ShadowWork[]): void {
    if (items.length === 0) return;
    for (const w of items) {
      const ids = this.mine.get(w.tenant) ?? new Set<string>();
      this.mine.set(w.tenant, ids.add(w.id));
    }
    this.wake();
  }

  /**
   * A live run ended in this process (an approval, a reconciliation, a resume, a cancellation
   * finished it): the items beside it that wait for it are woken, and worked here.
   */
  async liveRunEnded(tenant: string, runId: string): Promise<void> {
    if (this.ended.size >= 10_000) this.ended.clear();
    this.ended.add(`${tenant}\u0000${runId}`);
    const ids = await this.o.store.shadowQueue.wakeShadowWork(tenant, runId);
    if (ids.length === 0) return;
    const mine = this.mine.get(tenant) ?? new Set<string>();
    for (const id of ids) mine.add(id);
    this.mine.set(tenant, mine);
    this.wake();
  }

  /** Drains every tenant's queue continually (`keel serve`, `keel worker`): polls every `pollMs`, yields to live work. */
  run(pollMs: number): void {
    if (this.continual || this.stopped) return;
    this.continual = true;
    this.poll = setInterval(() => this.wake(), pollMs);
    this.poll.unref();
    this.wake();
  }

  /** Stops claiming and waits (for at most `graceMs`) for the items being worked; the rest go back to the queue by their leases. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    if (this.timer) clearTimeout(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    let t: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.working]),
      new Promise<void>((r) => {
        t = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(t);
  }

  /**
   * Works, without yielding to live work, until nothing is left to claim and nothing is being
   * worked: what this process queued, or (`all`) every claimable item of `tenant` (every tenant's
   * without one), a dead process's included. Items another live process holds are left to it.
   */
  async drain(o: { all?: boolean; tenant?: string } = {}): Promise<{ worked: number }> {
    const scope: Scope = { all: o.all === true, ...(o.tenant !== undefined ? { tenant: o.tenant } : {}) };
    let worked = 0;
    for (;;) {
      const started = await this.claim(scope, this.o.concurrency - this.total);
      worked += started;
      if (started === 0 && this.working.size === 0) break;
      if (started === 0) await Promise.race([...this.working]);
    }
    // What is still queued is held elsewhere, or waits to be tried again: the store's now, not this process's.
    if (!scope.all) {
      if (scope.tenant === undefined) this.mine.clear();
      else this.mine.delete(scope.tenant);
    }
    return { worked };
  }

  /** Items being worked here now. */
  get workingNow(): number {
    return this.total;
  }

  private readonly wake = (): void => {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.background().catch((e) => this.o.onError?.(e, { tenant: '' }));
    });
  };

  /** Background work: claims for the free slots unless live work is in hand (see the banner). */
  private async background(): Promise<void> {
    if (this.stopped || (!this.continual && this.mine.size === 0)) return;
    let free = this.o.concurrency - this.total;
    if (free <= 0) return;
    if (this.o.busy(this.quietMs)) {
      const now = this.o.clock();
      this.putOffSince ??= now;
      if (now - this.putOffSince < this.maxLagMs) {
        // Put off: look again once live work may have paused.
        if (!this.timer)
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.wake();
          }, this.quietMs).unref();
        return;
      }
      // Put off for too long: one at a time beside the live work, so the lag stays bounded.
      if (this.total > 0) return;
      free = 1;
    } else this.putOffSince = undefined;
    await this.claim({ all: this.continual }, free);
  }

  /** Claims up to `free` items in `scope` and starts working them; how many were started. */
  private claim(scope: Scope, free: number): Promise<number> {
    const next = this.claiming.then(() => this.claimNow(scope, free));
    this.claiming = next.catch(() => undefined);
    return next;
  }

  private async claimNow(scope: Scope, wanted: number): Promise<number> {
    const free = Math.min(wanted, this.o.concurrency - this.total);
    if (free <= 0 || this.stopped) return 0;
    const { store, owner, clock } = this.o;
    const atLimit = (t: string) => (this.active.get(t) ?? 0) >= this.o.limit(t);
    let claimed: ClaimedShadowWork[] = [];
    if (scope.all) {
      const now = clock();
      const tenants = scope.tenant !== undefined ? [scope.tenant] : [...this.tenantsSeen];
      const skipTenants = tenants.filter(atLimit);
      if (scope.tenant !== undefined && skipTenants.length > 0) return 0;
      const takeOver = await this.takeOver(now, scope.tenant);
      claimed = await store.shadowQueue.claimShadowWork(owner, SHADOW_LEASE_MS, free, now, {
        ...(scope.tenant !== undefined ? { tenant: scope.tenant } : {}),
        ...(skipTenants.length > 0 && scope.tenant === undefined ? { skipTenants } : {}),
        ...(takeOver.length > 0 ? { takeOver } : {}),
        ...(this.after ? { after: this.after } : {}),
      });
    } else {
      for (const [tenant, ids] of this.mine) {
        if (scope.tenant !== undefined && tenant !== scope.tenant) continue;
        const room = Math.min(free - claimed.length, this.o.limit(tenant) - (this.active.get(tenant) ?? 0));
        if (room <= 0 || ids.size === 0) continue;
        claimed.push(
          ...(await store.shadowQueue.claimShadowWork(owner, SHADOW_LEASE_MS, room, clock(), {
            tenant,
            ids: [...ids],
            ...(this.after ? { after: this.after } : {}),
          })),
        );
        if (claimed.length >= free) break;
      }
    }
    let started = 0;
    for (const item of claimed) {
      this.tenantsSeen.add(item.tenant);
      // A claim across tenants may bring more of one tenant than it may walk at once: back they go.
      if (atLimit(item.tenant)) {
        await store.shadowQueue.releaseShadowWork(item.tenant, item.id, owner).catch(() => undefined);
        continue;
      }
      this.after = { tenant: item.tenant, workflowId: item.workflowId, version: item.version };
      this.start(item);
      started++;
    }
    return started;
  }

  /** Owners of live leases on this scope's items that are known to be gone (looked up at most once a second). */
  private async takeOver(now: number, tenant: string | undefined): Promise<readonly string[]> {
    if (!this.o.goneOwners) return [];
    const key = tenant ?? '';
    const known = this.gone.get(key);
    if (known && now - known.at < 1000) return known.owners;
    const status = await this.o.store.shadowQueue.shadowQueueStatus(
      now,
      tenant !== undefined ? { tenant } : {},
    );
    const owners = status.owners.map((x) => x.owner).filter((x) => x !== this.o.owner);
    const gone = owners.length === 0 ? [] : await this.o.goneOwners(owners);
    this.gone.set(key, { at: now, owners: gone });
    return gone;
  }

  private start(item: ClaimedShadowWork): void {
    const { tenant } = item;
    this.active.set(tenant, (this.active.get(tenant) ?? 0) + 1);
    this.total++;
    const p: Promise<void> = this.settle(item)
      .catch((e) => this.o.onError?.(e, { tenant, ...(item.liveRunId ? { liveRunId: item.liveRunId } : {}) }))
      .finally(() => {
        this.active.set(tenant, (this.active.get(tenant) ?? 1) - 1);
        this.total--;
        this.working.delete(p);
        this.wake();
      });
    this.working.add(p);
  }

  /**
   * Works one item, then takes it out of the queue (done), hands it back to be tried again (it
   * waits for its live run, or an attempt failed and attempts are left), or keeps it as failed.
   */
  private async settle(item: ClaimedShadowWork): Promise<void> {
    const { store, owner, clock } = this.o;
    const where = { tenant: item.tenant, ...(item.liveRunId ? { liveRunId: item.liveRunId } : {}) };
    let outcome: WorkOutcome;
    let final = false;
    try {
      outcome = await this.o.shadows.work(item);
    } catch (e) {
      this.o.onError?.(e, where);
      // A ledger that fails verification, or a live run no longer in the store, is no evidence,
      // now or later: kept as failed at once. Anything else (the store unreachable) is retried.
      final = isKeelError(e) && (e.code === ErrorCode.ledgerInvalid || e.code === ErrorCode.notFound);
      outcome = { retry: e instanceof Error ? e.message : String(e) };
    }
    const now = clock();
    if (outcome === 'done') {
      await store.shadowQueue.finishShadowWork(item.tenant, item.id);
      this.forget(item);
    } else if (outcome === 'waiting') {
      // Nothing went wrong: looked at again less often the longer its live run takes, at once if it ended here.
      const ended = item.liveRunId !== undefined && this.ended.has(`${item.tenant}\u0000${item.liveRunId}`);
      const wait = Math.min(
        Math.max((now - item.enqueuedMs) / 10, SHADOW_LIVE_WAIT_MS.min),
        SHADOW_LIVE_WAIT_MS.max,
      );
      await store.shadowQueue.releaseShadowWork(item.tenant, item.id, owner, ended ? undefined : now + wait);
      if (!ended) this.retryLater(now + wait);
    } else if (final || item.attempts + 1 >= SHADOW_MAX_ATTEMPTS) {
      const error = `${outcome.retry} (attempt ${item.attempts + 1} of ${SHADOW_MAX_ATTEMPTS}${final ? ', not retried' : ''})`;
      await store.shadowQueue.failShadowWork(item.tenant, item.id, owner, error, now);
      this.forget(item);
      this.o.onError?.(
        new KeelError(
          ErrorCode.runState,
          `the comparison of ${item.workflowId} v${item.version} on event ${item.event.id} is kept as failed in the shadow queue: ${error}; keel recover --all tries it again`,
          { id: item.id, workflowId: item.workflowId, version: item.version },
        ),
        where,
      );
    } else {
      const at = now + retryDelay(item.attempts + 1);
      await store.shadowQueue.releaseShadowWork(item.tenant, item.id, owner, at, outcome.retry);
      this.retryLater(at);
    }
  }

  /** An item left this process's hands for good (done, or kept as failed). */
  private forget(item: ShadowWork): void {
    this.mine.get(item.tenant)?.delete(item.id);
    if (this.mine.get(item.tenant)?.size === 0) this.mine.delete(item.tenant);
  }

  /** Looks for work again at `at` (ms), when an item handed back becomes claimable. */
  private retryLater(at: number): void {
    if (this.stopped || at >= this.retryAt) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        this.retryAt = Number.POSITIVE_INFINITY;
        this.wake();
      },
      Math.max(0, at - this.o.clock()),
    ).unref();
  }
}
