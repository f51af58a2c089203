/**
 * SHADOW: every event of a workflow with SHADOW versions is compared across them. A comparison
 * starts with "would each version start on this event?" (core/lifecycle/compare-starts.ts):
 *
 * - the live version started a run, and the candidate would too: the candidate runs on the same
 *   event, simulated, as a run linked to the live one (`shadowOf`), and the two are compared;
 * - the live version started, the candidate's trigger does not match: a disagreement, with no run;
 * - the live version did not start, the candidate's trigger matches: the candidate runs alone,
 *   simulated (a shadow with no `shadowOf`), and the comparison is a disagreement naming what it did.
 *
 * Each comparison to make is an item of the tenant's durable shadow queue (ShadowWork), queued in
 * the transaction that writes the live run's root (or on its own, where no live run starts) and
 * worked by a drainer (shadow-drainer.ts): this module is what working one item means. The live run
 * is never touched, delayed or failed by it. A comparison is kept once per shadow run id, by
 * whoever gets there first (the drainer, the report, the gate): it is a pure function of finished
 * ledgers and immutable versions.
 */
import { ErrorCode, isKeelError, KeelError } from '../../core/errors.ts';
import { type EventRecord, TERMINAL_STATUSES } from '../../core/ledger/index.ts';
import {
  type Comparison,
  compareRuns,
  runDecisions,
  startsOn,
  wouldNotStart,
  wouldStartAlone,
} from '../../core/lifecycle/index.ts';
import { loneShadowRunIdFor, shadowRunIdFor } from '../../core/run/index.ts';
import type { Engine } from '../../engine/index.ts';
import type { ShadowWork, Store, StoredComparison, VersionRecord } from '../../ports/index.ts';

const finished = (status: string) => (TERMINAL_STATUSES as readonly string[]).includes(status);

/**
 * What working one item came to: `done` (it leaves the queue); `waiting` for its live run to end
 * (nothing went wrong: it is tried again when the run ends); or `retry`, saying why it could not
 * be worked now (its shadow run is walked elsewhere, or waits), which counts as a failed attempt.
 */
export type WorkOutcome = 'done' | 'waiting' | { readonly retry: string };

export interface ShadowsOptions {
  readonly engine: Engine;
  readonly store: Store;
  /** ISO time now (the sources' clock): when a comparison is kept. */
  readonly now: () => string;
  /** Wall-clock ms: when an item is queued (operational, like leases). */
  readonly wallClock: () => number;
}

export class Shadows {
  constructor(private readonly o: ShadowsOptions) {}

  /** The work a live run's root queues: one item per SHADOW version, beside the live run `runId`. */
  workBeside(
    live: { runId: string; version: VersionRecord },
    event: EventRecord,
    candidates: readonly VersionRecord[],
  ): ShadowWork[] {
    const at = this.o.wallClock();
    return candidates.map((v) => ({
      tenant: v.tenant,
      id: shadowRunIdFor(v.tenant, live.runId, v.specHash),
      workflowId: v.workflowId,
      version: v.version,
      liveVersion: live.version.version,
      liveRunId: live.runId,
      judgedAs: live.version.status === 'AUTONOMOUS' ? 'AUTONOMOUS' : 'LIVE',
      event,
      enqueuedMs: at,
    }));
  }

  /**
   * The work for an event the live version (`routed`) does not start: one item per SHADOW version
   * whose trigger matches it, each to run alone. None when no candidate would start either.
   */
  workAlone(routed: VersionRecord, event: EventRecord, candidates: readonly VersionRecord[]): ShadowWork[] {
    const at = this.o.wallClock();
    return candidates
      .filter((v) => startsOn(v.spec, event))
      .map((v) => ({
        tenant: v.tenant,
        id: loneShadowRunIdFor(v.tenant, v.workflowId, v.specHash, event),
        workflowId: v.workflowId,
        version: v.version,
        liveVersion: routed.version,
        judgedAs: routed.status === 'AUTONOMOUS' ? 'AUTONOMOUS' : 'LIVE',
        event,
        enqueuedMs: at,
      }));
  }

