/**
 * Traffic split and staged rollout (docs/lifecycle.md, "Rollouts"): a SHADOW version that meets
 * the gate to LIVE takes a share of its workflow's traffic beside the LIVE one, stage by stage;
 * each stage is judged on the two versions' live figures since it began (core/lifecycle), and the
 * rollout advances, holds or rolls back — by a person, or by itself when `auto` (judged after
 * events, never on their path). Every step is a lifecycle record, written with the rollout's new
 * state in one change of the registry.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import {
  DEFAULT_STICKY_BY,
  type GateReport,
  judgeRollout,
  type RolloutState,
  type RolloutVerdict,
  type StageFigures,
  stickyByProblem,
} from '../../core/lifecycle/index.ts';
import type { EventIndex, NewPromotion, Promotion, Registry, RunIndex } from '../../ports/index.ts';
import { type Gates, unmet } from './gates.ts';
import { type Principal, requireHuman } from './principal.ts';
import { liveVersion, requireVersion } from './versions.ts';

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

export interface RolloutsDeps {
  readonly registry: Registry;
  readonly runs: RunIndex;
  readonly events: EventIndex;
  readonly gates: Gates;
  readonly now: () => string;
  /** Told of an automatic rollout step that failed; never thrown. */
  readonly onBackgroundError?: (e: unknown, what: { tenant: string; workflowId: string }) => void;
}

export class Rollouts {
  /** Automatic rollout steps in progress, by tenant and workflow. */
  private readonly ticking = new Map<string, Promise<unknown>>();

  constructor(private readonly d: RolloutsDeps) {}

