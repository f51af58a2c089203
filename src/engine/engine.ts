/**
 * The engine: the one orchestration in Keel, a facade over its parts, each a function of the
 * shared EngineContext (engine-context.ts) in its own module — starting runs (start-run.ts) and
 * creating them, new, forked, re-executed, simulated or delegated (create-run.ts, fork-run.ts);
 * recovering them after a crash (recover-run.ts); a person's decisions (resolve-approval.ts,
 * reconcile-run.ts) and controls (run-controls.ts); reading a run to act on it (load-run.ts).
 * Runs are walked (walk.ts) with live effects — inline, holding the run's lease (walk-inline.ts),
 * or left to a worker (`walk: 'enqueue'`). Everything it does to a run goes through that run's
 * ledger, and everything it knows about a run it folds from there.
 */
import type { Digest } from '../core/canonical/index.ts';
import { decodeEntry, type EventRecord, type TestRef } from '../core/ledger/index.ts';
import type { CancelRequest } from '../core/run/index.ts';
import type {
  CheckpointWitness,
  Clock,
  ModelProvider,
  Planner,
  RawSources,
  Store,
  VersionRecord,
} from '../ports/index.ts';
import { ActiveWalks } from './active-walks.ts';
import { createRun } from './create-run.ts';
import { type ChildRunner, delegatingEffects } from './delegate.ts';
import { liveEffects } from './effects.ts';
import type { EngineContext, WalkMode } from './engine-context.ts';
import { type ForkOptions, forkRun, rerunRun } from './fork-run.ts';
import type { admitWrit, GovernanceConfig } from './governance.ts';
import { HEAD_RETRIES } from './head-moved.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { loadRun } from './load-run.ts';
import { type DelegationKey, latestVersion } from './mint-delegation.ts';
import { PinnedVersions } from './pinned-versions.ts';
import { reconcileRun } from './reconcile-run.ts';
import type { ReconcileRequest } from './reconcile-step.ts';
import { type RecoverOptions, recoverRun } from './recover-run.ts';
import { type ApprovalDecision, resolveApproval } from './resolve-approval.ts';
import { admitChain, checkWrit, currentPolicy } from './run-admission.ts';
import { cancelRun, pauseRun, resumeRun } from './run-controls.ts';
import type { RunSummary } from './run-summary.ts';
import {
  type SimulatedStart,
  type StartOptions,
  startRun,
  startSimulatedRun,
  testRunId,
} from './start-run.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { WritChains } from './writ-chains.ts';

export const ENGINE_VERSION = 'keel/0.1.0';

export interface EngineOptions {
  readonly store: Store;
  readonly tools: ToolRegistry;
  readonly sources: RawSources;
  readonly engineVersion?: string;
  /** Which env names hold secrets (recorded as a keyed hash, never in clear); SECRET_ENV by default. */
  readonly isSecretEnv?: (name: string) => boolean;
  /**
   * Which env names a tenant's runs may read (the operator's exposure); none by default. Any other
   * name reads as unset: the process environment is never asked for it.
   */
  readonly exposesEnv?: (tenant: string, name: string) => boolean;
  /** How new and recovered work is walked unless a call says otherwise (default inline). */
  readonly walk?: WalkMode;
  /** Who holds a run's lease while this engine walks it inline (e.g. `inline:<host>:<pid>`). */
  readonly leaseOwner?: string;
  /**
   * How long an inline walk's lease lasts without a renewal, in ms (default 15 s); it is renewed
   * every third of that while the walk lasts, so a process that dies leaves its runs to others
   * within this time (sooner on its own host, see `goneOwners`).
   */
  readonly inlineLeaseMs?: number;
  /** The wall clock leases are read against (never recorded); the sources' clock by default. */
  readonly leaseClock?: Clock;
  /**
   * Lease owners whose processes are known to be gone (a process of this host that no longer
   * exists): `recover` takes over their leases at once instead of waiting for them to expire.
   */
  readonly goneOwners?: () => Promise<readonly string[]>;
  /** Per-tenant policies and trusted writ keys; absent, runs are checked by the core checks only. */
  readonly governance?: GovernanceConfig;
  /** Fills the open model slots of each step (docs/planner.md); the template planner by default. */
  readonly planner?: Planner;
  /** Answers a planner's model questions on live walks (source `x-model`); never on replay. */
  readonly modelProvider?: ModelProvider;
  /** How many times a metering provider's schema-invalid answer is asked again (2 by default). */
  readonly modelRetries?: number;
  /** The key that signs a tenant's child writs for `core.delegate` steps (mint-delegation.ts). */
  readonly delegationKeyFor?: (tenant: string) => DelegationKey | undefined;
  /**
   * Where signed checkpoints are kept outside the store: before acting on a run, the store's
   * checkpoint chain must hold the last checkpoint it keeps for the run's tenant (run-evidence.ts).
   */
  readonly witness?: CheckpointWitness;
}

