/**
 * `keel.lifecycle` (docs/lifecycle.md): the declared interface of the lifecycle service, and the
 * handle made of its parts — tests (test-runs.ts), shadow reports, gates (gates.ts), promotion
 * (promotions.ts), the replay gate, rollouts (rollouts.ts), diffs, the lifecycle records and the
 * shadow queue. Each method checks its input and names the version it acts on (not_found when there
 * is none) before it reads anything else.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { requireInstantBound } from '../../core/instant.ts';
import {
  type ChainResult,
  diffSpecs,
  type GateReport,
  type RolloutState,
  type RolloutVerdict,
  type SpecDiff,
  verifyPromotionChain,
} from '../../core/lifecycle/index.ts';
import type { Promotion, ShadowFailure } from '../../ports/index.ts';
import type { Gates } from './gates.ts';
import type { LifecycleDeps } from './lifecycle-deps.ts';
import type { Principal } from './principal.ts';
import { type PromoteOptions, promote } from './promotions.ts';
import { type ReplayGateReport, replayGate } from './replay-gate.ts';
import type { RolloutOptions, RolloutStatus, Rollouts } from './rollouts.ts';
import type { ShadowDrainer } from './shadow-drainer.ts';
import { type ShadowReport, shadowReport } from './shadow-report.ts';
import type { Shadows } from './shadows.ts';
import { runTests, type TestReport } from './test-runs.ts';
import { liveVersion, requireStatus, requireVersion } from './versions.ts';

/** The lifecycle of a tenant's workflows: a version earns each step toward autonomy with evidence. */
export interface LifecycleHandle {
  /** Runs a version's `tests:` (and named events given by hand) in simulated mode. */
  test(
    tenant: string,
    workflowId: string,
    o?: { version?: number; events?: readonly { name: string; event: unknown }[] },
  ): Promise<TestReport>;
  /** How a SHADOW version's runs compared with the live runs they shadowed. */
  shadowReport(
    tenant: string,
    workflowId: string,
    o?: { version?: number; since?: string },
  ): Promise<ShadowReport>;
  /** The gate a move of a version to `to` must meet, judged on the evidence now; changes nothing. */
  gate(tenant: string, workflowId: string, to: string, o?: { version?: number }): Promise<GateReport>;
  /** Moves a version one step (gated up, always down), recorded in the workflow's chain. */
  promote(
    tenant: string,
    workflowId: string,
    to: string,
    p: Principal,
    o?: PromoteOptions,
  ): Promise<{ promotion: Promotion; report: GateReport | undefined }>;
  /** Re-plans the LIVE version's last runs against a version, calling nothing. */
  replayGate(
    tenant: string,
    workflowId: string,
    o?: { version?: number; runs?: number },
  ): Promise<ReplayGateReport>;
  readonly rollout: {
    start(
      tenant: string,
      workflowId: string,
      toVersion: number,
      p: Principal,
      o: RolloutOptions,
    ): Promise<{ rollout: RolloutState; promotion: Promotion; report: GateReport }>;
    advance(
      tenant: string,
      workflowId: string,
      p: Principal,
    ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }>;
    rollback(
      tenant: string,
      workflowId: string,
      p: Principal,
      reason: string,
    ): Promise<{ rollout: RolloutState; verdict: RolloutVerdict }>;
    status(tenant: string, workflowId: string): Promise<RolloutStatus>;
  };
  /** What changed from version `a` to version `b`, in plain language. */
  diff(tenant: string, workflowId: string, a: number, b: number): Promise<SpecDiff>;
  /** The workflow's lifecycle records and whether their hash chain verifies. */
  records(tenant: string, workflowId: string): Promise<{ records: Promotion[]; chain: ChainResult }>;
  /**
   * Resolves once this process's background lifecycle work is done: the shadow work it queued
   * (worked now; items another process holds are left to it) and automatic rollout steps.
   */
  settled(): Promise<void>;
  /** The durable shadow queue (docs/lifecycle.md, "The shadow queue"): its lag, and its drainers. */
  readonly shadowQueue: ShadowQueueHandle;
}

/** The shadow queue: comparisons still to make, kept in the store until a drainer makes them. */
export interface ShadowQueueHandle {
  /**
   * Its lag: items waiting, items being worked, and how long the oldest has waited (ms) — across
   * the store, or of one tenant (one workflow, one version).
   */
  status(filter?: { tenant?: string; workflowId?: string; version?: number }): Promise<{
    waiting: number;
    running: number;
    oldestAgeMs?: number;
    /** Items kept as failed after their last attempt (not waiting), and the newest 20 of them. */
    failed: number;
    failures: readonly ShadowFailure[];
  }>;
  /**
   * Works every claimable item of a tenant (of all without one) now, a dead process's included; how
   * many. With `retryFailed` and a tenant, its items kept as failed are tried again first (`retried`).
   */
  drain(o?: { tenant?: string; retryFailed?: boolean }): Promise<{ worked: number; retried: number }>;
  /** Drains every tenant's queue continually in the background, yielding to live work and to `busy`. */
  run(o?: { pollMs?: number; busy?: () => boolean }): { stop(): Promise<void> };
}

