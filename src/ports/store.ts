/**
 * The Store: everything the engine keeps durably, as a small record of ports by concern, each
 * held to its own contract suite on every adapter (SQLite, PostgreSQL) through `runStoreContract`
 * (docs/storage.md). Every read and write names its tenant.
 *
 * Ports share one transaction handle inside an adapter where an operation spans several concerns:
 * an append that moves the run row, projects its approval, reserves writ budget, links blobs and
 * queues shadow work is one transaction of the ledger port.
 */
import type { CheckpointStore } from './checkpoint-store.ts';
import type { EventIndex } from './event-index.ts';
import type { EventWaits } from './event-waits.ts';
import type { Evidence } from './evidence.ts';
import type { Idempotency } from './idempotency.ts';
import type { Keys } from './keys.ts';
import type { Ledger } from './ledger.ts';
import type { Registry } from './registry.ts';
import type { RunIndex } from './run-index.ts';
import type { ShadowQueue } from './shadow-queue.ts';
import type { UnroutedInbox } from './unrouted-inbox.ts';
import type { WorkQueue } from './work-queue.ts';
import type { WritBudgets } from './writ-budgets.ts';

export interface StoreStats {
  /** Durable transactions committed since the store was opened (one fsync each in SQLite FULL mode). */
  readonly commits: number;
  readonly entriesAppended: number;
}

/** The ports a store is made of, by concern (docs/storage.md). */
export interface StorePorts {
  /** Runs' entries: appends (one transaction with everything they project) and reads. */
  readonly ledger: Ledger;
  /** Run rows, pending approvals and what is counted over them. */
  readonly runs: RunIndex;
  /** Versions, lifecycle records and rollouts. */
  readonly registry: Registry;
  /** Shadow comparisons and skipped shadow runs. */
  readonly evidence: Evidence;
  /** Comparisons still to make, leased to drainers. */
  readonly shadowQueue: ShadowQueue;
  /** Claims, leases, workers and wake-ups. */
  readonly queue: WorkQueue;
  /** API keys, trusted writ keys, revocations, writ chains and secret keys. */
  readonly keys: Keys;
  /** Idempotency records of `keel serve`. */
  readonly idempotency: Idempotency;
  /** Writ budgets shared across runs. */
  readonly budgets: WritBudgets;
  /** Signed checkpoints and retention. */
  readonly checkpoints: CheckpointStore;
  /** Delivered events, conflicting redeliveries and trigger disagreements. */
  readonly events: EventIndex;
  /** Arrivals kept for waits for events, taken by one run each, waking their waiters. */
  readonly waits: EventWaits;
  /** Events nobody took and hook deliveries whose mapping failed, kept for redelivery. */
  readonly unrouted: UnroutedInbox;
}

export interface Store extends StorePorts {
  stats(): StoreStats;
  close(): Promise<void>;
}

/**
 * The store with some of its ports replaced (a decorator wrapping one concern). Everything else
 * is the store's own: the other ports, `stats` and `close` (called on the store itself), and what
 * an adapter adds (a SQLite store's `path`, say).
 */
export function withPorts(store: Store, ports: Partial<StorePorts>): Store {
  const own: PropertyDescriptorMap = {
    stats: { value: () => store.stats() },
    close: { value: () => store.close() },
  };
  for (const [name, port] of Object.entries(ports)) if (port) own[name] = { value: port, enumerable: true };
  return Object.create(store, own) as Store;
}
