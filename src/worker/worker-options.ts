/** What a worker is given (WorkerOptions), what it tells (WorkerEvent) and what it counts (WorkerStats). */
import type { RunStatus } from '../core/ledger/index.ts';
import type { Engine } from '../engine/index.ts';
import type { Clock, Store } from '../ports/index.ts';

export interface WorkerOptions {
  readonly engine: Pick<Engine, 'recover'>;
  readonly store: Store;
  /** Unique among live workers: the owner name on the leases this worker holds. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Runs walked at once (default 8). */
  readonly concurrency?: number;
  /**
   * Woken by its timer (waits due), the most due waits a worker fires at once beyond its
   * concurrency (default 256; 0: none): each such walk only records the wait's end, the run then
   * held until a walk slot frees. Many timers due in one second are fired in a few commits.
   */
  readonly fireBatch?: number;
  /** How long a claim or renewal holds a run, in ms (default 5000); renewed every leaseMs/3. */
  readonly leaseMs?: number;
  /** The fallback poll for claimable runs, in ms (default 1000). */
  readonly pollMs?: number;
  /** Wall-clock time for leases (ms since the epoch); compared across workers, so keep clocks in sync. */
  readonly clock: Clock;
  readonly log?: (event: WorkerEvent) => void;
  /**
   * Lease owners known to be gone (processes of this host that no longer exist): their runs are
   * claimed at once, not when their leases expire. Asked at start and at every poll.
   */
  readonly goneOwners?: () => Promise<readonly string[]>;
  /** Only this tenant's runs (`keel recover --all`); every tenant's by default. */
  readonly tenant?: string;
}

export type WorkerEvent =
  | { readonly kind: 'started'; readonly id: string; readonly concurrency: number; readonly leaseMs: number }
  | {
      readonly kind: 'walked';
      readonly runId: string;
      readonly tenant?: string;
      readonly status: RunStatus;
      readonly ms: number;
    }
  | { readonly kind: 'dropped'; readonly runId: string; readonly tenant?: string; readonly reason: string }
  | { readonly kind: 'error'; readonly runId?: string; readonly tenant?: string; readonly message: string }
  | { readonly kind: 'stopped'; readonly id: string; readonly released: number };

export interface WorkerStats {
  /** Claim statements issued (each may claim several runs). */
  claims: number;
  claimed: number;
  /** Walks that ended with the run finished, waiting or suspended. */
  walked: number;
  completed: number;
  /** Runs dropped: lease lost, or another walker appended first. */
  dropped: number;
  /** Runs released unfinished (on stop). */
  released: number;
  errors: number;
}