  /**
   * Works one item: decides whether the candidate starts, runs its shadow (or finds the one a
   * crashed process left, and continues it from its ledger head), and keeps the comparison. A
   * shadow beside a live run is walked once that run has ended (`waiting` until then), so it is
   * answered from the run's whole record (simulated-effects.ts) whenever it is worked. `retry`
   * when the shadow run is being walked elsewhere, or waits (paused, suspended).
   */
  async work(item: ShadowWork): Promise<WorkOutcome> {
    const { engine, store } = this.o;
    const candidate = await store.registry.getVersion(item.tenant, item.workflowId, item.version);
    // A version is never deleted; an item naming none is not evidence of anything.
    if (!candidate) return 'done';
    if (!startsOn(candidate.spec, item.event)) {
      if (item.liveRunId !== undefined)
        await this.keep(item, item.liveRunId, wouldNotStart(this.labels(item)));
      return 'done';
    }
    if (item.liveRunId !== undefined) {
      const live = await store.runs.getRun(item.tenant, item.liveRunId);
      if (!live)
        throw new KeelError(ErrorCode.notFound, `live run ${item.liveRunId} is no longer in the store`, {
          runId: item.liveRunId,
        });
      if (!finished(live.status)) return 'waiting';
    }
    const { run } = await engine.startSimulated(candidate, item.event, {
      mode: 'shadow',
      ...(item.liveRunId !== undefined ? { shadowOf: item.liveRunId } : {}),
      judgedAs: item.judgedAs,
      walk: 'inline',
    });
    let status: string = run.status;
    if (status === 'running') {
      // Found running: a process died walking it. Recovery continues it from its ledger head.
      try {
        status = (await engine.recover(item.tenant, run.runId)).status;
      } catch (e) {
        if (isKeelError(e) && e.code === ErrorCode.runState) return { retry: e.message };
        throw e;
      }
    }
    if (!finished(status)) return { retry: `its shadow run ${run.runId} is ${status}` };
    if (item.liveRunId === undefined) {
      const { entries } = await engine.load(item.tenant, run.runId);
      await this.keep(item, undefined, wouldStartAlone(runDecisions(entries), this.labels(item)));
    } else await this.compare(item.tenant, run.runId);
    return 'done';
  }

  private labels(item: ShadowWork) {
    return { event: item.event, liveLabel: `v${item.liveVersion}`, candidateLabel: `v${item.version}` };
  }

  private async keep(item: ShadowWork, liveRunId: string | undefined, comparison: Comparison) {
    await this.o.store.evidence.putComparison({
      tenant: item.tenant,
      workflowId: item.workflowId,
      shadowRunId: item.id,
      ...(liveRunId !== undefined ? { liveRunId } : {}),
      shadowVersion: item.version,
      liveVersion: item.liveVersion,
      agree: comparison.agree,
      comparison,
      createdAt: this.o.now(),
    });
  }

  /**
   * The comparison of a shadow run with its live run, kept once both have ended; undefined while
   * either still runs or waits, and for a shadow with no live run (its item keeps that comparison).
   * An existing comparison is returned as kept.
   */
  async compare(tenant: string, shadowRunId: string): Promise<StoredComparison | undefined> {
    const shadow = await this.o.engine.load(tenant, shadowRunId);
    const root = shadow.entries[0]!.payload as { shadowOf?: string };
    if (!root.shadowOf || !finished(shadow.state.status)) return undefined;
    const live = await this.o.engine.load(tenant, root.shadowOf);
    if (!finished(live.state.status)) return undefined;
    const comparison = compareRuns(runDecisions(live.entries), runDecisions(shadow.entries), {
      event: live.state.event,
      liveLabel: `v${live.run.version}`,
      candidateLabel: `v${shadow.run.version}`,
    });
    const c: StoredComparison = {
      tenant,
      workflowId: shadow.run.workflowId,
      shadowRunId,
      liveRunId: live.run.runId,
      shadowVersion: shadow.run.version,
      liveVersion: live.run.version,
      agree: comparison.agree,
      comparison,
      createdAt: this.o.now(),
    };
    await this.o.store.evidence.putComparison(c);
    return c;
  }

  /** Keeps the comparison of every finished shadow run of a version that has none yet. */
  async settle(tenant: string, workflowId: string, version: number): Promise<void> {
    const have = new Set(
      (await this.o.store.evidence.listComparisons(tenant, workflowId, version)).map((c) => c.shadowRunId),
    );
    for (let cursor: string | undefined; ; ) {
      const page = await this.o.store.runs.listRuns(tenant, {
        workflowId,
        version,
        mode: 'shadow',
        limit: 500,
        ...(cursor ? { cursor } : {}),
      });
      for (const r of page.runs)
        if (!have.has(r.runId) && r.shadowOf !== undefined && finished(r.status))
          await this.compare(tenant, r.runId);
      if (!page.next) break;
      cursor = page.next;
    }
  }
}