  /** Each version's finished live runs since the stage began: how many, refused, failed. */
  private async figures(tenant: string, r: RolloutState, workflowId: string) {
    const of = async (version: number): Promise<StageFigures> => {
      const c = await this.d.runs.countRuns(tenant, {
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

  /**
   * Starts a rollout of a SHADOW version beside the LIVE one, as a person: its gate to LIVE must be
   * met (or overridden with a reason), and the options are checked first, each refusal naming it.
   */
  async start(
    tenant: string,
    workflowId: string,
    toVersion: number,
    p: Principal,
    o: RolloutOptions,
  ): Promise<{ rollout: RolloutState; promotion: Promotion; report: GateReport }> {
    requireHuman(p, o.override !== undefined ? 'override a promotion gate' : 'start a rollout');
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
    const stored = await this.d.registry.getRollout(tenant, workflowId);
    if (stored?.state.status === 'active')
      throw new KeelError(
        ErrorCode.runState,
        `${workflowId} is rolling out v${stored.state.to} already (${stored.state.percent}%)`,
        {
          workflowId,
        },
      );
    const rec = await requireVersion(this.d.registry, tenant, workflowId, toVersion);
    const from = await liveVersion(this.d.registry, tenant, workflowId, rec.version);
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
    const report = await this.d.gates.report(tenant, rec, 'LIVE');
    if (!report.met && o.override === undefined)
      throw unmet(report, `a rollout of ${workflowId} v${rec.version}`);
    const at = this.d.now();
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
    const [record] = await this.d.registry.recordLifecycle({
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

  /** Advances the active rollout, as a person, when its figures say so (promotion_gate_unmet when not). */
  async advance(
    tenant: string,
    workflowId: string,
    p: Principal,
  ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }> {
    requireHuman(p, 'advance a rollout');
    return this.step(tenant, workflowId, p.by);
  }

  /** Rolls the active rollout back: stepping back, so anyone may (a monitor's service key too). */
  rollback(
    tenant: string,
    workflowId: string,
    p: Principal,
    reason: string,
  ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }> {
    return this.rollbackAs(tenant, workflowId, p.by, reason || `rolled back by ${p.by}`);
  }

  /** Advances the active rollout on its figures; `auto` (an automatic rollout) rolls back when they say so. */
  private async step(
    tenant: string,
    workflowId: string,
    by: string,
    o: { auto?: boolean } = {},
  ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }> {
    const stored = await this.d.registry.getRollout(tenant, workflowId);
    const r = stored?.state;
    if (!stored || !r || r.status !== 'active')
      throw new KeelError(ErrorCode.runState, `${workflowId} has no active rollout`, { workflowId });
    const verdict = judgeRollout(r, await this.figures(tenant, r, workflowId));
    const at = this.d.now();
    if (verdict.verdict === 'rollback') {
      if (!o.auto)
        throw new KeelError(
          ErrorCode.promotionGateUnmet,
          `the rollout of ${workflowId} v${r.to} cannot advance: ${verdict.reasons.join('; ')} (roll it back: keel rollout ${workflowId} --rollback)`,
          { workflowId, verdict },
        );
      return this.rollbackAs(tenant, workflowId, by, `automatic: ${verdict.reasons.join('; ')}`, verdict);
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
      const old = await requireVersion(this.d.registry, tenant, workflowId, r.from);
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
    await this.d.registry.recordLifecycle({
      tenant,
      workflowId,
      records,
      rollout: { state, expectedRev: stored.rev },
    });
    return { rollout: state, verdict };
  }

  /** Rolls the active rollout back as `by`, judged on its figures unless `verdict` is given. */
  private async rollbackAs(
    tenant: string,
    workflowId: string,
    by: string,
    reason: string,
    verdict?: RolloutVerdict,
  ) {
    const stored = await this.d.registry.getRollout(tenant, workflowId);
    const r = stored?.state;
    if (!stored || !r || r.status !== 'active')
      throw new KeelError(ErrorCode.runState, `${workflowId} has no active rollout`, { workflowId });
    const v = verdict ?? judgeRollout(r, await this.figures(tenant, r, workflowId));
    const state: RolloutState = { ...r, status: 'rolled_back' };
    await this.d.registry.recordLifecycle({
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
          at: this.d.now(),
          kind: 'rollback',
          evidence: { reason, percent: r.percent, figures: v.figures, reasons: v.reasons },
        },
      ],
      rollout: { state, expectedRev: stored.rev },
    });
    return { rollout: state, verdict: v };
  }

  /** Automatic rollouts go on (or back) by themselves: judged after events, never on their path. */
  tick(tenant: string, workflowId: string): void {
    const key = `${tenant}\u0000${workflowId}`;
    if (this.ticking.has(key)) return;
    const p = (async () => {
      const r = (await this.d.registry.getRollout(tenant, workflowId))?.state;
      if (r?.status === 'active' && r.auto)
        await this.step(tenant, workflowId, 'keel (automatic rollout)', { auto: true });
    })()
      .catch((e) => this.d.onBackgroundError?.(e, { tenant, workflowId }))
      .finally(() => this.ticking.delete(key));
    this.ticking.set(key, p);
  }

  /** Resolves once no automatic rollout step of this process is in progress. */
  async settled(): Promise<void> {
    while (this.ticking.size > 0) await Promise.allSettled([...this.ticking.values()]);
  }

  /** The workflow's rollout, judged on its figures now while active, and its trigger disagreements. */
  async status(tenant: string, workflowId: string): Promise<RolloutStatus> {
    await requireVersion(this.d.registry, tenant, workflowId);
    const r = (await this.d.registry.getRollout(tenant, workflowId))?.state;
    if (!r) return { workflowId };
    const byChoice = await this.d.events.countTriggerDisagreements(tenant, workflowId, {
      to: r.to,
      startedAt: r.startedAt,
    });
    const triggerDisagreements = { count: byChoice.reduce((n, x) => n + x.count, 0), byChoice };
    return r.status === 'active'
      ? {
          workflowId,
          rollout: r,
          verdict: judgeRollout(r, await this.figures(tenant, r, workflowId)),
          triggerDisagreements,
        }
      : { workflowId, rollout: r, triggerDisagreements };
  }
}
