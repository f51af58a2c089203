/**
 * The ledger port: each run's append-only entries. An append is atomic and takes an expected head
 * (a stale head is a `head_conflict`, so two writers never both append at one seq); in the same
 * transaction it moves the run row (run-index.ts), opens or closes the approval it carries,
 * reserves from the run's writ budgets (writ-budgets.ts), stores and links the blobs its entries
 * reference, changes the run's lease (work-queue.ts) and queues the shadow work it starts
 * (shadow-queue.ts). Reads are tenant-scoped: another tenant's run reads as no entries.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { Head, RunMode, RunStatus, StoredEntry } from '../core/ledger/index.ts';
import type { PendingApproval } from './run-index.ts';
import type { ShadowWork } from './shadow-queue.ts';
import type { LeaseChange } from './work-queue.ts';
import type { BudgetChange } from './writ-budgets.ts';

/** Creating a run: its first entries and the identity the run row is indexed by. */
export interface NewRun {
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly eventId: string;
  readonly eventType: string;
  /** The starting event's subject (a ticket, a customer): what runs are searched by. Absent or empty: none. */
  readonly subject?: string;
  readonly mode?: RunMode;
  readonly shadowOf?: string;
}

export interface AppendRequest {
  readonly tenant: string;
  readonly runId: string;
  /** The head the caller built on; null when the entries start a new run at seq 0. */
  readonly expectedHead: Head | null;
  readonly entries: readonly StoredEntry[];
  /** The run's status after these entries (the run row is a projection kept in step). */
  readonly status: RunStatus;
  /** Required when expectedHead is null. */
  readonly create?: NewRun;
  /** Pending approvals opened or closed by these entries. */
  readonly openApproval?: PendingApproval;
  readonly closeApproval?: Digest;
  /** A change of the run's lease, applied only if the append is. */
  readonly lease?: LeaseChange;
  /**
   * A wake time (ms) for the run row, set with the append without changing its lease (a `wait`
   * lease change sets its own): a wait for an event that goes on looking while it holds the run.
   */
  readonly wakeAt?: number;
  /** A reservation from (or a return to) the run's writ budgets, applied only with the append. */
  readonly budget?: BudgetChange;
  /**
   * Shadow work queued with the append, in its transaction (a live run's root queues its SHADOW
   * versions' comparisons): applied only if the append is; an item already queued is kept as is.
   */
  readonly shadowWork?: readonly ShadowWork[];
}
/**
 * What the audit query selects: ledger entries across one tenant's runs. Every field narrows
 * exactly (byte-equal text); absent fields select everything.
 */
export interface EntryFilter {
  readonly runId?: string;
  /** Entries of runs of this workflow. */
  readonly workflowId?: string;
  /** Entries of this kind (`step.refused`, ...). */
  readonly kind?: string;
  /** Entries whose payload names this actor as who acted (core/ledger/entry-actor.ts, `namesActor`). */
  readonly actor?: string;
  /** `step.refused` and `run.finished` entries with this `code` (`hasCode`). */
  readonly code?: string;
  /**
   * Entries written at or after `since`, and before `until`: each in the clock's text
   * (`instantBound`), compared byte by byte with the entry's `at`.
   */
  readonly since?: string;
  readonly until?: string;
}

/**
 * A page of the audit query. Entries come in (at, runId, seq) order, ascending, by byte order of
 * `at` and run id; `cursor` continues after the last entry of the page that returned it, with the
 * same filters.
 */
export interface EntryQuery extends EntryFilter {
  /** 1..500, default 100. */
  readonly limit?: number;
  readonly cursor?: string;
}

/** A ledger entry as stored, with the workflow and pinned version of its run. */
export interface RunEntry extends StoredEntry {
  readonly workflowId: string;
  readonly version: number;
}

export interface EntryPage {
  readonly entries: readonly RunEntry[];
  /** Present when more entries may match: the cursor of the next page. */
  readonly next?: string;
}

/**
 * Told that a run (or, without an id, any run) has new committed entries; `entries` and the run's
 * `status` after them when known (a store gives them for its own handle's appends).
 */
export type AppendListener = (runId?: string, entries?: readonly StoredEntry[], status?: RunStatus) => void;

export interface Ledger {
  /**
   * Atomically appends entries; resolves once they are durable. Throws head_conflict on a stale
   * head, and writ_refused (writ_budget_exhausted) when its `budget` reservation does not fit.
   */
  append(req: AppendRequest): Promise<Head>;
  /**
   * Entries in seq order from `fromSeq` (default 0), at most `limit` of them (default all), so long
   * ledgers can be read in pages. Empty when the run is unknown to this tenant.
   */
  readEntries(tenant: string, runId: string, fromSeq?: number, limit?: number): Promise<StoredEntry[]>;
  /**
   * The audit query: entries of the tenant's runs that match every field of `q`, a page at a time
   * in (at, runId, seq) order (EntryQuery). A cursor that no page returned is a usage error naming
   * `cursor`; another tenant's run id matches nothing.
   */
  queryEntries(tenant: string, q: EntryQuery): Promise<EntryPage>;
  /** How many of the tenant's entries match `f`, by kind (kinds with none are absent). */
  countEntries(tenant: string, f: EntryFilter): Promise<Record<string, number>>;
  /**
   * Calls `listener` after entries appended to a run are committed: with the run's id, or with no
   * id when runs may have changed that the store cannot name (SQLite: another process committed;
   * PostgreSQL: the listening connection was re-established). A hint that a head may have moved,
   * never a guarantee and never data: listeners re-read what they need, and one that must not
   * miss anything also polls, slowly. PostgreSQL: NOTIFY in the append's own transaction, heard by
   * every process on the database (`?notify=off`: never called); SQLite: this handle's appends at
   * once, other processes' within about 100 ms. Resolves to a function that stops listening.
   * Where the store has them at hand (SQLite, this handle's own appends), `entries` are the run's
   * entries that commit appended, in order: a listener whose copy they continue may take them
   * instead of reading them back.
   */
  onAppended(listener: AppendListener): Promise<() => Promise<void>>;
}