export class Engine {
  /** What every part of the engine shares (engine-context.ts). */
  private readonly ctx: EngineContext;
  /** The checkpoint witness actions check the store's chain against (run-evidence.ts), if any. */
  readonly witness: CheckpointWitness | undefined;
  /** Writ chains by content: stored when a run is admitted, read when a run under a writ walks. */
  readonly writChains: WritChains;
  readonly walkMode: WalkMode;
  readonly engineVersion: string;

  constructor(o: EngineOptions) {
    const inlineLease = {
      op: 'hold',
      owner: o.leaseOwner ?? 'inline',
      ms: o.inlineLeaseMs ?? 15_000,
    } as const;
    const leaseClock = o.leaseClock ?? o.sources.clock;
    this.witness = o.witness;
    this.writChains = new WritChains(o.store.keys);
    this.walkMode = o.walk ?? 'inline';
    this.engineVersion = o.engineVersion ?? ENGINE_VERSION;
    this.ctx = {
      store: o.store,
      tools: o.tools,
      live: delegatingEffects(
        liveEffects(o.sources, {
          ...(o.exposesEnv ? { exposesEnv: o.exposesEnv } : {}),
          ...(o.isSecretEnv ? { isSecretEnv: o.isSecretEnv } : {}),
          ...(o.modelProvider ? { modelProvider: o.modelProvider } : {}),
          ...(o.modelRetries !== undefined ? { modelRetries: o.modelRetries } : {}),
          // Each tenant's secrets are hashed under its own key, made on first use (32 random bytes).
          secretKey: (tenant) => o.store.keys.secretKey(tenant, o.sources.random.bytes(32)),
        }),
        {
          keyFor: (tenant) => o.delegationKeyFor?.(tenant),
          versionFor: (tenant, workflowId, version) =>
            latestVersion(o.store.registry, tenant, workflowId, version),
        },
        this.childRunner(),
      ),
      governance: o.governance,
      witness: this.witness,
      writChains: this.writChains,
      pinned: new PinnedVersions(o.store.registry),
      walkMode: this.walkMode,
      engineVersion: this.engineVersion,
      inlineLease,
      leaseClock,
      goneOwners: o.goneOwners ?? (async () => []),
      walks: new ActiveWalks(
        o.tools,
        o.planner,
        new LeaseKeeper(o.store.queue, inlineLease.owner, inlineLease.ms, leaseClock),
      ),
    };
  }

  /** How delegation steps create, recover, cancel and read their child runs (delegate.ts). */
  private childRunner(): ChildRunner {
    return {
      create: (runId, version, event, o) =>
        createRun(this.ctx, runId, version, event, { ...o, ...currentPolicy(this.ctx, version.tenant) }),
      recover: (tenant, runId) => this.recover(tenant, runId),
      cancel: (tenant, runId, c) => this.cancel(tenant, runId, c),
      entries: async (tenant, runId) =>
        (await this.ctx.store.ledger.readEntries(tenant, runId)).map(decodeEntry),
      version: (tenant, workflowId, version) =>
        this.ctx.store.registry.getVersion(tenant, workflowId, version),
      admit: (chain, tenant) => admitChain(this.ctx, chain, tenant),
      writChain: (tenant, hash) => this.writChains.chainOf(tenant, hash),
    };
  }

  /**
   * The writ a run of the tenant would start under, or writ_refused, writing nothing: what `start`
   * checks, for a caller that must refuse before it records anything (an event's claim).
   */
  checkWrit(chain: readonly unknown[], tenant: string): Promise<ReturnType<typeof admitWrit>> {
    return checkWrit(this.ctx, chain, tenant);
  }

  /** The test run of `version` on `event` under the tenant's policy now (what startSimulated names). */
  testRunId(version: VersionRecord, event: EventRecord, test: TestRef): Digest {
    return testRunId(this.ctx, version, event, test);
  }

  /**
   * Starts the run of `version` for `event` and walks it (inline) or leaves it to a worker
   * (enqueue); an existing run with the same identity is returned as is. With `writ` (a chain,
   * root first) the run executes under it: the chain is verified against the tenant's trusted keys
   * first, and a refusal (KeelError writ_refused, `details.code`) creates no run. `direct`: the run
   * is started by name (`keel run`, an OpenWOP create), not by routing the event, and is named apart
   * from the routed run of the same event. `shadowWork` names what to queue with the run's root (its
   * SHADOW versions' comparisons), in the root's transaction: queued if and only if the run is created.
   */
  start(
    version: VersionRecord,
    event: EventRecord,
    o: StartOptions = {},
  ): Promise<{ run: RunSummary; created: boolean }> {
    return startRun(this.ctx, version, event, o);
  }

