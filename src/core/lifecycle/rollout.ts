/**
 * Traffic split and staged rollout, as pure functions. During a rollout a workflow has two LIVE
 * versions: the one it had (`from`) and the one rolling out (`to`), which gets `percent` of the
 * events. Which one an event starts is decided by its bucket — a hash of the tenant, the workflow
 * and the rollout's stickiness key's value (the event's `subject` unless the rollout names another,
 * e.g. `payload.customer_id`), so every event of one conversation lands on one version; an event
 * without a value for the key is bucketed by its name `(source, id)`. As the share grows a key only
 * ever moves from `from` to `to`. When only one of the two versions' triggers takes the event,
 * `splitChoice` decides (and the caller counts the disagreement). A stage advances
 * (10 → 50 → 100) only while the new version's refusal and failure rates are not worse than the
 * old one's by more than `threshold`; an automatic rollout rolls back by itself when they are.
 */
import { hashOf } from '../canonical/index.ts';
import type { EventRecord } from '../ledger/index.ts';
import { MISSING, readPath } from '../spec/index.ts';

export const BUCKETS = 10_000;

/** The stickiness key of a rollout that names none: one subject (ticket, customer...) stays on one version. */
export const DEFAULT_STICKY_BY = 'subject';

/** A stickiness key naming no conversation: each event is bucketed alone, by its `(source, id)`. */
export const STICKY_BY_EVENT = 'event';

const FIELD = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const MAX_DEPTH = 8;

/**
 * Why `key` is not a stickiness key, or undefined when it is one: `subject`, `event`, or
 * `payload.<field>` with up to 8 fields of letters, digits, `_` and `-` (`payload.customer.id`).
 */
export function stickyByProblem(key: unknown): string | undefined {
  const expected = 'expected subject, event or payload.<field>[.<field>...] (e.g. payload.customer_id)';
  if (typeof key !== 'string') return `${expected}, got ${typeof key}`;
  if (key === DEFAULT_STICKY_BY || key === STICKY_BY_EVENT) return undefined;
  const [head, ...fields] = key.split('.');
  if (head !== 'payload' || fields.length === 0)
    return `${expected}, got ${JSON.stringify(key.slice(0, 80))}`;
  if (fields.length > MAX_DEPTH) return `at most ${MAX_DEPTH} fields after payload, got ${fields.length}`;
  const bad = fields.find((f) => !FIELD.test(f));
  if (bad !== undefined)
    return `${JSON.stringify(bad.slice(0, 80))} is not a field name (letters, digits, _ and -, not starting with a digit or -)`;
  return undefined;
}

/**
 * The value `stickyBy` reads from an event, or undefined when it has none: an empty or absent
 * subject, an absent payload field, `null` or an empty string. `event` reads nothing.
 */
export function stickyValue(event: EventRecord, stickyBy: string): unknown {
  if (stickyBy === STICKY_BY_EVENT) return undefined;
  const v =
    stickyBy === DEFAULT_STICKY_BY ? event.subject : readPath(event.payload, stickyBy.split('.').slice(1));
  return v === MISSING || v === null || v === '' ? undefined : v;
}

/** The key that decides an event's bucket: `stickyBy` when the event has a value for it, else `event`. */
export function bucketKeyOf(event: EventRecord, stickyBy: string = DEFAULT_STICKY_BY): string {
  return stickyValue(event, stickyBy) === undefined ? STICKY_BY_EVENT : stickyBy;
}

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
  /** What keeps events together on one version (`stickyByProblem`); absent: DEFAULT_STICKY_BY. */
  readonly stickyBy?: string;
}

/**
 * An event's bucket, 0..9999: a hash of the tenant, the workflow and the value of `stickyBy` (the
 * event's subject by default), or of the event's `(source, id)` when it has no value for the key.
 */
export function bucketOf(
  tenant: string,
  workflowId: string,
  event: EventRecord,
  stickyBy: string = DEFAULT_STICKY_BY,
): number {
  const value = stickyValue(event, stickyBy);
  const h =
    value === undefined
      ? hashOf({
          kind: 'keel.bucket',
          tenant,
          workflowId,
          by: STICKY_BY_EVENT,
          source: event.source,
          id: event.id,
        })
      : hashOf({ kind: 'keel.bucket', tenant, workflowId, by: stickyBy, value });
  return Number.parseInt(h.slice(7, 15), 16) % BUCKETS;
}

/** Which version a bucket goes to: `to` for the first `percent`% of buckets. */
export function versionFor(r: Pick<RolloutState, 'from' | 'to' | 'percent'>, bucket: number): number {
  return bucket < (r.percent * BUCKETS) / 100 ? r.to : r.from;
}

/**
 * What a rollout does with an event its bucket sends to `chosen` when the two versions' triggers
 * disagree on it. Both take it, or neither: the bucket decides (no disagreement). Only the old
 * version (`from`) takes it: `from` does, as it did before the rollout — an event is never dropped
 * because the candidate's trigger is narrower. Only the candidate (`to`) takes it: `to` does when
 * the bucket chose it, else nothing does (as before the rollout), so a candidate with a wider
 * trigger still gets only its share. Each disagreement is counted (`keel rollout` shows them).
 */
export interface SplitChoice {
  /** The version that starts a run; absent when none does. */
  readonly take?: number;
  /** The version the bucket chose. */
  readonly chosen: number;
  /** Set when the two versions' triggers disagree on the event. */
  readonly disagreement?: { readonly chosen: number; readonly taken: number | null };
}

export function splitChoice(
  r: Pick<RolloutState, 'from' | 'to' | 'percent'>,
  bucket: number,
  takes: { readonly from: boolean; readonly to: boolean },
): SplitChoice {
  const chosen = versionFor(r, bucket);
  if (takes.from === takes.to) return takes.from ? { take: chosen, chosen } : { chosen };
  const taken = takes.from ? r.from : chosen === r.to ? r.to : null;
  return {
    ...(taken !== null ? { take: taken } : {}),
    chosen,
    disagreement: { chosen, taken },
  };
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
