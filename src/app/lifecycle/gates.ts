/**
 * The gate of a move (docs/lifecycle.md, "Gates"): the evidence a version's move to a status needs
 * — its tests, its shadow comparisons and the replay gate against the version events go to now, its
 * live runs — counted from the store and judged by core/lifecycle/gates.ts, with the diff from the
 * version events go to. Reads and judges; never changes a status (promotions.ts and rollouts.ts do).
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import {
  DEFAULT_GATES,
  diffSpecs,
  effectiveGates,
  type GateConfig,
  type GateEvidence,
  type GateReport,
  judgeGate,
  moveOf,
} from '../../core/lifecycle/index.ts';
import type { Policy } from '../../core/policy/index.ts';
import type { WorkflowStatus } from '../../core/spec/index.ts';
import { checkStoredRun, readRunLedger } from '../../engine/index.ts';
import type { VersionRecord } from '../../ports/index.ts';
import type { LifecycleDeps, PromotionGatesConfig } from './lifecycle-deps.ts';
import { replayGate } from './replay-gate.ts';
import { shadowReport } from './shadow-report.ts';
import type { Shadows } from './shadows.ts';
import { testEvidence } from './test-runs.ts';
import { liveVersion } from './versions.ts';

const DAY_MS = 86_400_000;

function mergeGates(cfg: PromotionGatesConfig | undefined, tenant: string): GateConfig {
  const p = typeof cfg === 'function' ? cfg(tenant) : cfg?.[tenant];
  return {
    shadow: { ...DEFAULT_GATES.shadow, ...p?.shadow },
    live: { ...DEFAULT_GATES.live, ...p?.live },
    autonomous: { ...DEFAULT_GATES.autonomous, ...p?.autonomous },
  };
}

/** The refusal of a move whose gate is not met, naming each unmet condition. */
export function unmet(report: GateReport, what: string): KeelError {
  const lines = report.conditions.filter((c) => !c.met).map((c) => c.text);
  return new KeelError(
    ErrorCode.promotionGateUnmet,
    `${what}: the gate to ${report.to} is not met: ${lines.join('; ')} (a person may promote anyway, giving the reason: --override --reason "...")`,
    { workflowId: report.workflowId, version: report.version, to: report.to, report },
  );
}

export class Gates {
  constructor(
    private readonly d: LifecycleDeps,
    private readonly shadows: Shadows,
  ) {}

  /** The tenant's thresholds (its configured ones over the defaults) as `rec`'s spec narrows them. */
  config(tenant: string, rec: VersionRecord) {
    return effectiveGates(mergeGates(this.d.gates, tenant), rec.spec.promotion);
  }

  /** The tenant's policy, as the replay gate takes it. */
  policy(tenant: string): { policy?: Policy } {
    const p = this.d.policyFor(tenant);
    return p ? { policy: p } : {};
  }

  /** Counts the evidence a move of `rec` to `to` needs and judges it (nothing is changed). */
  async report(tenant: string, rec: VersionRecord, to: WorkflowStatus): Promise<GateReport> {
    const { d } = this;
    const { gates, notes } = this.config(tenant, rec);
    const g = { workflowId: rec.workflowId, version: rec.version, from: rec.status, to };
    const move = moveOf(rec.status, to);
    const evidence: { -readonly [K in keyof GateEvidence]: GateEvidence[K] } = {};
    if (move.kind === 'promote' && (to === 'SHADOW' || to === 'LIVE'))
      evidence.tests = await testEvidence(d, tenant, rec);
    if (move.kind === 'promote' && to === 'LIVE') {
      const live = await liveVersion(d.store.registry, tenant, rec.workflowId, rec.version);
      evidence.liveVersion = live?.version ?? null;
      if (live) {
        const report = await shadowReport(this.shadows, d.store, tenant, rec.workflowId, rec.version, {
          against: live.version,
          now: d.shadowQueue.clock(),
        });
        evidence.comparisons = {
          count: report.comparisons,
          agreed: report.agreed,
          skipped: report.skipped,
          waiting: report.queue.waiting + report.queue.running,
          onlyOneStarts: report.starts.wouldNotStart + report.starts.wouldStartAlone,
          newRefusals: report.newRefusals,
          ids: report.disagreements.map((x) => x.shadowRunId),
        };
        const replay = await replayGate(d, tenant, rec, live, {
          runs: gates.live.replayRuns,
          ...this.policy(tenant),
        });
        evidence.replay = {
          runs: replay.runs,
          diverged: replay.diverged.map((x) => ({ runId: x.runId, sentence: x.sentence })),
        };
      }
    }
    if (move.kind === 'promote' && to === 'AUTONOMOUS')
      evidence.liveRuns = await this.liveRunEvidence(tenant, rec, gates.autonomous.windowDays);
    // Beside every report: what the version changes from the one events go to now.
    const current = await liveVersion(d.store.registry, tenant, rec.workflowId, rec.version);
    const diff = current ? { diff: diffSpecs(current.spec, rec.spec, (name) => d.tools.get(name)) } : {};
    if (move.kind === 'invalid')
      return {
        ...judgeGate(g, gates, evidence, notes),
        conditions: [{ id: 'move', met: false, text: move.message }],
        ...diff,
      };
    return { ...judgeGate(g, gates, evidence, notes), ...diff };
  }

  /**
   * Live runs of a version in a window — every one, counted in the store — and what people decided
   * on their approvals. The runs named as evidence (at most 50 of each list) are checked as any
   * action checks a run it relies on: one that does not verify refuses the gate (ledger_invalid).
   */
  private async liveRunEvidence(tenant: string, v: VersionRecord, days: number) {
    const { store } = this.d;
    const since = new Date(Date.parse(this.d.now()) - days * DAY_MS).toISOString();
    const tally = await store.runs.tallyLiveRuns(tenant, {
      workflowId: v.workflowId,
      version: v.version,
      since,
      examples: 50,
    });
    for (const runId of new Set([...tally.runIds, ...tally.deniedRunIds])) {
      // A live run may be walked while it is read: the row and ledger are read again if it moved.
      const read = await readRunLedger(store, tenant, runId);
      if (read) checkStoredRun(read.run, read.stored, v);
    }
    const { runs: count, ...rest } = tally;
    return { count, ...rest };
  }
}