/** What the handle is made of: the lifecycle's parts in this process (lifecycle.ts makes them). */
export interface LifecycleParts {
  readonly d: LifecycleDeps;
  readonly shadows: Shadows;
  readonly drainer: ShadowDrainer;
  readonly gates: Gates;
  readonly rollouts: Rollouts;
  /** Adds live work for the shadow queue's drainer to yield to (a `keel worker`'s walks). */
  readonly yieldTo: (busy: () => boolean) => void;
}

export function lifecycleHandle(parts: LifecycleParts): LifecycleHandle {
  const { d, shadows, drainer, gates, rollouts } = parts;
  const { store } = d;
  const version = (tenant: string, workflowId: string, v?: number) =>
    requireVersion(store.registry, tenant, workflowId, v);
  return {
    /**
     * Resolves once the background work this process started is done: the shadow work it queued
     * (worked now, without yielding; what another process holds is left to it) and rollout steps.
     */
    async settled(): Promise<void> {
      await drainer.drain({});
      await rollouts.settled();
    },
    /** Runs a version's tests (and events given by hand) simulated; see TestReport. */
    async test(tenant, workflowId, o = {}): Promise<TestReport> {
      return runTests(d, tenant, await version(tenant, workflowId, o.version), o.events ?? []);
    },
    /** The comparisons of a SHADOW version (the newest SHADOW one unless `version`). */
    async shadowReport(tenant, workflowId, o = {}): Promise<ShadowReport> {
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
    async gate(tenant, workflowId, to, o = {}): Promise<GateReport> {
      const target = requireStatus(to);
      return gates.report(tenant, await version(tenant, workflowId, o.version), target);
    },
    promote: (tenant, workflowId, to, p, o) =>
      promote({ registry: store.registry, gates, now: d.now }, tenant, workflowId, to, p, o),
    /** Re-plans the last runs of the LIVE version against `version`, calling nothing. */
    async replayGate(tenant, workflowId, o = {}): Promise<ReplayGateReport> {
      const rec = await version(tenant, workflowId, o.version);
      const live = await liveVersion(store.registry, tenant, workflowId, rec.version);
      if (!live)
        throw new KeelError(ErrorCode.runState, `${workflowId} has no LIVE version to replay against`, {
          workflowId,
        });
      const runs = o.runs ?? gates.config(tenant, rec).gates.live.replayRuns;
      return replayGate(d, tenant, rec, live, { runs, ...gates.policy(tenant) });
    },
    rollout: {
      start: (tenant, workflowId, toVersion, p, o) => rollouts.start(tenant, workflowId, toVersion, p, o),
      advance: (tenant, workflowId, p) => rollouts.advance(tenant, workflowId, p),
      rollback: (tenant, workflowId, p, reason) => rollouts.rollback(tenant, workflowId, p, reason),
      status: (tenant, workflowId) => rollouts.status(tenant, workflowId),
    },
    /** What changed from version `a` to version `b`, in plain language. */
    async diff(tenant, workflowId, a, b): Promise<SpecDiff> {
      const [va, vb] = [await version(tenant, workflowId, a), await version(tenant, workflowId, b)];
      return diffSpecs(va.spec, vb.spec, (name) => d.tools.get(name));
    },
    /** The workflow's lifecycle records and whether their chain verifies. */
    async records(tenant, workflowId): Promise<{ records: Promotion[]; chain: ChainResult }> {
      await version(tenant, workflowId);
      const records = await store.registry.listPromotions(tenant, workflowId);
      return { records, chain: verifyPromotionChain(records) };
    },
    shadowQueue: {
      /** The shadow queue's lag: of a tenant (one workflow, one version), or across the store. */
      async status(filter = {}) {
        const now = d.shadowQueue.clock();
        const q = await store.shadowQueue.shadowQueueStatus(now, filter);
        return {
          waiting: q.waiting,
          running: q.running,
          ...(q.oldestMs !== undefined ? { oldestAgeMs: Math.max(0, now - q.oldestMs) } : {}),
          failed: q.failed,
          failures: q.failures,
        };
      },
      /**
       * Works every claimable item of the tenant (every tenant's without one) until none is
       * left, without yielding to live work: what `keel recover --all` does after its runs.
       * With `retryFailed` (and a tenant), the tenant's items kept as failed are tried again first.
       */
      async drain(o = {}) {
        const { retryFailed, ...scope } = o;
        const retried =
          retryFailed && scope.tenant !== undefined
            ? await store.shadowQueue.retryFailedShadowWork(scope.tenant)
            : 0;
        return { ...(await drainer.drain({ all: true, ...scope })), retried };
      },
      /**
       * Drains every tenant's queue continually in the background (`keel serve`, `keel worker`),
       * yielding to live work here and to `busy` (a worker's walks); `stop` waits for the items
       * being worked.
       */
      run(o = {}) {
        if (o.busy) parts.yieldTo(o.busy);
        drainer.run(o.pollMs ?? 1000);
        return { stop: () => drainer.stop() };
      },
    },
  };
}
