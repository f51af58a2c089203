/**
 * Promotion gates: a version moves one step at a time, DRAFT → TESTING → SHADOW → LIVE →
 * AUTONOMOUS, and each step up must meet its gate, judged on evidence the caller counted:
 *
 * - to TESTING: nothing (a person decides the version is worth testing);
 * - to SHADOW: at least `minTests` tests in the spec, every one run and passing;
 * - to LIVE: with a version LIVE already, at least `minComparisons` shadow comparisons agreeing
 *   at least `minAgreement` of the time, no refusal the live version did not also make, and a
 *   clean replay gate over its last `replayRuns` runs; the first version to go LIVE has none of
 *   that to show, so its tests must pass again;
 * - to AUTONOMOUS: at least `minLiveRuns` live runs in the last `windowDays` days, every approval
 *   granted and none denied.
 *
 * Moving down (a demotion) is always allowed. Pure: thresholds and evidence in, a report out.
 */
import { type PromotionSpec, WORKFLOW_STATUSES, type WorkflowStatus } from '../spec/index.ts';
import type { SpecDiff } from './diff-specs.ts';

export interface GateConfig {
  readonly shadow: { readonly minTests: number };
  readonly live: {
    readonly minComparisons: number;
    readonly minAgreement: number;
    readonly replayRuns: number;
  };
  readonly autonomous: { readonly minLiveRuns: number; readonly windowDays: number };
}

export const DEFAULT_GATES: GateConfig = {
  shadow: { minTests: 1 },
  live: { minComparisons: 20, minAgreement: 0.95, replayRuns: 50 },
  autonomous: { minLiveRuns: 20, windowDays: 30 },
};

/**
 * The thresholds that apply: the tenant's, made stricter by the spec's `promotion:` where it asks
 * for more (a larger count, a higher agreement, a longer window). Where the spec asks for less,
 * the tenant's stands, and a note says so.
 */
export function effectiveGates(
  tenant: GateConfig,
  spec?: PromotionSpec,
): { gates: GateConfig; notes: string[] } {
  const notes: string[] = [];
  const pick = (where: string, t: number, s: number | undefined) => {
    if (s === undefined) return t;
    if (s < t)
      notes.push(`the spec's promotion.${where} ${s} is looser than the tenant's ${t}; ${t} applies`);
    return Math.max(t, s);
  };
  return {
    gates: {
      shadow: { minTests: pick('shadow.minTests', tenant.shadow.minTests, spec?.shadow?.minTests) },
      live: {
        minComparisons: pick('live.minComparisons', tenant.live.minComparisons, spec?.live?.minComparisons),
        minAgreement: pick('live.minAgreement', tenant.live.minAgreement, spec?.live?.minAgreement),
        replayRuns: pick('live.replayRuns', tenant.live.replayRuns, spec?.live?.replayRuns),
      },
      autonomous: {
        minLiveRuns: pick(
          'autonomous.minLiveRuns',
          tenant.autonomous.minLiveRuns,
          spec?.autonomous?.minLiveRuns,
        ),
        windowDays: pick('autonomous.windowDays', tenant.autonomous.windowDays, spec?.autonomous?.windowDays),
      },
    },
    notes,
  };
}

/** Identical findings, once: what, in how many runs, and a few of those runs as examples. */
export interface EvidenceGroup {
  readonly what: string;
  readonly count: number;
  /** At most three run ids. */
  readonly examples: readonly string[];
}

/** One condition of a gate: what it needs, what was counted, and the runs or comparisons counted. */
export interface GateCondition {
  readonly id: string;
  readonly met: boolean;
  readonly text: string;
  readonly needed?: number;
  readonly found?: number;
  /** Run ids (and comparison ids, which are shadow run ids) the count is made of; at most 50. */
  readonly evidence?: readonly string[];
  /** The findings grouped where many are the same (the same refusal at the same step), most first. */
  readonly groups?: readonly EvidenceGroup[];
}

export interface GateReport {
  readonly workflowId: string;
  readonly version: number;
  readonly from: WorkflowStatus;
  readonly to: WorkflowStatus;
  readonly met: boolean;
  readonly conditions: readonly GateCondition[];
  readonly notes: readonly string[];
  readonly gates: GateConfig;
  /** What the version changes from the one LIVE now, shown beside the report (absent: none LIVE). */
  readonly diff?: SpecDiff;
}

