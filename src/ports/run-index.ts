/**
 * The run index: the run rows and pending approvals, projections of the ledger kept in step with
 * it by each append (ledger.ts), and what is counted over them. Every read names its tenant; a run
 * of another tenant is indistinguishable from a run that does not exist.
 */
import type { Digest } from '../core/canonical/index.ts';
import type { Head, RunMode, RunStatus } from '../core/ledger/index.ts';

export interface RunRecord {
  readonly runId: string;
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly specHash: Digest;
  readonly status: RunStatus;
  readonly head: Head;
  readonly eventId: string;
  readonly eventType: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The starting event's subject (a ticket, a customer); absent when it named none. */
  readonly subject?: string;
  /** A simulated run's mode (its root's `mode`); absent for a live run. */
  readonly mode?: RunMode;
  /** A shadow run's live run (its root's `shadowOf`). */
  readonly shadowOf?: string;
}

export interface PendingApproval {
  readonly tenant: string;
  readonly runId: string;
  readonly proposalId: Digest;
  readonly step: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly reason: string;
  readonly channel: string;
  readonly requestedAt: string;
  /**
   * Set (by `approvals.list`, never by a store) when the run does not verify: what failed. The
   * other fields are then empty (only the run id and when it was asked are kept), since neither the
   * row nor the ledger can be trusted, and deciding it is refused.
   */
  readonly invalid?: { readonly code: string; readonly seq: number; readonly message: string };
}

export interface RunFilter {
  readonly status?: RunStatus;
  readonly workflowId?: string;
  /** Runs of one version (of workflowId; alone, that version of every workflow). */
  readonly version?: number;
  /** `live`: live runs only; `test` or `shadow`: only simulated runs of that mode. Absent: all. */
  readonly mode?: RunMode | 'live';
  /**
   * Runs created at or after this time, and before `until`: each in the clock's text
   * (`Date.toISOString`, as `instantBound` gives it), which the stores compare byte by byte.
   */
  readonly since?: string;
  readonly until?: string;
  /** Runs whose starting event's subject is exactly this. */
  readonly subject?: string;
  /** Runs whose subject starts with this (byte for byte). */
  readonly subjectPrefix?: string;
  /**
   * A run id (`sha256:<64 hex>`), or a prefix of one (`sha256:` and at least 8 hex digits, as
   * core/run/run-search.ts checks it): the runs whose id starts with it.
   */
  readonly runId?: string;
  readonly limit?: number;
  /** Opaque cursor from a previous page's `next`. */
  readonly cursor?: string;
}

export interface RunPage {
  readonly runs: readonly RunRecord[];
  readonly next?: string;
}

/** What `countRuns` counts: a workflow's runs (of one version), of one mode, created since a time. */
export interface RunCount {
  /** Absent: every workflow of the tenant. */
  readonly workflowId?: string;
  readonly version?: number;
  readonly mode?: RunMode | 'live';
  readonly status?: RunStatus;
  /** ISO time; runs created at or after it. */
  readonly since?: string;
  /** ISO time, in the clock's text like `since`; runs created before it. */
  readonly until?: string;
}

/** What `tallyLiveRuns` counts: the live runs of one version created in a window. */
export interface LiveRunWindow {
  readonly workflowId: string;
  readonly version: number;
  /** ISO time, in the clock's text like RunCount's: runs created at or after it. */
  readonly since: string;
  /** How many run ids to give as examples of each list (1..500). */
  readonly examples: number;
}

/**
 * Every live run of a version in a window, counted in the store (never the newest N): finished
 * runs the routing started, or started by name, while the version was LIVE or AUTONOMOUS — not
 * forks, re-runs or simulated runs — and the approvals people resolved in them.
 */
export interface LiveRunTally {
  readonly runs: number;
  readonly approved: number;
  readonly denied: number;
  /** The newest `examples` of those runs, newest first. */
  readonly runIds: readonly string[];
  /** The newest `examples` of those runs where a person denied an approval, newest first. */
  readonly deniedRunIds: readonly string[];
}

export interface RunIndex {
  getRun(tenant: string, runId: string): Promise<RunRecord | undefined>;
  listRuns(tenant: string, filter?: RunFilter): Promise<RunPage>;
  listPendingApprovals(tenant: string, runId?: string): Promise<PendingApproval[]>;
  /** How the matching runs stand: a count per status (statuses with none are absent). */
  countRuns(tenant: string, c: RunCount): Promise<Partial<Record<RunStatus, number>>>;
  /** Counts a version's live runs in a window and the approvals people resolved in them (LiveRunTally). */
  tallyLiveRuns(tenant: string, w: LiveRunWindow): Promise<LiveRunTally>;
}
