/**
 * The OpenWOP host: runs, snapshots, event streams, cancel, fork and interrupts, expressed over a
 * Keel instance. It knows nothing of HTTP (the server renders what it returns) and keeps no state
 * of its own beyond caches: every answer is read from the run's ledger.
 *
 * Runs are walked in the background by this process (`kick`), unless the host is told that workers
 * walk them (`walkers: 'workers'`): then a created run is only committed, and a worker claims it.
 */
import { randomUUID } from 'node:crypto';
import { noteRun, notesOf, type OnWalk, type RequestNotes } from '../app/index.ts';
import type { Keel } from '../app/keel.ts';
import { hashOf } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { decodeEntry, type Entry, type PayloadOf, type RunStatus } from '../core/ledger/index.ts';
import { foldRun } from '../core/run/index.ts';
import type { RunRecord } from '../ports/index.ts';
import { BackgroundWalks } from './background-walks.ts';
import { OPENWOP_RUN_EVENT, type OpenWopDefinition, runInputs } from './definition.ts';
import { fixtureDefinitions, isSeededFixture, seedFixtures } from './fixtures.ts';
import { apiKeySubject, runOwner } from './owner.ts';
import { type ProjectedEvent, runFailure } from './project-events.ts';
import { ProtocolError } from './protocol-error.ts';
import { type CreateRunBody, type ForkBody, parsePause, parseResumeValue } from './request-bodies.ts';
import { type FeedReader, projectRun, RunFeeds } from './run-feeds.ts';
import { type Major, wireRunId } from './run-ids.ts';

/** Who is calling: resolved from the credential, never from the request body. */
export interface Principal {
  readonly tenant: string;
  readonly subject: string;
  /** A person's key (`human`) or an automation's (`service`); only a person may promote. */
  readonly kind?: 'human' | 'service';
}

export type WireStatus = 'running' | 'waiting-approval' | 'paused' | 'completed' | 'failed' | 'cancelled';