/** What was counted for a gate; each part only where the gate reads it. */
export interface GateEvidence {
  /** The spec's tests and their runs in this version (`passed` null: not run yet). */
  readonly tests?: readonly {
    readonly name: string;
    /** Absent for a test decided by whether the version starts on its event (no run). */
    readonly runId?: string;
    readonly passed: boolean | null;
  }[];
  /** The version LIVE (or AUTONOMOUS) now, other than this one; null when there is none. */
  readonly liveVersion?: number | null;
  readonly comparisons?: {
    readonly count: number;
    readonly agreed: number;
    readonly skipped: number;
    /** Comparisons with this version still in the shadow queue (not counted yet). */
    readonly waiting?: number;
    /** Of `count`, those where only one of the two versions starts on the event (disagreements). */
    readonly onlyOneStarts?: number;
    readonly newRefusals: readonly { readonly runId: string; readonly step: string; readonly code: string }[];
    readonly ids: readonly string[];
  };
  readonly replay?: {
    readonly runs: number;
    readonly diverged: readonly { readonly runId: string; readonly sentence: string }[];
  };
  readonly liveRuns?: {
    readonly count: number;
    readonly approved: number;
    readonly denied: number;
    readonly runIds: readonly string[];
    readonly deniedRunIds: readonly string[];
  };
}

export type Move =
  | { readonly kind: 'promote' | 'demote' }
  | { readonly kind: 'invalid'; readonly message: string };

