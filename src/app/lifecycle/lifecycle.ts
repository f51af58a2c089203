/**
 * The lifecycle of a workflow as one handle (docs/lifecycle.md): a version earns each step toward
 * autonomy with evidence. `test` runs its tests simulated; SHADOW versions run beside live runs
 * (shadows.ts); `gate` counts the evidence a move needs and judges it (core/lifecycle/gates.ts);
 * `promote` moves a version one step, refused unless its gate is met or a person overrides it
 * with a reason, and records who, when and on what evidence in the workflow's hash-chained
 * lifecycle records; `rollout` splits traffic between two LIVE versions and advances or rolls
 * back on the figures; `route` is where an event's version is chosen. Only a person may promote.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { requireInstantBound } from '../../core/instant.ts';
import type { EventRecord, SplitEntry } from '../../core/ledger/index.ts';
import {
  bucketKeyOf,
  bucketOf,
  type ChainResult,
  DEFAULT_GATES,
  DEFAULT_STICKY_BY,
  diffSpecs,
  effectiveGates,
  type GateConfig,
  type GateEvidence,
  type GateReport,
  judgeGate,
  judgeRollout,
  moveOf,
  type RolloutState,
  type RolloutVerdict,
  type SpecDiff,
  type StageFigures,
  splitChoice,
  stickyByProblem,
  verifyPromotionChain,
} from '../../core/lifecycle/index.ts';
import type { Policy } from '../../core/policy/index.ts';
import { runIdFor } from '../../core/run/index.ts';
import { triggerMatches, WORKFLOW_STATUSES, type WorkflowStatus } from '../../core/spec/index.ts';
import { checkStoredRun, type Engine, type ToolRegistry } from '../../engine/index.ts';
import type {
  NewPromotion,
  Planner,
  PrincipalKind,
  Promotion,
  Store,
  VersionRecord,
} from '../../ports/index.ts';
import { type ReplayGateReport, replayGate } from './replay-gate.ts';
import { ShadowDrainer } from './shadow-drainer.ts';
import { type ShadowReport, shadowReport } from './shadow-report.ts';
import { Shadows } from './shadows.ts';
import { runTests, type TestReport, testEvidence } from './test-runs.ts';

/** Gate thresholds per tenant (partial: the rest are the defaults), or a function of the tenant. */
export type PromotionGatesConfig =
  | { readonly [tenant: string]: PartialGates }
  | ((tenant: string) => PartialGates | undefined);

export interface PartialGates {
  readonly shadow?: Partial<GateConfig['shadow']>;
  readonly live?: Partial<GateConfig['live']>;
  readonly autonomous?: Partial<GateConfig['autonomous']>;
}

export interface LifecycleDeps {
  readonly engine: Engine;
  readonly store: Store;
  readonly tools: ToolRegistry;
  readonly planner?: Planner;
  readonly now: () => string;
  readonly gates?: PromotionGatesConfig;
  readonly policyFor: (tenant: string) => Policy | undefined;
  /** The shadow queue's drainer in this process (shadow-drainer.ts): its leases' owner, its limits. */
  readonly shadowQueue: {
    readonly owner: string;
    readonly limit: (tenant: string) => number;
    readonly concurrency: number;
    /** Wall-clock ms. */
    readonly clock: () => number;
    /** Whether live work is in hand in this process (shadow work yields to it). */
    readonly busy: (quietMs: number) => boolean;
    readonly goneOwners?: (owners: readonly string[]) => Promise<readonly string[]>;
  };
  /** Told of background lifecycle work that failed (a shadow run, an automatic rollout step); never thrown. */
  readonly onBackgroundError?: (
    e: unknown,
    what: { tenant: string; workflowId?: string; liveRunId?: string },
  ) => void;
}

/** Who asks for a lifecycle change: a person (the CLI, a human key) or an automation (a service key). */
export interface Principal {
  readonly by: string;
  readonly kind?: PrincipalKind;
}

