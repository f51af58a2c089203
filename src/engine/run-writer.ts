/**
 * Appends a run's entries in batches. Entries are chained and folded into the run state as they
 * are added; `commit` makes the batch durable in one store append that names the last committed
 * head, so a concurrent writer turns into a head_conflict instead of a fork in the ledger.
 */

import type { Digest } from '../core/canonical/index.ts';
import {
  chainEntry,
  type Entry,
  type EntryKind,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import { applyEntry, type RunState } from '../core/run/index.ts';
import type { AppendRequest, LeaseChange, NewRun, PendingApproval, Store } from '../ports/index.ts';

/** Where a writer's batches go: a store, or (when replaying) a comparison against the record. */
export type AppendSink = Pick<Store, 'append'>;

export class RunWriter {
  private batch: StoredEntry[] = [];
  /** Whether every uncommitted entry is a step.allowed or step.completed (kept as entries are added). */
  private onlySteps = true;
  private openApproval: PendingApproval | undefined;
  private closeApproval: Digest | undefined;
  private lease: LeaseChange | undefined;
  /** The timestamp read ahead for the next entry (`nextAt`), used when that entry is added. */
  private pendingAt: { seq: number; at: string } | undefined;

  constructor(
    private readonly store: AppendSink,
    readonly state: RunState,
    /** The head that is durable in the store; null until the run's root is committed. */
    private committed: Head | null,
    /** The timestamp of the entry at a seq. */
    private readonly at: (seq: number) => string,
    private create?: NewRun,
  ) {}

  add<K extends EntryKind>(kind: K, payload: PayloadOf<K>): Entry<K> {
    const prev = this.committed === null && this.batch.length === 0 ? null : this.state.head;
    const seq = prev === null ? 0 : prev.seq + 1;
    const at = this.pendingAt?.seq === seq ? this.pendingAt.at : this.at(seq);
    this.pendingAt = undefined;
    const { stored, entry } = chainEntry(this.state.runId, prev, kind, payload, at);
    this.batch.push(stored);
    if (kind !== 'step.allowed' && kind !== 'step.completed') this.onlySteps = false;
    applyEntry(this.state, entry);
    return entry;
  }

  /**
   * The timestamp the next entry will carry, read now and kept for it: a governed decision is
   * judged at exactly the time its entry records, so a replay (served the recorded times) judges alike.
   */
  nextAt(): string {
    const seq = this.committed === null && this.batch.length === 0 ? 0 : this.state.head.seq + 1;
    if (this.pendingAt?.seq !== seq) this.pendingAt = { seq, at: this.at(seq) };
    return this.pendingAt.at;
  }

  /** Adds the root entry of a new run (the state was built from it already). */
  addRoot(stored: StoredEntry): void {
    this.batch.push(stored);
  }

  approvalOpened(a: PendingApproval): void {
    this.openApproval = a;
  }

  approvalClosed(proposalId: Digest): void {
    // Opened and closed in the same batch (a fork inheriting a request, then cancelled): never listed.
    if (this.openApproval?.proposalId === proposalId) this.openApproval = undefined;
    this.closeApproval = proposalId;
  }

  /** Changes who may walk the run (its lease) with the next commit, in the same transaction. */
  leaseWith(change: LeaseChange): void {
    this.lease = change;
  }

  /** Whether the run's root is durable in the store (a row exists whose lease can be renewed). */
  get durable(): boolean {
    return this.committed !== null;
  }

  /**
   * True when the uncommitted entries could be rebuilt exactly by walking again from the durable
   * head: the run's root is durable and the batch holds only step.allowed / step.completed
   * entries (no source draws, no approvals, no refusals). The engine may then run an idempotent
   * tool before committing: after a crash, recovery re-proposes the same steps with the same
   * idempotency keys, and the tools return the results they returned before.
   */
  get reproducible(): boolean {
    return this.committed !== null && this.onlySteps;
  }

  /**
   * The batch now holds something a new walk could not rebuild — the outcome of a call that may
   * not be repeated (a non-idempotent tool) — so it is committed before the next effect.
   */
  markUnreproducible(): void {
    this.onlySteps = false;
  }

  async commit(): Promise<void> {
    if (this.batch.length === 0) return;
    const req: AppendRequest = {
      tenant: this.state.tenant,
      runId: this.state.runId,
      expectedHead: this.committed,
      entries: this.batch,
      status: this.state.status,
      ...(this.create ? { create: this.create } : {}),
      ...(this.openApproval ? { openApproval: this.openApproval } : {}),
      ...(this.closeApproval ? { closeApproval: this.closeApproval } : {}),
      ...(this.lease ? { lease: this.lease } : {}),
    };
    this.committed = await this.store.append(req);
    this.batch = [];
    this.onlySteps = true;
    this.create = undefined;
    this.openApproval = undefined;
    this.closeApproval = undefined;
    this.lease = undefined;
  }
}
