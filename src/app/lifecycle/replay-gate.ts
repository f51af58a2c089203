/**
 * The replay gate before LIVE: the last runs of the version LIVE now, re-planned against a
 * candidate from their records — their events, source values, tool outcomes and people's
 * decisions — calling nothing, and each run where the candidate would propose another tool or
 * other arguments, be refused, or ask a person where the run did not, named. First of all, the
 * candidate's triggers are evaluated on each run's event: where none matches, the candidate would
 * not have started at all, and that run is named so ("would not start"), without re-planning it.
 */
import { type Entry, type PayloadOf, TERMINAL_STATUSES } from '../../core/ledger/index.ts';
import { type Comparison, runDecisions, startsOn, wouldNotStart } from '../../core/lifecycle/index.ts';
import type { Policy } from '../../core/policy/index.ts';
import { checkStoredRun, type Engine, replanRun, type ToolRegistry } from '../../engine/index.ts';
import type { Planner, RunRecord, Store, VersionRecord } from '../../ports/index.ts';

export interface ReplayGateReport {
  readonly workflowId: string;
  readonly candidate: number;
  readonly against: number;
  /** Runs re-planned (or found not to start the candidate). */
  readonly runs: number;
  readonly same: number;
  /** Of `diverged`, the runs whose event the candidate would not start on (its triggers do not match). */
  readonly wouldNotStart: number;
  readonly diverged: readonly {
    readonly runId: string;
    readonly sentence: string;
    readonly comparison: Comparison;
  }[];
  /** Milliseconds the re-planning took (figures only). */
  readonly ms: number;
}

const finished = (s: string) => (TERMINAL_STATUSES as readonly string[]).includes(s);

/** A live run as the lifecycle reads it: its row and its verified entries. */
export interface LoadedRun {
  readonly run: RunRecord;
  readonly entries: Entry[];
}

/**
 * The last `max` finished live runs of `version`, newest first (not forks, re-runs or tests),
 * each checked as any action checks a run it relies on (its chain, root and row, the pinned spec):
 * a run that does not verify is refused (ledger_invalid), never counted as evidence.
 */
async function lastLiveRuns(
  _engine: Engine,
  store: Store,
  tenant: string,
  version: VersionRecord,
  max: number,
): Promise<LoadedRun[]> {
  const out: LoadedRun[] = [];
  for (let cursor: string | undefined; out.length < max; ) {
    const page = await store.runs.listRuns(tenant, {
      workflowId: version.workflowId,
      version: version.version,
      mode: 'live',
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    for (const r of page.runs) {
      if (out.length >= max) break;
      if (!finished(r.status)) continue;
      const { entries } = checkStoredRun(r, await store.ledger.readEntries(tenant, r.runId), version);
      const root = entries[0]!.payload as { forkOf?: unknown; attemptOf?: unknown; status: string };
      // Evidence of live behaviour: runs the routing started (or started by name) while LIVE.
      if (root.forkOf || root.attemptOf || (root.status !== 'LIVE' && root.status !== 'AUTONOMOUS')) continue;
      out.push({ run: r, entries });
    }
    if (!page.next) break;
    cursor = page.next;
  }
  return out;
}

export async function replayGate(
  d: {
    readonly engine: Engine;
    readonly store: Store;
    readonly tools: ToolRegistry;
    readonly planner?: Planner;
  },
  tenant: string,
  candidate: VersionRecord,
  against: VersionRecord,
  o: { readonly runs: number; readonly policy?: Policy },
): Promise<ReplayGateReport> {
  const runs = await lastLiveRuns(d.engine, d.store, tenant, against, o.runs);
  const t0 = performance.now();
  const diverged: { runId: string; sentence: string; comparison: Comparison }[] = [];
  let notStarted = 0;
  for (const r of runs) {
    const event = (r.entries[0]!.payload as PayloadOf<'run.started'>).event;
    if (!startsOn(candidate.spec, event)) {
      const comparison = wouldNotStart({
        event,
        liveLabel: `v${against.version}`,
        candidateLabel: `v${candidate.version}`,
        live: runDecisions(r.entries),
      });
      diverged.push({ runId: r.run.runId, sentence: comparison.sentences[0]!, comparison });
      notStarted++;
      continue;
    }
    const replanned = await replanRun(r.entries, candidate, d.tools, {
      ...(o.policy ? { policy: o.policy } : {}),
      ...(d.planner ? { planner: d.planner } : {}),
      labels: { live: `v${against.version}`, candidate: `v${candidate.version}` },
    });
    if (!replanned.comparison.agree)
      diverged.push({
        runId: r.run.runId,
        sentence: replanned.comparison.sentences[0] ?? `v${candidate.version} would decide otherwise`,
        comparison: replanned.comparison,
      });
  }
  return {
    workflowId: candidate.workflowId,
    candidate: candidate.version,
    against: against.version,
    runs: runs.length,
    same: runs.length - diverged.length,
    wouldNotStart: notStarted,
    diverged,
    ms: performance.now() - t0,
  };
}