export interface PromoteOptions {
  readonly version?: number;
  /** Promote past an unmet gate: the reason is recorded with who gave it. */
  readonly override?: string;
}

export interface RolloutOptions {
  readonly percent: number;
  /**
   * What keeps events together on one version: `subject` (default), `payload.<field>...`, or
   * `event` (each event alone); an event without a value for it is bucketed by its (source, id).
   */
  readonly stickyBy?: string;
  /** The stages after `percent`, ascending, ending at 100 (default: 50, 100). */
  readonly steps?: readonly number[];
  readonly auto?: boolean;
  /** How much worse (a share) the new version's refusal or failure rate may be (default 0.05). */
  readonly threshold?: number;
  /** Finished runs of each version per stage before it is judged (default 20). */
  readonly minRuns?: number;
  readonly override?: string;
}

export interface RolloutStatus {
  readonly workflowId: string;
  readonly rollout?: RolloutState;
  readonly verdict?: RolloutVerdict;
  /**
   * Events of this rollout that the two versions' triggers disagree on, by the version the bucket
   * chose and the one that took the event (null: none did); docs/lifecycle.md.
   */
  readonly triggerDisagreements?: {
    readonly count: number;
    readonly byChoice: readonly {
      readonly chosen: number;
      readonly taken: number | null;
      readonly count: number;
    }[];
  };
}

/**
 * What routing decided for one workflow: the version that takes the event (its run's id, and the
 * split during a rollout), and during a rollout a disagreement of the two versions' triggers.
 */
export interface Routing {
  readonly take?: {
    readonly version: VersionRecord;
    readonly runId: string;
    readonly split?: SplitEntry;
    /** The event started this run before (under another form, or another version of the split). */
    readonly before?: true;
  };
  readonly disagreement?: {
    readonly from: number;
    readonly to: number;
    readonly startedAt: string;
    readonly chosen: number;
    readonly taken: number | null;
  };
}

const ROUTABLE: readonly WorkflowStatus[] = ['LIVE', 'AUTONOMOUS'];
const DAY_MS = 86_400_000;

function mergeGates(cfg: PromotionGatesConfig | undefined, tenant: string): GateConfig {
  const p = typeof cfg === 'function' ? cfg(tenant) : cfg?.[tenant];
  return {
    shadow: { ...DEFAULT_GATES.shadow, ...p?.shadow },
    live: { ...DEFAULT_GATES.live, ...p?.live },
    autonomous: { ...DEFAULT_GATES.autonomous, ...p?.autonomous },
  };
}

function human(p: Principal, what: string): void {
  if (p.kind === 'service')
    throw new KeelError(
      ErrorCode.forbidden,
      `only a person may ${what}: this is a service key (create a key for a person with keel keys create --human)`,
      { by: p.by },
    );
  if (typeof p.by !== 'string' || p.by.trim() === '')
    throw new KeelError(ErrorCode.usage, 'by: expected who decides', { field: 'by' });
}

function unmet(report: GateReport, what: string): KeelError {
  const lines = report.conditions.filter((c) => !c.met).map((c) => c.text);
  return new KeelError(
    ErrorCode.promotionGateUnmet,
    `${what}: the gate to ${report.to} is not met: ${lines.join('; ')} (a person may promote anyway, giving the reason: --override --reason "...")`,
    { workflowId: report.workflowId, version: report.version, to: report.to, report },
  );
}