const STATUS: Record<RunStatus, WireStatus> = {
  running: 'running',
  paused: 'paused',
  waiting_approval: 'waiting-approval',
  // A run waiting on a timer is still in progress: nobody paused it and nobody is asked.
  waiting: 'running',
  outcome_unknown: 'paused',
  completed: 'completed',
  refused: 'failed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export const TERMINAL_WIRE: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Run statuses whose snapshot reads the whole ledger (the node waited at, the failure). */
const LEDGER_STATUSES: ReadonlySet<RunStatus> = new Set([
  'waiting_approval',
  'outcome_unknown',
  'failed',
  'refused',
]);

/**
 * The time of the event behind a run created with an Idempotency-Key: fixed, so that the event and
 * the run id derive from the key and the request alone (the run's own entries say when it started).
 */
export const KEYED_EVENT_TIME = '1970-01-01T00:00:00.000Z';

export interface HostOptions {
  /** `inline` (default): this process walks the runs it creates; `workers`: `keel worker` processes do. */
  readonly walkers?: 'inline' | 'workers';
  readonly onError?: (e: unknown) => void;
  /** How often a watched run's ledger is read when no notification came (ms; FALLBACK_POLL_MS). */
  readonly feedPollMs?: number;
}

export class OpenWopHost {
  readonly keel: Keel;
  private readonly walkers: 'inline' | 'workers';
  private readonly seeded = new Map<string, Promise<void>>();
  private readonly walks: BackgroundWalks;
  /** The live event feeds of the runs someone streams or polls: one watcher per run. */
  private readonly feeds: RunFeeds;

  constructor(keel: Keel, o: HostOptions = {}) {
    this.keel = keel;
    this.walkers = o.walkers ?? 'inline';
    this.walks = new BackgroundWalks(o.onError ?? ((e) => console.error(e)));
    this.feeds = new RunFeeds(
      keel.store.ledger,
      o.feedPollMs !== undefined ? { fallbackPollMs: o.feedPollMs } : {},
    );
  }

  /** Installs the conformance fixtures in a tenant, once per process (publishing is idempotent). */
  ensureFixtures(tenant: string): Promise<void> {
    let p = this.seeded.get(tenant);
    if (!p) {
      p = seedFixtures(this.keel, tenant);
      p.catch(() => this.seeded.delete(tenant));
      this.seeded.set(tenant, p);
    }
    return p;
  }

  /**
   * How a request starts runs: walked here once each root is durable (no claim), or by the workers
   * (`kick`). `told`: also told of each walk started here (a request that waits for its runs).
   */
  startWalk(
    notes?: RequestNotes,
    told?: OnWalk,
  ): { walk: 'background'; onWalk: OnWalk } | { walk: 'enqueue' } {
    const onWalk: OnWalk = (runId, walking) => {
      noteRun(notes, runId);
      this.walks.track(walking);
      told?.(runId, walking);
    };
    return this.walkers === 'workers' ? { walk: 'enqueue' } : { walk: 'background', onWalk };
  }

  /** Walks a run to its next stop in the background (inline mode), or leaves it to the workers. */
  kick(tenant: string, runId: string, notes?: RequestNotes): void {
    noteRun(notes, runId);
    // A run some other walker holds (this server's recovery worker, or a `keel worker`) goes on there.
    if (this.walkers === 'inline') this.walks.track(this.keel.runs.recover(tenant, runId));
  }

  /** Resolves when every background walk started so far has stopped, and stops watching runs (shutdown). */
  async drain(): Promise<void> {
    await this.walks.settled();
    await this.feeds.close();
  }

  definition(workflowId: string): OpenWopDefinition | undefined {
    return fixtureDefinitions().get(workflowId);
  }

  async createRun(
    p: Principal,
    body: CreateRunBody,
    idempotencyKey?: string,
    traceparent?: string,
  ): Promise<{ runId: string; status: WireStatus }> {
    await this.ensureFixtures(p.tenant);
    const version = await this.keel.workflows.get(p.tenant, body.workflowId);
    const inputs = runInputs(version?.spec.inputDefaults, body.inputs);
    // With a key, the whole event is a function of the key and the request: its id comes from the
    // key and its time is fixed (KEYED_EVENT_TIME), so the run id is too, and a retry whose
    // idempotency record was lost (or whose in-flight lease a crash left behind) names the same run.
    const event = {
      id: idempotencyKey
        ? `idem-${hashOf({ op: 'createRun', key: idempotencyKey }).slice(7, 39)}`
        : `req-${randomUUID()}`,
      type: OPENWOP_RUN_EVENT,
      source: `openwop:${p.subject}`,
      subject: body.workflowId,
      time: idempotencyKey ? KEYED_EVENT_TIME : new Date().toISOString(),
      payload: {
        inputs,
        owner: { tenant: p.tenant, subject: apiKeySubject(p.tenant, p.subject) },
        transport: 'rest',
        ...(body.tags ? { tags: body.tags } : {}),
        ...(body.metadata ? { metadata: body.metadata } : {}),
      },
    };
    // A version not yet shown to behave (DRAFT, TESTING, SHADOW) runs simulated, as `keel run`
    // runs it; Keel's own conformance fixtures, seeded as DRAFT, run as the protocol describes.
    const start = this.startWalk(notesOf(p));
    const run = await this.keel.runs.start(p.tenant, body.workflowId, event, {
      ...start,
      ...(traceparent !== undefined ? { traceparent } : {}),
      ...(version && isSeededFixture(version) ? { live: true } : {}),
    });
    if (run.created && start.walk === 'enqueue') this.kick(p.tenant, run.runId, notesOf(p));
    return { runId: run.runId, status: STATUS[run.status] };
  }

  async entries(p: Principal, runId: string): Promise<Entry[]> {
    return this.keel.runs.entries(p.tenant, runId);
  }

  /** The run's events so far (a fork's inherited ones are its source's), named as `major` names the run. */
  async events(p: Principal, runId: string, major: Major): Promise<ProjectedEvent[]> {
    await this.keel.runs.get(p.tenant, runId);
    const projected = await projectRun(
      this.keel.store.ledger,
      p.tenant,
      runId,
      wireRunId(runId, p.tenant, major),
    );
    return [...projected.events];
  }

  /**
   * Joins the live feed of a run the caller may read (check with `head` first): its events so far
   * and `onEvents` whenever more arrive. Events carry the Keel run id; render them with `withRunId`.
   * `headSeq`, the head that check saw: a new feed starts from no older a ledger.
   */
  feed(p: Principal, runId: string, onEvents: () => void, headSeq: number): Promise<FeedReader> {
    return this.feeds.open(p.tenant, runId, onEvents, headSeq);
  }

  /** The run snapshot: a fold of the ledger. v1 gets a superset with inputs and times. */
  async snapshot(p: Principal, runId: string, major: Major): Promise<Record<string, unknown>> {
    return this.snapshotOf(p, await this.keel.runs.get(p.tenant, runId), major);
  }

  /**
   * The snapshot of a run already found in the caller's tenant (its row). The whole ledger is read
   * only when the snapshot needs more than the run's root: the node it waits at, or why it failed.
   */
  async snapshotOf(p: Principal, run: RunRecord, major: Major): Promise<Record<string, unknown>> {
    const whole = LEDGER_STATUSES.has(run.status);
    const entries = (
      await this.keel.store.ledger.readEntries(p.tenant, run.runId, 0, whole ? undefined : 1)
    ).map(decodeEntry);
    const root = entries[0]!.payload as PayloadOf<'run.started'>;
    const status = STATUS[run.status];
    const snap: Record<string, unknown> = {
      runId: wireRunId(run.runId, p.tenant, major),
      workflowId: run.workflowId,
      status,
      owner: runOwner(root),
      eventLogSchemaVersion: 3,
      engineVersion: 1,
    };
    if (whole) {
      const s = foldRun(entries);
      if (s.approval && !s.approval.decision) snap.currentNodeId = s.approval.request.step;
      else if (s.suspended) snap.currentNodeId = s.suspended.step;
      if (status === 'failed') snap.error = runFailure(entries, s.finished?.reason);
    }
    const tags = root.event.payload.tags;
    const metadata = root.event.payload.metadata;
    if (tags) snap.tags = tags;
    if (metadata) snap.metadata = metadata;
    if (major === 1) {
      snap.inputs = root.event.payload.inputs ?? {};
      // A run's variables are its inputs (defaults overlaid by the request's); nodes never write them.
      snap.variables = root.event.payload.inputs ?? {};
      snap.startedAt = run.createdAt;
      if (TERMINAL_WIRE.has(status)) snap.endedAt = run.updatedAt;
      snap.keel = { runId: run.runId, version: run.version, ...(root.forkOf ? { forkOf: root.forkOf } : {}) };
    }
    return snap;
  }

  /** The ETag of a run's snapshot and stream: its ledger head. */
  async head(p: Principal, runId: string): Promise<{ seq: number; hash: string; status: RunStatus }> {
    const run = await this.keel.runs.get(p.tenant, runId);
    return { ...run.head, status: run.status };
  }

  /**
   * Cancels a run. A finished run is `409 run_terminal` on v2 (runs.md §Cancel); on v1 a cancel is
   * idempotent (rest-endpoints.md; the v1 interruptRace scenario): a finished run answers with the
   * status it finished in, and `alreadyTerminal` says nothing was done.
   */
  async cancel(
    p: Principal,
    runId: string,
    reason?: string,
    major: Major = 2,
  ): Promise<{ status: WireStatus; alreadyTerminal?: true }> {
    const run = await this.keel.runs.get(p.tenant, runId);
    if (TERMINAL_WIRE.has(STATUS[run.status])) {
      if (major === 1) return { status: STATUS[run.status], alreadyTerminal: true };
      throw new ProtocolError('run_terminal', `run is already ${STATUS[run.status]}`, {
        runStatus: STATUS[run.status],
      });
    }
    try {
      const r = await this.keel.runs.cancel(p.tenant, runId, {
        by: p.subject,
        ...(reason ? { reason } : {}),
      });
      return { status: STATUS[r.status] };
    } catch (e) {
      // Finished between the read and the cancel: on v1 still the idempotent answer.
      if (major !== 1 || !(e instanceof KeelError && e.code === ErrorCode.runTerminal)) throw e;
      const now = await this.keel.runs.get(p.tenant, runId);
      return { status: STATUS[now.status], alreadyTerminal: true };
    }
  }

  /**
   * Holds the run at its next step boundary (`drain-current-node`, the default), or at once
   * (`immediate`: an idempotent node's call in progress is cut and made again on resume).
   */
  async pause(p: Principal, runId: string, body: unknown): Promise<{ status: WireStatus; pausedAt: string }> {
    const b = parsePause(body);
    const r = await this.runState(() =>
      this.keel.runs.pause(p.tenant, runId, {
        by: p.subject,
        ...b,
      }),
    );
    return { status: STATUS[r.status], pausedAt: (await this.keel.runs.get(p.tenant, runId)).updatedAt };
  }

  async resume(p: Principal, runId: string): Promise<{ status: WireStatus; resumedAt: string }> {
    const r = await this.runState(() =>
      this.keel.runs.resume(p.tenant, runId, { by: p.subject, walk: 'enqueue' }),
    );
    this.kick(p.tenant, runId, notesOf(p));
    return { status: STATUS[r.status], resumedAt: (await this.keel.runs.get(p.tenant, runId)).updatedAt };
  }

  /**
   * Keel's run_state (not pausable / not paused) is OpenWOP's run_state_conflict, and its
   * run_terminal OpenWOP's too; both name the run's status (`details.runStatus`).
   */
  private async runState<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof KeelError && (e.code === ErrorCode.runState || e.code === ErrorCode.runTerminal)) {
        const status = e.details.status as RunStatus | undefined;
        throw new ProtocolError(
          e.code === ErrorCode.runState ? 'run_state_conflict' : 'run_terminal',
          e.message,
          {
            runStatus: status ? STATUS[status] : 'unknown',
          },
        );
      }
      throw e;
    }
  }

  async fork(p: Principal, runId: string, body: ForkBody, major: Major) {
    const events = await this.events(p, runId, major);
    const at = events[body.fromSeq];
    if (!at)
      throw new ProtocolError(
        'fork_point_invalid',
        `fromSeq ${body.fromSeq} is not a sequence of the source run (0..${events.length - 1})`,
        {
          sourceRunId: wireRunId(runId, p.tenant, major),
          fromSeq: body.fromSeq,
        },
      );
    const { run, created } = await this.keel.engine.fork(p.tenant, runId, {
      fromSeq: at.ledgerSeq,
      mode: body.mode,
      walk: false,
    });
    if (created) this.kick(p.tenant, run.runId, notesOf(p));
    return { runId: run.runId, status: STATUS[run.status], created };
  }

  /**
   * Resolves the approval a run waits for at `nodeId`: accept approves the proposal, reject denies
   * it; exactly once (a second resolve is `interrupt_already_resolved`).
   */
  async resolveInterrupt(
    p: Principal,
    runId: string,
    nodeId: string,
    resumeValue: unknown,
  ): Promise<{ status: WireStatus }> {
    const value = parseResumeValue(resumeValue);
    const entries = await this.entries(p, runId);
    const s = foldRun(entries);
    const asked = entries.some(
      (e) =>
        e.kind === 'approval.requested' && (e.payload as PayloadOf<'approval.requested'>).step === nodeId,
    );
    if (!asked)
      throw new ProtocolError('interrupt_not_found', `run has no interrupt at node ${nodeId}`, { nodeId });
    if (!s.approval || s.approval.decision || s.approval.request.step !== nodeId)
      throw new ProtocolError(
        'interrupt_already_resolved',
        `the interrupt at node ${nodeId} is already resolved`,
        { nodeId },
      );
    const resolve = value.action === 'accept' ? this.keel.approvals.approve : this.keel.approvals.deny;
    try {
      await resolve(p.tenant, runId, p.subject, value.feedback, { walk: 'enqueue' });
    } catch (e) {
      if (e instanceof KeelError && e.code === ErrorCode.alreadyResolved)
        throw new ProtocolError('interrupt_already_resolved', e.message, { nodeId });
      throw e;
    }
    this.kick(p.tenant, runId, notesOf(p));
    const run = await this.keel.runs.get(p.tenant, runId);
    return { status: STATUS[run.status] };
  }

  static wireStatus(s: RunStatus): WireStatus {
    return STATUS[s];
  }

  /** The Keel statuses a wire status stands for (none for an unknown word). */
  static keelStatuses(wire: string): RunStatus[] {
    return (Object.keys(STATUS) as RunStatus[]).filter((k) => STATUS[k] === wire);
  }
}