/** Whether `from` → `to` is one step up, any step down, or not a move at all. */
export function moveOf(from: WorkflowStatus, to: WorkflowStatus): Move {
  const a = WORKFLOW_STATUSES.indexOf(from);
  const b = WORKFLOW_STATUSES.indexOf(to);
  if (a === b) return { kind: 'invalid', message: `it is ${to} already` };
  if (b < a) return { kind: 'demote' };
  if (b === a + 1) return { kind: 'promote' };
  const path = WORKFLOW_STATUSES.slice(a + 1, b + 1).join(' → ');
  return {
    kind: 'invalid',
    message: `a version moves up one step at a time (${from} → ${path}); promote it to ${WORKFLOW_STATUSES[a + 1]} first`,
  };
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const firstIds = (xs: readonly string[]) => xs.slice(0, 50);

/** Findings grouped by what they say: each once, with the runs it was found in, most runs first. */
export function groupFindings(
  items: readonly { readonly what: string; readonly runId: string }[],
): EvidenceGroup[] {
  const runs = new Map<string, Set<string>>();
  for (const i of items) {
    const set = runs.get(i.what) ?? new Set<string>();
    set.add(i.runId);
    runs.set(i.what, set);
  }
  return [...runs]
    .map(([what, ids]) => ({ what, count: ids.size, examples: [...ids].slice(0, 3) }))
    .sort((x, y) => y.count - x.count || (x.what < y.what ? -1 : x.what > y.what ? 1 : 0));
}

/** A group in words: "spend_cap_exceeded at step refund in 35 runs (e.g. sha256:…, sha256:…)". */
const groupText = (g: EvidenceGroup) =>
  `${g.what} in ${g.count} run${g.count === 1 ? '' : 's'} (${g.count === 1 ? '' : 'e.g. '}${g.examples.join(', ')})`;

function testConditions(min: number, e: GateEvidence): GateCondition[] {
  const tests = e.tests ?? [];
  const notRun = tests.filter((t) => t.passed === null);
  const failed = tests.filter((t) => t.passed === false);
  return [
    {
      id: 'tests.count',
      met: tests.length >= min,
      text: `the spec has at least ${min} test${min === 1 ? '' : 's'} (tests:): it has ${tests.length}`,
      needed: min,
      found: tests.length,
    },
    {
      id: 'tests.pass',
      met: tests.length > 0 && notRun.length === 0 && failed.length === 0,
      text:
        tests.length === 0
          ? 'every test passes in simulated mode: there are no tests'
          : notRun.length > 0
            ? `every test passes in simulated mode: ${notRun.map((t) => t.name).join(', ')} not run yet (keel test)`
            : failed.length > 0
              ? `every test passes in simulated mode: ${failed.map((t) => t.name).join(', ')} failed`
              : `every test passes in simulated mode: ${tests.length} of ${tests.length} passed`,
      needed: tests.length,
      found: tests.length - notRun.length - failed.length,
      evidence: firstIds(tests.flatMap((t) => (t.runId ? [t.runId] : []))),
    },
  ];
}

/** Judges a move of `version` from `from` to `to` on the evidence counted. */
export function judgeGate(
  g: { workflowId: string; version: number; from: WorkflowStatus; to: WorkflowStatus },
  gates: GateConfig,
  e: GateEvidence,
  notes: readonly string[] = [],
): GateReport {
  const move = moveOf(g.from, g.to);
  const conditions: GateCondition[] = [];
  if (move.kind === 'promote' && g.to === 'SHADOW')
    conditions.push(...testConditions(gates.shadow.minTests, e));
  if (move.kind === 'promote' && g.to === 'LIVE') {
    if (e.liveVersion === null || e.liveVersion === undefined) {
      conditions.push({
        id: 'live.first',
        met: true,
        text: 'no version is LIVE yet, so there is nothing to shadow or replay against: its tests must pass again',
      });
      conditions.push(...testConditions(gates.shadow.minTests, e));
    } else {
      const c = e.comparisons ?? { count: 0, agreed: 0, skipped: 0, newRefusals: [], ids: [] };
      const rate = c.count === 0 ? 0 : c.agreed / c.count;
      conditions.push({
        id: 'shadow.comparisons',
        met: c.count >= gates.live.minComparisons,
        text: `at least ${gates.live.minComparisons} shadow comparisons with v${e.liveVersion}: ${c.count}${c.waiting ? ` (${c.waiting} more waiting in the shadow queue)` : ''}${c.skipped ? ` (${c.skipped} shadow runs skipped at the concurrency limit)` : ''}`,
        needed: gates.live.minComparisons,
        found: c.count,
        evidence: firstIds(c.ids),
      });
      conditions.push({
        id: 'shadow.agreement',
        met: c.count > 0 && rate >= gates.live.minAgreement,
        text: `shadow runs agree with v${e.liveVersion} at least ${pct(gates.live.minAgreement)} of the time: ${c.count === 0 ? 'no comparisons' : `${pct(rate)} (${c.agreed} of ${c.count}${c.onlyOneStarts ? `; on ${c.onlyOneStarts} only one of the two would start` : ''})`}`,
        needed: gates.live.minAgreement,
        found: rate,
      });
      const refusals = groupFindings(
        c.newRefusals.map((r) => ({ what: `${r.code} at step ${r.step}`, runId: r.runId })),
      );
      conditions.push({
        id: 'shadow.refusals',
        met: c.newRefusals.length === 0,
        text: `no shadow refusal v${e.liveVersion} did not also make: ${refusals.length === 0 ? 'none' : refusals.map(groupText).join('; ')}`,
        needed: 0,
        found: c.newRefusals.length,
        evidence: firstIds(c.newRefusals.map((r) => r.runId)),
        ...(refusals.length > 0 ? { groups: refusals } : {}),
      });
      const r = e.replay ?? { runs: 0, diverged: [] };
      conditions.push({
        id: 'replay.gate',
        met: r.diverged.length === 0,
        text: `re-planned on the last ${r.runs} run${r.runs === 1 ? '' : 's'} of v${e.liveVersion} (at most ${gates.live.replayRuns}), it proposes what they did: ${
          r.diverged.length === 0
            ? 'every one the same'
            : `${r.diverged.length} would differ — ${r.diverged
                .slice(0, 3)
                .map((d) => d.sentence)
                .join('; ')}`
        }`,
        needed: 0,
        found: r.diverged.length,
        evidence: firstIds(r.diverged.map((d) => d.runId)),
      });
    }
  }
  if (move.kind === 'promote' && g.to === 'AUTONOMOUS') {
    const l = e.liveRuns ?? { count: 0, approved: 0, denied: 0, runIds: [], deniedRunIds: [] };
    const a = gates.autonomous;
    conditions.push({
      id: 'live.runs',
      met: l.count >= a.minLiveRuns,
      text: `at least ${a.minLiveRuns} live runs of v${g.version} in the last ${a.windowDays} days: ${l.count}`,
      needed: a.minLiveRuns,
      found: l.count,
      evidence: firstIds(l.runIds),
    });
    conditions.push({
      id: 'live.approvals',
      met: l.denied === 0,
      text: `every approval those runs asked for was granted, none denied: ${l.approved} granted, ${l.denied} denied`,
      needed: 0,
      found: l.denied,
      evidence: firstIds(l.deniedRunIds),
    });
  }
  return {
    workflowId: g.workflowId,
    version: g.version,
    from: g.from,
    to: g.to,
    met: move.kind !== 'invalid' && conditions.every((c) => c.met),
    conditions,
    notes,
    gates,
  };
}
