/**
 * Appends a run's entries in batches. Entries are chained and folded into the run state as they
 * are added; `commit` makes the batch durable in one store append that names the last committed
 * head, so a concurrent writer turns into a head_conflict instead of a fork in the ledger.
 *
 * Writ budgets ride on those appends: an allow that reserves from the run's writs is committed
 * with its reservation (`commitAllow`), and the `run.finished` of a run that reserved carries back
 * what it did not use. A replay fork never reserves or gives back: its source did.
 */

import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError } from '../core/errors.ts';
import {
  chainEntry,
  type Entry,
  type EntryKind,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../core/ledger/index.ts';
import { applyEntry, type RunState, runTime } from '../core/run/index.ts';
import { isZeroBudget, type WritBudget, WritCode } from '../core/writs/index.ts';
import type {
  AppendRequest,
  BudgetRefusalDetails,
  LeaseChange,
  Ledger,
  NewRun,
  PendingApproval,
  ShadowWork,
} from '../ports/index.ts';

/** Where a writer's batches go: a store, or (when replaying) a comparison against the record. */
export type AppendSink = Pick<Ledger, 'append'>;

/** Why the store would not let an allow reserve: its message, and which writ ran out (BudgetRefusalDetails). */
export interface BudgetRefusal {
  readonly message: string;
  readonly details: BudgetRefusalDetails;
}

export class RunWriter {
  private batch: StoredEntry[] = [];
  /** Whether every uncommitted entry is a step.allowed or step.completed (kept as entries are added). */
  private onlySteps = true;
  /** A `wait.ended` was added by this writer (this walk ended a wait). */
  private endedWait = false;
  private openApproval: PendingApproval | undefined;
  private closeApproval: Digest | undefined;
  private lease: LeaseChange | undefined;
  /** A wake time set with the next commit without changing the lease (a wait for an event's safety net). */
  private wake: number | undefined;
  /** The timestamp read ahead for the next entry (`nextAt`), used when that entry is added. */
  private pendingAt: { seq: number; at: string } | undefined;
  /** What the run reserved and did not use, given back to its writs with the next commit. */
  private release: WritBudget | undefined;
  /** Shadow work queued with the next commit (a live run's root queues its SHADOW versions). */
  private shadowWork: readonly ShadowWork[] | undefined;

  constructor(
    private readonly store: AppendSink,
    readonly state: RunState,
    /** The head that is durable in the store; null until the run's root is committed. */
    private committed: Head | null,
    /** The timestamp of the entry at a seq. */
    private readonly at: (seq: number) => string,
    private create?: NewRun,
  ) {}

  /**
   * Set while calls of parallel branches are in flight (engine/parallel-step.ts): a `run.finished`
   * added meanwhile (a refusal, a failure, a cancellation) is held, the first one only, and written
   * by `releaseEnd` once every call in flight has its outcome recorded: a run never finishes with
   * a call of its own still out.
   */
  private endHeld: { payload: PayloadOf<'run.finished'> } | false = false;
  private holding = false;

  /** Holds the run's end until `releaseEnd` (see `endHeld`). */
  holdEnd(): void {
    this.holding = true;
  }

  /** Whether a `run.finished` was added and is held: the walk decides no further step. */
  get ending(): boolean {
    return this.endHeld !== false;
  }

  /**
   * Writes the end held once no call of the run is in flight (`releaseEnd`); while one still is,
   * keeps holding it: the walk settles the calls first (walk.ts), never decides another step, and
   * the end is never dropped for a later one.
   */
  settleEnd(): void {
    if (this.state.flying.size === 0 || this.endHeld === false) this.releaseEnd();
  }

  /** Stops holding, and writes the end held, if any. */
  releaseEnd(): void {
    const held = this.endHeld;
    this.holding = false;
    this.endHeld = false;
    if (held) this.add('run.finished', { ...held.payload, outputs: this.state.outputs });
  }

  add<K extends EntryKind>(kind: K, payload: PayloadOf<K>): Entry<K> {
    if (this.holding && kind === 'run.finished') {
      if (this.endHeld === false) this.endHeld = { payload: payload as PayloadOf<'run.finished'> };
      // Nothing reads the entry a finishing add returns; the held end is written by releaseEnd.
      return undefined as unknown as Entry<K>;
    }
    const { stored, entry } = this.chain(kind, payload);
    this.batch.push(stored);
    if (kind === 'wait.ended') this.endedWait = true;
    if (kind !== 'step.allowed' && kind !== 'step.completed') this.onlySteps = false;
    if (kind === 'run.finished') this.releaseReservation();
    applyEntry(this.state, entry);
    return entry;
  }

  /** The next entry, chained to the head and stamped (with the time `nextAt` read for it, if any). */
  private chain<K extends EntryKind>(kind: K, payload: PayloadOf<K>) {
    const prev = this.committed === null && this.batch.length === 0 ? null : this.state.head;
    const seq = prev === null ? 0 : prev.seq + 1;
    const at = this.pendingAt?.seq === seq ? this.pendingAt.at : runTime(this.state, this.at(seq));
    this.pendingAt = undefined;
    return chainEntry(this.state.runId, prev, kind, payload, at);
  }

  /** A finishing run gives back what it reserved and did not use (never a replay fork: its source reserved). */
  private releaseReservation(): void {
    const s = this.state;
    const r = s.reservation;
    if (s.writ && r && !isZeroBudget(r) && s.forkOf?.mode !== 'replay') this.release = r;
  }

  /**
   * Adds a `step.allowed` that reserves `payload.reserves` from the run's writ budgets and commits
   * it, with everything added before it, in one append carrying the reservation: the store
   * charges every writ of the run's chain in that append's transaction, or refuses it whole. On a
   * budget refusal nothing was written and the allow is withdrawn — the batch and the state are as
   * they were, and the next entry gets the allow's timestamp — and the refusal is returned.
   */
  async commitAllow(payload: PayloadOf<'step.allowed'>): Promise<Entry<'step.allowed'> | BudgetRefusal> {
    const s = this.state;
    if (!s.writ || !payload.reserves) throw new Error('commitAllow: a reservation needs a run under a writ');
    const { stored, entry } = this.chain('step.allowed', payload);
    this.batch.push(stored);
    try {
      // The allow leaves the run running (an approval it answers is closed already).
      await this.append('running', { writ: s.writ.hash, reserve: payload.reserves });
    } catch (e) {
      this.batch.pop();
      this.pendingAt = { seq: entry.seq, at: entry.at };
      const d = isKeelError(e) ? (e.details as Partial<BudgetRefusalDetails>) : undefined;
      if (isKeelError(e) && e.code === ErrorCode.writRefused && d?.code === WritCode.budgetExhausted)
        return { message: e.message, details: d as BudgetRefusalDetails };
      throw e;
    }
    applyEntry(s, entry);
    return entry;
  }

  /**
   * The timestamp the next entry will carry, read now and kept for it: a governed decision is
   * judged at exactly the time its entry records, so a replay (served the recorded times) judges alike.
   */
  nextAt(): string {
    const seq = this.committed === null && this.batch.length === 0 ? 0 : this.state.head.seq + 1;
    if (this.pendingAt?.seq !== seq) this.pendingAt = { seq, at: runTime(this.state, this.at(seq)) };
    return this.pendingAt.at;
  }

  /**
   * A simulated run's clock jumps to `at` (a wait's fire time, never earlier than the time read
   * for the next entry): the next entry is stamped `at`, and the fold keeps the run's clock there.
   */
  advanceTo(at: string): string {
    const read = this.nextAt();
    if (Date.parse(at) > Date.parse(read)) this.pendingAt = { seq: this.pendingAt!.seq, at };
    return this.pendingAt!.at;
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

  /** Queues shadow work with the next commit, in the same transaction (the store keeps it only if that is written). */
  queueShadowWork(items: readonly ShadowWork[]): void {
    if (items.length > 0) this.shadowWork = items;
  }

  /** Changes who may walk the run (its lease) with the next commit, in the same transaction. */
  leaseWith(change: LeaseChange): void {
    this.lease = change;
  }

  /** Sets the run's wake time with the next commit, the lease unchanged (the walk goes on holding the run). */
  wakeWith(at: number): void {
    this.wake = at;
  }

  /** Whether a wait ended in this walk (this writer added a `wait.ended`). */
  get waitEnded(): boolean {
    return this.endedWait;
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
    const s = this.state;
    await this.append(
      s.status,
      this.release && s.writ ? { writ: s.writ.hash, release: this.release } : undefined,
    );
  }

  /** One store append of the batch, with what else rides on it; everything pending is cleared once it is durable. */
  private async append(status: AppendRequest['status'], budget: AppendRequest['budget']): Promise<void> {
    const req: AppendRequest = {
      tenant: this.state.tenant,
      runId: this.state.runId,
      expectedHead: this.committed,
      entries: this.batch,
      status,
      ...(this.create ? { create: this.create } : {}),
      ...(this.openApproval ? { openApproval: this.openApproval } : {}),
      ...(this.closeApproval ? { closeApproval: this.closeApproval } : {}),
      ...(this.lease ? { lease: this.lease } : {}),
      ...(this.wake !== undefined ? { wakeAt: this.wake } : {}),
      ...(budget ? { budget } : {}),
      ...(this.shadowWork ? { shadowWork: this.shadowWork } : {}),
    };
    this.committed = await this.store.append(req);
    this.batch = [];
    this.onlySteps = true;
    this.create = undefined;
    this.openApproval = undefined;
    this.closeApproval = undefined;
    this.lease = undefined;
    this.wake = undefined;
    this.release = undefined;
    this.shadowWork = undefined;
  }
}