export function createLifecycle(d: LifecycleDeps) {
  const { engine, store } = d;
  const shadows = new Shadows({ engine, store, now: d.now, wallClock: d.shadowQueue.clock });
  const drainer = new ShadowDrainer({
    shadows,
    store,
    ...d.shadowQueue,
    ...(d.onBackgroundError ? { onError: d.onBackgroundError } : {}),
  });

  async function version(tenant: string, workflowId: string, v?: number): Promise<VersionRecord> {
    const rec = await store.registry.getVersion(tenant, workflowId, v);
    if (!rec)
      throw new KeelError(ErrorCode.notFound, `workflow ${workflowId}${v ? ` v${v}` : ''} not found`, {
        workflowId,
        version: v,
      });
    return rec;
  }

  /** The version events go to now (the rollout's old one during a rollout), other than `except`. */
  async function liveVersion(tenant: string, workflowId: string, except?: number) {
    const rollout = (await store.registry.getRollout(tenant, workflowId))?.state;
    const versions = await store.registry.listVersions(tenant, workflowId);
    if (rollout?.status === 'active' && rollout.from !== except)
      return versions.find((v) => v.version === rollout.from);
    return versions.filter((v) => ROUTABLE.includes(v.status) && v.version !== except).at(-1);
  }

  /**
   * Live runs of a version in a window — every one, counted in the store — and what people decided
   * on their approvals. The runs named as evidence (at most 50 of each list) are checked as any
   * action checks a run it relies on: one that does not verify refuses the gate (ledger_invalid).
   */
  async function liveRunEvidence(tenant: string, v: VersionRecord, days: number) {
    const since = new Date(Date.parse(d.now()) - days * DAY_MS).toISOString();
    const tally = await store.runs.tallyLiveRuns(tenant, {
      workflowId: v.workflowId,
      version: v.version,
      since,
      examples: 50,
    });
    for (const runId of new Set([...tally.runIds, ...tally.deniedRunIds])) {
      const run = await store.runs.getRun(tenant, runId);
      if (run) checkStoredRun(run, await store.ledger.readEntries(tenant, runId), v);
    }
    const { runs: count, ...rest } = tally;
    return { count, ...rest };
  }

  /** Counts the evidence a move of `rec` to `to` needs and judges it (nothing is changed). */
  async function gate(tenant: string, rec: VersionRecord, to: WorkflowStatus): Promise<GateReport> {
    const { gates, notes } = effectiveGates(mergeGates(d.gates, tenant), rec.spec.promotion);
    const g = { workflowId: rec.workflowId, version: rec.version, from: rec.status, to };
    const move = moveOf(rec.status, to);
    const evidence: { -readonly [K in keyof GateEvidence]: GateEvidence[K] } = {};
    if (move.kind === 'promote' && (to === 'SHADOW' || to === 'LIVE'))
      evidence.tests = await testEvidence(d, tenant, rec);
    if (move.kind === 'promote' && to === 'LIVE') {
      const live = await liveVersion(tenant, rec.workflowId, rec.version);
      evidence.liveVersion = live?.version ?? null;
      if (live) {
        const report = await shadowReport(shadows, store, tenant, rec.workflowId, rec.version, {
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
          ...policy(tenant),
        });
        evidence.replay = {
          runs: replay.runs,
          diverged: replay.diverged.map((x) => ({ runId: x.runId, sentence: x.sentence })),
        };
      }
    }
    if (move.kind === 'promote' && to === 'AUTONOMOUS')
      evidence.liveRuns = await liveRunEvidence(tenant, rec, gates.autonomous.windowDays);
    // Beside every report: what the version changes from the one events go to now.
    const current = await liveVersion(tenant, rec.workflowId, rec.version);
    const diff = current ? { diff: diffSpecs(current.spec, rec.spec, (name) => d.tools.get(name)) } : {};
    if (move.kind === 'invalid')
      return {
        ...judgeGate(g, gates, evidence, notes),
        conditions: [{ id: 'move', met: false, text: move.message }],
        ...diff,
      };
    return { ...judgeGate(g, gates, evidence, notes), ...diff };
  }

  const policy = (tenant: string) => {
    const p = d.policyFor(tenant);
    return p ? { policy: p } : {};
  };

  async function promote(
    tenant: string,
    workflowId: string,
    to: string,
    p: Principal,
    o: PromoteOptions = {},
  ) {
    if (!(WORKFLOW_STATUSES as readonly string[]).includes(to))
      throw new KeelError(
        ErrorCode.usage,
        `status: expected one of ${WORKFLOW_STATUSES.join(', ')}, got ${JSON.stringify(to)}`,
        {
          field: 'status',
        },
      );
    const rec = await version(tenant, workflowId, o.version);
    const target = to as WorkflowStatus;
    const move = moveOf(rec.status, target);
    // Moving a version up takes a person; stepping one back (a demotion) anyone may.
    if (move.kind !== 'demote')
      human(p, o.override !== undefined ? 'override a promotion gate' : 'promote a version');
    else if (typeof p.by !== 'string' || p.by.trim() === '')
      throw new KeelError(ErrorCode.usage, 'by: expected who decides', { field: 'by' });
    if (move.kind === 'invalid')
      throw new KeelError(
        ErrorCode.usage,
        `${workflowId} v${rec.version} cannot go to ${target}: ${move.message}`,
        {
          workflowId,
          version: rec.version,
          field: 'status',
        },
      );
    const rollout = (await store.registry.getRollout(tenant, workflowId))?.state;
    if (rollout?.status === 'active' && (rollout.to === rec.version || rollout.from === rec.version))
      throw new KeelError(
        ErrorCode.runState,
        `${workflowId} v${rec.version} is in an active rollout (v${rollout.from} → v${rollout.to} at ${rollout.percent}%): advance it or roll it back with keel rollout`,
        { workflowId, version: rec.version },
      );
    const at = d.now();
    if (move.kind === 'demote') {
      const [record] = await store.registry.recordLifecycle({
        tenant,
        workflowId,
        records: [
          {
            tenant,
            workflowId,
            version: rec.version,
            from: rec.status,
            to: target,
            by: p.by,
            at,
            kind: 'demote',
          },
        ],
      });
      return { promotion: record!, report: undefined };
    }
    const report = await gate(tenant, rec, target);
    if (!report.met && o.override === undefined) throw unmet(report, `${workflowId} v${rec.version}`);
    if (o.override !== undefined && o.override.trim() === '')
      throw new KeelError(ErrorCode.usage, 'reason: an override needs the reason it is given for', {
        field: 'reason',
      });
    const records: NewPromotion[] = [
      {
        tenant,
        workflowId,
        version: rec.version,
        from: rec.status,
        to: target,
        by: p.by,
        at,
        kind: 'promote',
        evidence: report,
        ...(o.override !== undefined && !report.met ? { override: { reason: o.override } } : {}),
      },
    ];
    // A new LIVE version takes the traffic whole: the one LIVE before it steps back (recorded).
    if (target === 'LIVE')
      for (const v of await store.registry.listVersions(tenant, workflowId))
        if (v.version !== rec.version && ROUTABLE.includes(v.status))
          records.push({
            tenant,
            workflowId,
            version: v.version,
            from: v.status,
            to: 'DRAFT',
            by: p.by,
            at,
            kind: 'demote',
            evidence: { supersededBy: rec.version },
          });
    const [promotion] = await store.registry.recordLifecycle({ tenant, workflowId, records });
    return { promotion: promotion!, report };
  }

  // ---- Traffic split and staged rollout --------------------------------------------------------

  async function figures(tenant: string, r: RolloutState, workflowId: string) {
    const of = async (version: number): Promise<StageFigures> => {
      const c = await store.runs.countRuns(tenant, {
        workflowId,
        version,
        mode: 'live',
        since: r.stageStartedAt,
      });
      const refused = c.refused ?? 0;
      const failed = c.failed ?? 0;
      return { runs: (c.completed ?? 0) + refused + failed, refused, failed };
    };
    return { from: await of(r.from), to: await of(r.to) };
  }

  async function startRollout(
    tenant: string,
    workflowId: string,
    toVersion: number,
    p: Principal,
    o: RolloutOptions,
  ) {
    human(p, o.override !== undefined ? 'override a promotion gate' : 'start a rollout');
    const percent = o.percent;
    if (!Number.isInteger(percent) || percent < 1 || percent > 99)
      throw new KeelError(ErrorCode.usage, `percent: expected a whole number from 1 to 99, got ${percent}`, {
        field: 'percent',
      });
    const steps = [...(o.steps ?? [50, 100].filter((s) => s > percent))];
    if (steps.at(-1) !== 100) steps.push(100);
    if (
      steps.some((s, i) => !Number.isInteger(s) || s <= percent || s > 100 || (i > 0 && s <= steps[i - 1]!))
    )
      throw new KeelError(
        ErrorCode.usage,
        `steps: expected ascending whole percents above ${percent}, ending at 100, got ${steps.join(',')}`,
        {
          field: 'steps',
        },
      );
    const threshold = o.threshold ?? 0.05;
    if (!(threshold >= 0 && threshold <= 1))
      throw new KeelError(
        ErrorCode.usage,
        `threshold: expected a share from 0 to 1 (0.05 is 5 points), got ${threshold}`,
        {
          field: 'threshold',
        },
      );
    const stickyBy = o.stickyBy ?? DEFAULT_STICKY_BY;
    const sticky = stickyByProblem(stickyBy);
    if (sticky !== undefined)
      throw new KeelError(ErrorCode.usage, `stickyBy: ${sticky}`, { field: 'stickyBy' });
    const minRuns = o.minRuns ?? 20;
    if (!Number.isInteger(minRuns) || minRuns < 1)
      throw new KeelError(ErrorCode.usage, `minRuns: expected a positive whole number, got ${minRuns}`, {
        field: 'minRuns',
      });
    const stored = await store.registry.getRollout(tenant, workflowId);
    if (stored?.state.status === 'active')
      throw new KeelError(
        ErrorCode.runState,
        `${workflowId} is rolling out v${stored.state.to} already (${stored.state.percent}%)`,
        {
          workflowId,
        },
      );
    const rec = await version(tenant, workflowId, toVersion);
    const from = await liveVersion(tenant, workflowId, rec.version);
    if (!from)
      throw new KeelError(
        ErrorCode.runState,
        `${workflowId} has no LIVE version to split traffic with: promote v${rec.version} to LIVE instead`,
        {
          workflowId,
        },
      );
    if (rec.status !== 'SHADOW')
      throw new KeelError(
        ErrorCode.usage,
        `${workflowId} v${rec.version} is ${rec.status}: a rollout starts from SHADOW`,
        {
          workflowId,
          field: 'version',
        },
      );
    const report = await gate(tenant, rec, 'LIVE');
    if (!report.met && o.override === undefined)
      throw unmet(report, `a rollout of ${workflowId} v${rec.version}`);
    const at = d.now();
    const state: RolloutState = {
      from: from.version,
      to: rec.version,
      percent,
      steps,
      auto: o.auto === true,
      threshold,
      minRuns,
      startedAt: at,
      startedBy: p.by,
      stageStartedAt: at,
      status: 'active',
      stickyBy,
    };
    const [record] = await store.registry.recordLifecycle({
      tenant,
      workflowId,
      records: [
        {
          tenant,
          workflowId,
          version: rec.version,
          from: 'SHADOW',
          to: 'LIVE',
          by: p.by,
          at,
          kind: 'rollout',
          evidence: { gate: report, rollout: state },
          ...(o.override !== undefined && !report.met ? { override: { reason: o.override } } : {}),
        },
      ],
      rollout: { state, expectedRev: stored?.rev ?? null },
    });
    return { rollout: state, promotion: record!, report };
  }

  /** Advances the active rollout on its figures; `auto` (an automatic rollout) rolls back when they say so. */
  async function stepRollout(tenant: string, workflowId: string, by: string, o: { auto?: boolean } = {}) {
    const stored = await store.registry.getRollout(tenant, workflowId);
    const r = stored?.state;
    if (!stored || !r || r.status !== 'active')
      throw new KeelError(ErrorCode.runState, `${workflowId} has no active rollout`, { workflowId });
    const verdict = judgeRollout(r, await figures(tenant, r, workflowId));
    const at = d.now();
    if (verdict.verdict === 'rollback') {
      if (!o.auto)
        throw new KeelError(
          ErrorCode.promotionGateUnmet,
          `the rollout of ${workflowId} v${r.to} cannot advance: ${verdict.reasons.join('; ')} (roll it back: keel rollout ${workflowId} --rollback)`,
          { workflowId, verdict },
        );
      return rollback(tenant, workflowId, by, `automatic: ${verdict.reasons.join('; ')}`, verdict);
    }
    if (verdict.verdict === 'hold') {
      if (o.auto) return { rollout: r, verdict };
      throw new KeelError(
        ErrorCode.promotionGateUnmet,
        `the rollout of ${workflowId} v${r.to} cannot advance yet: ${verdict.reasons.join('; ')}`,
        { workflowId, verdict },
      );
    }
    const next = verdict.next ?? 100;
    const done = next >= 100;
    const state: RolloutState = {
      ...r,
      percent: next,
      stageStartedAt: at,
      ...(done ? { status: 'completed' as const } : {}),
    };
    const records: NewPromotion[] = [
      {
        tenant,
        workflowId,
        version: r.to,
        from: 'LIVE',
        to: 'LIVE',
        by,
        at,
        kind: 'rollout',
        evidence: { percent: next, verdict },
      },
    ];
    if (done) {
      const old = await version(tenant, workflowId, r.from);
      records.push({
        tenant,
        workflowId,
        version: r.from,
        from: old.status,
        to: 'DRAFT',
        by,
        at,
        kind: 'demote',
        evidence: { supersededBy: r.to, rollout: 'completed' },
      });
    }
    await store.registry.recordLifecycle({
      tenant,
      workflowId,
      records,
      rollout: { state, expectedRev: stored.rev },
    });
    return { rollout: state, verdict };
  }

  async function rollback(
    tenant: string,
    workflowId: string,
    by: string,
    reason: string,
    verdict?: RolloutVerdict,
  ) {
    const stored = await store.registry.getRollout(tenant, workflowId);
    const r = stored?.state;
    if (!stored || !r || r.status !== 'active')
      throw new KeelError(ErrorCode.runState, `${workflowId} has no active rollout`, { workflowId });
    const v = verdict ?? judgeRollout(r, await figures(tenant, r, workflowId));
    const state: RolloutState = { ...r, status: 'rolled_back' };
    await store.registry.recordLifecycle({
      tenant,
      workflowId,
      records: [
        {
          tenant,
          workflowId,
          version: r.to,
          from: 'LIVE',
          to: 'SHADOW',
          by,
          at: d.now(),
          kind: 'rollback',
          evidence: { reason, percent: r.percent, figures: v.figures, reasons: v.reasons },
        },
      ],
      rollout: { state, expectedRev: stored.rev },
    });
    return { rollout: state, verdict: v };
  }

  /** Automatic rollouts go on (or back) by themselves: judged after events, never on their path. */
  const ticking = new Map<string, Promise<unknown>>();
  function tick(tenant: string, workflowId: string): void {
    const key = `${tenant}\u0000${workflowId}`;
    if (ticking.has(key)) return;
    const p = (async () => {
      const r = (await store.registry.getRollout(tenant, workflowId))?.state;
      if (r?.status === 'active' && r.auto)
        await stepRollout(tenant, workflowId, 'keel (automatic rollout)', { auto: true });
    })()
      .catch((e) => d.onBackgroundError?.(e, { tenant, workflowId }))
      .finally(() => ticking.delete(key));
    ticking.set(key, p);
  }

  /**
   * Which version of a workflow an event starts, if any: the one LIVE (or AUTONOMOUS) when its
   * trigger takes the event — or, during a rollout, the one the event's bucket chooses (by the
   * rollout's stickiness key), or when the two versions' triggers disagree on the event, the one
   * `splitChoice` says (the disagreement is returned, for the event index to count). A run the
   * event started already under either version (a retry from before the event index, or under an
   * `earlier` form of the event) is answered as it is. Reads only: nothing is started or written.
   */
  async function route(
    tenant: string,
    workflowId: string,
    versions: readonly VersionRecord[],
    event: EventRecord,
    earlier: readonly EventRecord[] = [],
  ): Promise<Routing> {
    const takes = (v: VersionRecord | undefined) =>
      v?.spec.triggers.some((t) => triggerMatches(t, event)) === true;
    /** A run of `v` the event started before, under a form other than the one `v` would start now. */
    const startedBefore = async (v: VersionRecord, taken: boolean) => {
      for (const form of taken ? earlier : [event, ...earlier]) {
        const runId = runIdFor(tenant, workflowId, v.specHash, form);
        if (await store.runs.getRun(tenant, runId)) return runId;
      }
      return undefined;
    };
    const r = (await store.registry.getRollout(tenant, workflowId))?.state;
    if (r?.status !== 'active') {
      const v = versions.filter((x) => ROUTABLE.includes(x.status)).at(-1);
      if (!v || !takes(v)) return {};
      const before = earlier.length > 0 ? await startedBefore(v, true) : undefined;
      return {
        take: before
          ? { version: v, runId: before, before: true }
          : { version: v, runId: runIdFor(tenant, workflowId, v.specHash, event) },
      };
    }
    const byNumber = (n: number) => versions.find((v) => v.version === n);
    const stickyBy = r.stickyBy ?? DEFAULT_STICKY_BY;
    const bucket = bucketOf(tenant, workflowId, event, stickyBy);
    const choice = splitChoice(r, bucket, { from: takes(byNumber(r.from)), to: takes(byNumber(r.to)) });
    const split: SplitEntry = {
      bucket,
      percent: r.percent,
      from: r.from,
      to: r.to,
      stickyBy: bucketKeyOf(event, stickyBy),
      ...(choice.take !== undefined && choice.take !== choice.chosen ? { chosen: choice.chosen } : {}),
    };
    for (const n of [r.from, r.to]) {
      const v = byNumber(n);
      const before = v && (await startedBefore(v, n === choice.take));
      if (v && before) return { take: { version: v, runId: before, split, before: true } };
    }
    const disagreement = choice.disagreement && {
      from: r.from,
      to: r.to,
      startedAt: r.startedAt,
      chosen: choice.disagreement.chosen,
      taken: choice.disagreement.taken,
    };
    const v = choice.take === undefined ? undefined : byNumber(choice.take);
    return {
      ...(v ? { take: { version: v, runId: runIdFor(tenant, workflowId, v.specHash, event), split } } : {}),
      ...(disagreement ? { disagreement } : {}),
    };
  }

  return {
    shadows,
    drainer,
    route,
    tick,
    /**
     * Resolves once the background work this process started is done: the shadow work it queued
     * (worked now, without yielding; what another process holds is left to it) and rollout steps.
     */
    async settled(): Promise<void> {
      await drainer.drain({});
      while (ticking.size > 0) await Promise.allSettled([...ticking.values()]);
    },
    /** Runs a version's tests (and events given by hand) simulated; see TestReport. */
    async test(
      tenant: string,
      workflowId: string,
      o: { version?: number; events?: readonly { name: string; event: unknown }[] } = {},
    ): Promise<TestReport> {
      return runTests(d, tenant, await version(tenant, workflowId, o.version), o.events ?? []);
    },
    /** The comparisons of a SHADOW version (the newest SHADOW one unless `version`). */
    async shadowReport(
      tenant: string,
      workflowId: string,
      o: { version?: number; since?: string } = {},
    ): Promise<ShadowReport> {
      const v =
        o.version ??
        (await store.registry.listVersions(tenant, workflowId)).filter((x) => x.status === 'SHADOW').at(-1)
          ?.version;
      // Checked before anything is read: a `since` that is not an instant is bad input, never "no comparisons".
      const since = o.since === undefined ? undefined : requireInstantBound('since', o.since);
      const rec = await version(tenant, workflowId, v);
      return shadowReport(shadows, store, tenant, workflowId, rec.version, {
        ...(since ? { since } : {}),
        now: d.shadowQueue.clock(),
      });
    },
    /** The gate a move of a version (the newest unless `version`) to `to` must meet, judged now. */
    async gate(
      tenant: string,
      workflowId: string,
      to: string,
      o: { version?: number } = {},
    ): Promise<GateReport> {
      if (!(WORKFLOW_STATUSES as readonly string[]).includes(to))
        throw new KeelError(
          ErrorCode.usage,
          `status: expected one of ${WORKFLOW_STATUSES.join(', ')}, got ${JSON.stringify(to)}`,
          {
            field: 'status',
          },
        );
      return gate(tenant, await version(tenant, workflowId, o.version), to as WorkflowStatus);
    },
    promote,
    /** Re-plans the last runs of the LIVE version against `version`, calling nothing. */
    async replayGate(
      tenant: string,
      workflowId: string,
      o: { version?: number; runs?: number } = {},
    ): Promise<ReplayGateReport> {
      const rec = await version(tenant, workflowId, o.version);
      const live = await liveVersion(tenant, workflowId, rec.version);
      if (!live)
        throw new KeelError(ErrorCode.runState, `${workflowId} has no LIVE version to replay against`, {
          workflowId,
        });
      const runs =
        o.runs ?? effectiveGates(mergeGates(d.gates, tenant), rec.spec.promotion).gates.live.replayRuns;
      return replayGate(d, tenant, rec, live, { runs, ...policy(tenant) });
    },
    rollout: {
      start: startRollout,
      async advance(tenant: string, workflowId: string, p: Principal) {
        human(p, 'advance a rollout');
        return stepRollout(tenant, workflowId, p.by);
      },
      // Rolling back is stepping back: anyone may (a monitor's service key too).
      rollback: (tenant: string, workflowId: string, p: Principal, reason: string) =>
        rollback(tenant, workflowId, p.by, reason || `rolled back by ${p.by}`),
      async status(tenant: string, workflowId: string): Promise<RolloutStatus> {
        await version(tenant, workflowId);
        const r = (await store.registry.getRollout(tenant, workflowId))?.state;
        if (!r) return { workflowId };
        const byChoice = await store.events.countTriggerDisagreements(tenant, workflowId, {
          to: r.to,
          startedAt: r.startedAt,
        });
        const triggerDisagreements = { count: byChoice.reduce((n, x) => n + x.count, 0), byChoice };
        return r.status === 'active'
          ? {
              workflowId,
              rollout: r,
              verdict: judgeRollout(r, await figures(tenant, r, workflowId)),
              triggerDisagreements,
            }
          : { workflowId, rollout: r, triggerDisagreements };
      },
    },
    /** What changed from version `a` to version `b`, in plain language. */
    async diff(tenant: string, workflowId: string, a: number, b: number): Promise<SpecDiff> {
      const [va, vb] = [await version(tenant, workflowId, a), await version(tenant, workflowId, b)];
      return diffSpecs(va.spec, vb.spec, (name) => d.tools.get(name));
    },
    /** The workflow's lifecycle records and whether their chain verifies. */
    async records(tenant: string, workflowId: string): Promise<{ records: Promotion[]; chain: ChainResult }> {
      await version(tenant, workflowId);
      const records = await store.registry.listPromotions(tenant, workflowId);
      return { records, chain: verifyPromotionChain(records) };
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
