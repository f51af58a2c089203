/**
 * `keel shadow report`: the comparisons of a SHADOW version counted and read out — how often it
 * agreed with the live versions it was compared with, where only one of the two would start, each
 * disagreement in plain words, the refusals only it would make — beside the queue's lag for it
 * (comparisons still to make, and those given up on) and the shadow runs older Keels skipped at their concurrency limit,
 * each counted against the live version it was skipped beside.
 */
import { type EvidenceGroup, groupFindings } from '../../core/lifecycle/index.ts';
import type { ShadowFailure, Store } from '../../ports/index.ts';
import type { Shadows } from './shadows.ts';

export interface ShadowReport {
  readonly workflowId: string;
  readonly version: number;
  /** The live versions the shadow runs were compared with. */
  readonly against: readonly number[];
  readonly comparisons: number;
  readonly agreed: number;
  /** agreed / comparisons (0 without comparisons). */
  readonly agreement: number;
  /** Comparisons where only one version starts on the event (each a disagreement). */
  readonly starts: {
    /** The live version started a run; this version's triggers do not match the event. */
    readonly wouldNotStart: number;
    /** This version would start; the live version's triggers do not match the event. */
    readonly wouldStartAlone: number;
  };
  /** Comparisons of this version still to make, in the shadow queue: its lag. */
  readonly queue: {
    readonly waiting: number;
    readonly running: number;
    /** How long the oldest item has waited (ms, wall clock); absent when none waits. */
    readonly oldestAgeMs?: number;
    /** Comparisons given up on after their last attempt failed: kept, not counted, until tried again. */
    readonly failed: number;
    readonly failures: readonly ShadowFailure[];
  };
  /**
   * Shadow runs skipped at a concurrency limit by Keels before the queue (history: nothing is
   * skipped now), against the live versions counted in `against` (all of them without `against`).
   */
  readonly skipped: number;
  /** Those skips per live version they were skipped beside (null: that live run is gone). */
  readonly skippedBeside: readonly { readonly liveVersion: number | null; readonly count: number }[];
  readonly newRefusals: readonly { runId: string; step: string; code: string }[];
  /** `newRefusals` grouped: each refusal at a step once, with how many shadow runs made it. */
  readonly refusalGroups: readonly EvidenceGroup[];
  readonly disagreements: readonly {
    readonly shadowRunId: string;
    /** Absent where the live version did not start on the event. */
    readonly liveRunId?: string;
    readonly liveVersion: number;
    /** Set where only one version starts on the event (no shadow run where the candidate does not). */
    readonly starts?: { readonly live: boolean; readonly candidate: boolean };
    readonly sentences: readonly string[];
  }[];
}

/** The comparisons of a shadow version (since a time; against one live version), counted and read out. */
export async function shadowReport(
  shadows: Shadows,
  store: Store,
  tenant: string,
  workflowId: string,
  version: number,
  o: { since?: string; against?: number; now: number },
): Promise<ShadowReport> {
  await shadows.settle(tenant, workflowId, version);
  const all = await store.evidence.listComparisons(
    tenant,
    workflowId,
    version,
    o.since ? { since: o.since } : {},
  );
  const kept = o.against === undefined ? all : all.filter((c) => c.liveVersion === o.against);
  const agreed = kept.filter((c) => c.agree).length;
  const skips = (await store.evidence.shadowSkips(tenant, workflowId, version, o.since)).filter(
    (s) => o.against === undefined || s.liveVersion === o.against,
  );
  const q = await store.shadowQueue.shadowQueueStatus(o.now, { tenant, workflowId, version });
  const newRefusals = kept.flatMap((c) =>
    c.comparison.newRefusals.map((r) => ({ runId: c.shadowRunId, ...r })),
  );
  return {
    workflowId,
    version,
    against: [...new Set(kept.map((c) => c.liveVersion))].sort((a, b) => a - b),
    comparisons: kept.length,
    agreed,
    agreement: kept.length === 0 ? 0 : agreed / kept.length,
    starts: {
      wouldNotStart: kept.filter((c) => c.comparison.starts?.candidate === false).length,
      wouldStartAlone: kept.filter((c) => c.comparison.starts?.live === false).length,
    },
    queue: {
      waiting: q.waiting,
      running: q.running,
      ...(q.oldestMs !== undefined ? { oldestAgeMs: Math.max(0, o.now - q.oldestMs) } : {}),
      failed: q.failed,
      failures: q.failures,
    },
    skipped: skips.reduce((n, s) => n + s.count, 0),
    skippedBeside: skips,
    newRefusals,
    refusalGroups: groupFindings(
      newRefusals.map((r) => ({ what: `${r.code} at step ${r.step}`, runId: r.runId })),
    ),
    disagreements: kept
      .filter((c) => !c.agree)
      .map((c) => ({
        shadowRunId: c.shadowRunId,
        ...(c.liveRunId !== undefined ? { liveRunId: c.liveRunId } : {}),
        liveVersion: c.liveVersion,
        ...(c.comparison.starts ? { starts: c.comparison.starts } : {}),
        sentences: c.comparison.sentences,
      })),
  };
}
