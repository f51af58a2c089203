/**
 * Traffic split and staged rollout, as pure functions. During a rollout a workflow has two LIVE
 * versions: the one it had (`from`) and the one rolling out (`to`), which gets `percent` of the
 * events. Which one an event starts is decided by its bucket — a hash of the tenant, the workflow
 * and the event, the same content a run's id is derived from except the version it chooses — so a
 * retried event always lands where it landed first (the caller also looks for a run under the
 * other version before starting one). A stage advances (10 → 50 → 100) only while the new
 * version's refusal and failure rates are not worse than the old one's by more than `threshold`;
 * an automatic rollout rolls back by itself when they are.
 */
import { hashOf } from '../canonical/index.ts';
import type { EventRecord } from '../ledger/index.ts';

export const BUCKETS = 10_000;

export interface RolloutState {
  readonly from: number;
  readonly to: number;
  /** The share of buckets, in percent (1-100), that go to `to`. */
  readonly percent: number;
  /** The stages, in percent, ascending; the last is 100. */
  readonly steps: readonly number[];
  /** Advance and roll back by itself. */
  readonly auto: boolean;
  /** How much worse (a share: 0.05 is 5 points) a rate of `to` may be than `from`'s. */
  readonly threshold: number;
  /** Finished runs of each version at a stage before it is judged. */
  readonly minRuns: number;
  readonly startedAt: string;
  readonly startedBy: string;
  /** Runs of this stage are those created from here. */
  readonly stageStartedAt: string;
  readonly status: 'active' | 'completed' | 'rolled_back';
}

/** An event's bucket, 0..9999. */
export function bucketOf(tenant: string, workflowId: string, event: EventRecord): number {
  const h = hashOf({ kind: 'keel.bucket', tenant, workflowId, event });
  return Number.parseInt(h.slice(7, 15), 16) % BUCKETS;
}

/** Which version a bucket goes to: `to` for the first `percent`% of buckets. */
export function versionFor(r: Pick<RolloutState, 'from' | 'to' | 'percent'>, bucket: number): number {
  return bucket < (r.percent * BUCKETS) / 100 ? r.to : r.from;
}

/** How a version's runs of a stage ended. */
export interface StageFigures {
  readonly runs: number;
  readonly refused: number;
  readonly failed: number;
}

export interface RolloutVerdict {
  readonly verdict: 'advance' | 'hold' | 'rollback';
  readonly reasons: readonly string[];
  readonly next?: number;
  readonly figures: { readonly from: StageFigures; readonly to: StageFigures };
}

const rate = (n: number, of: number) => (of === 0 ? 0 : n / of);
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** The stage after the current one (undefined at 100). */
export function nextStage(r: Pick<RolloutState, 'percent' | 'steps'>): number | undefined {
  return r.steps.find((s) => s > r.percent);
}

/** Whether the rollout may advance, must hold for more runs, or must roll back. */
export function judgeRollout(
  r: RolloutState,
  figures: { readonly from: StageFigures; readonly to: StageFigures },
): RolloutVerdict {
  const { from, to } = figures;
  const reasons: string[] = [];
  const worse: string[] = [];
  for (const what of ['refused', 'failed'] as const) {
    const a = rate(from[what], from.runs);
    const b = rate(to[what], to.runs);
    const line = `${what === 'refused' ? 'refusal' : 'failure'} rate: v${r.to} ${pct(b)} (${to[what]} of ${to.runs}), v${r.from} ${pct(a)} (${from[what]} of ${from.runs})`;
    reasons.push(line);
    if (to.runs > 0 && b - a > r.threshold) worse.push(`${line}: worse by more than ${pct(r.threshold)}`);
  }
  if (to.runs < r.minRuns || from.runs < r.minRuns)
    return {
      verdict: 'hold',
      reasons: [
        `${to.runs} of ${r.minRuns} runs of v${r.to} and ${from.runs} of ${r.minRuns} of v${r.from} finished at ${r.percent}%`,
        ...reasons,
      ],
      figures,
    };
  if (worse.length > 0) return { verdict: 'rollback', reasons: worse, figures };
  const next = nextStage(r);
  return { verdict: 'advance', reasons, ...(next !== undefined ? { next } : {}), figures };
}