  /**
   * Starts (or finds) a simulated run: a test of `version` on `event` (`keel test`), or the shadow
   * of a live run on its event — or, without `shadowOf`, a shadow on an event the live version did
   * not start. Nothing in it ever acts and nobody is asked (simulated-effects.ts); it is walked here
   * or left to a worker like any run, and recovered like any run.
   */
  startSimulated(
    version: VersionRecord,
    event: EventRecord,
    o: SimulatedStart,
  ): Promise<{ run: RunSummary; created: boolean }> {
    return startSimulatedRun(this.ctx, version, event, o);
  }

  /**
   * Continues a run from its ledger head after a crash: by the worker that claimed it (passing the
   * ledger its claim returned; the worker holds and renews the lease), or here, where this
   * process first claims the run's lease — free, expired, its own, or held by a process known to be
   * gone — and holds it while it walks. A run leased by a live walker elsewhere is left to it
   * (run_state); one this process walks already is not walked twice. Waiting, suspended, paused
   * and finished runs are left as they are.
   */
  recover(tenant: string, runId: string, o: RecoverOptions = {}): Promise<RunSummary> {
    return recoverRun(this.ctx, tenant, runId, o);
  }

  /**
   * Records a person's account of a suspended run's in-flight step — it happened (with its output)
   * or it did not (the step is proposed again as a new attempt) — then continues the run inline or
   * leaves it to a worker. Only a run suspended as outcome_unknown can be reconciled, once.
   */
  reconcile(
    tenant: string,
    runId: string,
    r: ReconcileRequest & { walk?: WalkMode },
    retries = HEAD_RETRIES,
  ): Promise<RunSummary> {
    return reconcileRun(this.ctx, tenant, runId, r, retries);
  }

  /**
   * Cancels a run that has not finished, as `c.by` (with `c.reason`), and returns where it ended:
   * a walk of it in this process is aborted, any other run gets `run.finished` cancelled at its
   * head (run-controls.ts). A finished run throws `run_terminal`; an unknown one `not_found`.
   */
  cancel(tenant: string, runId: string, c: CancelRequest): Promise<RunSummary> {
    return cancelRun(this.ctx, tenant, runId, c);
  }

  /**
   * Pauses a running run as `c.by`: no step starts until `resume`; a walk of it in this process
   * finishes the step in progress first (run-controls.ts).
   */
  pause(
    tenant: string,
    runId: string,
    c: { by: string; reason?: string; drainPolicy?: 'drain-current-node' | 'immediate' },
  ): Promise<RunSummary> {
    return pauseRun(this.ctx, tenant, runId, c);
  }

  /** Resumes a paused run as `by`, then walks on (inline) or leaves it to a worker (enqueue). */
  resume(tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary> {
    return resumeRun(this.ctx, tenant, runId, c);
  }

  /** Resolves the run's pending approval exactly once, then continues (or stops) the run. */
  resolveApproval(
    tenant: string,
    runId: string,
    r: { decision: ApprovalDecision; by: string; note?: string; walk?: WalkMode },
    retries = HEAD_RETRIES,
  ): Promise<RunSummary> {
    return resolveApproval(this.ctx, tenant, runId, r, retries);
  }

  /**
   * A new run that inherits the source run's entries before `fromSeq` under a root naming the
   * source, then continues: `replay` from the source's record, `branch` live (fork-run.ts).
   */
  fork(tenant: string, sourceRunId: string, o: ForkOptions): Promise<{ run: RunSummary; created: boolean }> {
    return forkRun(this.ctx, tenant, sourceRunId, o);
  }

  /** A diagnostic re-execution: a new, live run of the same version and event, linked by `attemptOf`. */
  rerun(tenant: string, runId: string): Promise<{ run: RunSummary; created: boolean }> {
    return rerunRun(this.ctx, tenant, runId);
  }

  /**
   * A run with its pinned version and its folded state, for acting on it: another tenant's run is
   * "not found", and a run whose ledger, row or pinned spec does not verify is refused
   * (`ledger_invalid`, run-integrity.ts) before anything is done (load-run.ts).
   */
  load(tenant: string, runId: string) {
    return loadRun(this.ctx, tenant, runId);
  }
}
