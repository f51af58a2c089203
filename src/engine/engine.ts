/**
 * The engine: starts and recovers runs, resolves approvals and reconciles suspended steps, and
 * creates every run (new, forked, re-executed or delegated), by walking runs (walk.ts) with live
 * effects — inline, holding the run's lease while it walks, or by leaving the run to a worker
 * (`walk: 'enqueue'`). It is the only orchestration in Keel: everything it does to a run goes
 * through that run's ledger, and everything it knows about a run it folds from there. A person's
 * controls (cancel, pause, resume) and the walks running in this process are in run-controls.ts;
 * forks and reruns are named in fork-run.ts.
 */
import { type Digest, hashOf } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import {
  chainEntry,
  decodeEntry,
  type Entry,
  type EventRecord,
  type PayloadOf,
  type RunMode,
  type RunWrit,
  type SplitEntry,
  type StoredEntry,
  type TestRef,
} from '../core/ledger/index.ts';
import {
  type CancelRequest,
  directRunIdFor,
  foldRun,
  loneShadowRunIdFor,
  type RunState,
  retainedRunError,
  runIdFor,
  shadowRunIdFor,
  startState,
  testRunIdFor,
} from '../core/run/index.ts';
import type {
  CheckpointWitness,
  Clock,
  LeaseChange,
  ModelProvider,
  Planner,
  RawSources,
  RunRecord,
  ShadowWork,
  Store,
  VersionRecord,
} from '../ports/index.ts';
import { type ChildRunner, delegatingEffects } from './delegate.ts';
import { type Effects, liveEffects } from './effects.ts';
import { type ForkOptions, forkRun, type RunMaker, rerunRun } from './fork-run.ts';
import { admitWrit, type GovernanceConfig, runGovernance } from './governance.ts';
import { HEAD_RETRIES, headMoved } from './head-moved.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { type DelegatedBy, type DelegationKey, latestVersion } from './mint-delegation.ts';
import { PinnedVersions } from './pinned-versions.ts';
import { operatorReconciliation, type ReconcileRequest } from './reconcile-step.ts';
import { indexLedger, recordedEffects } from './recorded-effects.ts';
import { RunControls } from './run-controls.ts';
import { runEvidenceProblem } from './run-evidence.ts';
import {
  checkClaimedLedger,
  checkStoredRun,
  openRequest,
  refuseUnverified,
  rowProblem,
  specProblem,
} from './run-integrity.ts';
import { type RunSummary, stateSummary, summaryOf } from './run-summary.ts';
import { RunWriter } from './run-writer.ts';
import { simulatedEffects } from './simulated-effects.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { WalkOptions } from './walk.ts';
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

/**
 * `inline`: the caller walks the run now, holding its lease; `enqueue`: the run is committed as
 * running with no lease and left for a worker (`keel worker`) to claim and walk.
 */
export type WalkMode = 'inline' | 'enqueue';

export type ApprovalDecision = 'approved' | 'denied';

/** How a run is created (`create`): what it derives from, what it is pinned to, whether it is walked. */
export interface CreateOptions {
  readonly forkOf?: PayloadOf<'run.started'>['forkOf'];
  readonly attemptOf?: string;
  /** With attemptOf: which re-execution (2 for the first). */
  readonly attempt?: number;
  /** A run started directly, not by routing an event (its id is derived apart). */
  readonly direct?: boolean;
  readonly status?: string;
  readonly prefix?: readonly Entry[];
  /** The writ the run executes under, already admitted (or inherited from the source run). */
  readonly writ?: RunWrit;
  /** The hash of the policy the run is pinned to (the tenant's now, or a replayed source's). */
  readonly policy?: Digest;
  /** A child run of a delegation step: the parent run and its delegating entry. */
  readonly delegatedBy?: DelegatedBy;
  /** A simulated run: `test` (with `test`) or `shadow` (with `shadowOf`); absent, a live run. */
  readonly mode?: RunMode;
  readonly test?: TestRef;
  readonly shadowOf?: string;
  /** A routed run during a rollout: its bucket and the weights that chose its version. */
  readonly split?: SplitEntry;
  /** A simulated run: the status its checks judge it as. */
  readonly judgedAs?: 'LIVE' | 'AUTONOMOUS';
  /** The caller's W3C `traceparent` (validated, canonical): the run's span becomes its child. */
  readonly traceparent?: string;
  /** false: commit the root and the prefix, and leave the walk to `recover` (or a worker). */
  readonly walk?: boolean;
  /** Shadow work to queue with the run's root, in its transaction, given the run's id. */
  readonly shadowWork?: (runId: Digest) => readonly ShadowWork[];
}

export class Engine {
  private readonly store: Store;
  private readonly tools: ToolRegistry;
  private readonly live: Effects;
  private readonly inlineLease: LeaseChange & { op: 'hold' };
  private readonly keeper: LeaseKeeper;
  private readonly leaseClock: Clock;
  private readonly goneOwners: () => Promise<readonly string[]>;
  private readonly pinned: PinnedVersions;
  private readonly governance: GovernanceConfig | undefined;
  /** The checkpoint witness actions check the store's chain against (run-evidence.ts), if any. */
  readonly witness: CheckpointWitness | undefined;
  private readonly planner: Planner | undefined;
  /** Cancel, pause and resume, and the walks running in this process (run-controls.ts). */
  private readonly controls: RunControls;
  /** How forks and reruns load, create and pin runs (fork-run.ts). */
  private readonly maker: RunMaker;
  /** Writ chains by content: stored when a run is admitted, read when a run under a writ walks. */
  readonly writChains: WritChains;
  readonly walkMode: WalkMode;
  readonly engineVersion: string;

  constructor(o: EngineOptions) {
    this.store = o.store;
    this.tools = o.tools;
    this.writChains = new WritChains(o.store.keys);
    this.live = delegatingEffects(
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
    );
    this.planner = o.planner;
    this.engineVersion = o.engineVersion ?? ENGINE_VERSION;
    this.walkMode = o.walk ?? 'inline';
    this.inlineLease = { op: 'hold', owner: o.leaseOwner ?? 'inline', ms: o.inlineLeaseMs ?? 15_000 };
    this.leaseClock = o.leaseClock ?? o.sources.clock;
    this.keeper = new LeaseKeeper(
      o.store.queue,
      this.inlineLease.owner,
      this.inlineLease.ms,
      this.leaseClock,
    );
    this.goneOwners = o.goneOwners ?? (async () => []);
    this.pinned = new PinnedVersions(o.store.registry);
    this.governance = o.governance;
    this.witness = o.witness;
    this.controls = new RunControls({
      store: this.store,
      tools: this.tools,
      planner: this.planner,
      at: this.live.at,
      load: (tenant, runId) => this.load(tenant, runId),
      proceed: (writer, version, walk) => this.proceed(writer, version, walk),
      keeper: this.keeper,
    });
    this.maker = {
      store: this.store,
      witness: this.witness,
      load: (tenant, runId) => this.load(tenant, runId),
      create: (runId, version, event, o) => this.create(runId, version, event, o),
      currentPolicy: (tenant) => this.currentPolicy(tenant),
    };
  }

  /** How delegation steps create, recover, cancel and read their child runs (delegate.ts). */
  private childRunner(): ChildRunner {
    return {
      create: (runId, version, event, o) =>
        this.create(runId, version, event, { ...o, ...this.currentPolicy(version.tenant) }),
      recover: (tenant, runId) => this.recover(tenant, runId),
      cancel: (tenant, runId, c) => this.cancel(tenant, runId, c),
      entries: async (tenant, runId) => (await this.store.ledger.readEntries(tenant, runId)).map(decodeEntry),
      version: (tenant, workflowId, version) => this.store.registry.getVersion(tenant, workflowId, version),
      admit: (chain, tenant) => this.admit(chain, tenant),
      writChain: (tenant, hash) => this.writChains.chainOf(tenant, hash),
    };
  }

  /**
   * Verifies a writ chain for a new run of the tenant (its trusted keys, configured and stored, and
   * revocations) and stores the chain by content: what the run's root records is the hash.
   */
  private async admit(chain: readonly unknown[], tenant: string): Promise<RunWrit> {
    return this.writChains.record(tenant, await this.checkWrit(chain, tenant));
  }

  /**
   * The writ a run of the tenant would start under, or writ_refused, writing nothing: what `start`
   * checks, for a caller that must refuse before it records anything (an event's claim).
   */
  async checkWrit(chain: readonly unknown[], tenant: string): Promise<ReturnType<typeof admitWrit>> {
    const stored = await this.governance?.writTrustFor?.(tenant);
    const trusted = stored?.trusted ?? this.governance?.trustedFor(tenant) ?? [];
    return admitWrit(chain, tenant, trusted, stored?.revoked);
  }

  /** The test run of `version` on `event` under the tenant's policy now (what startSimulated names). */
  testRunId(version: VersionRecord, event: EventRecord, test: TestRef): Digest {
    const { tenant, workflowId, specHash } = version;
    return testRunIdFor(tenant, workflowId, specHash, event, test, this.currentPolicy(tenant).policy);
  }

  /** The policy a new run of the tenant is pinned to: the tenant's policy now, if it has one. */
  private currentPolicy(tenant: string): { policy?: Digest } {
    const p = this.governance?.policyFor(tenant);
    return p ? { policy: p.hash } : {};
  }

  /** The walk options of a run: its governance (the policy pinned in its root, the writ there). */
  private async walkOptions(s: RunState, o: WalkOptions = {}): Promise<WalkOptions> {
    // Under a writ, the tenant's stored keys and revoked writs are read before every walk.
    const stored = s.writ ? await this.governance?.writTrustFor?.(s.tenant) : undefined;
    const chain = s.writ ? await this.writChains.chainOf(s.tenant, s.writ.hash) : undefined;
    const governance = runGovernance(this.governance, s, chain, stored);
    return governance ? { ...o, governance } : o;
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
  async start(
    version: VersionRecord,
    event: EventRecord,
    o: {
      walk?: WalkMode;
      writ?: readonly unknown[];
      direct?: boolean;
      split?: SplitEntry;
      traceparent?: string;
      shadowWork?: (runId: Digest) => readonly ShadowWork[];
    } = {},
  ): Promise<{ run: RunSummary; created: boolean }> {
    const writ = o.writ === undefined ? undefined : await this.admit(o.writ, version.tenant);
    const name = o.direct ? directRunIdFor : runIdFor;
    const runId = name(version.tenant, version.workflowId, version.specHash, event);
    return this.create(runId, version, event, {
      direct: o.direct === true,
      walk: (o.walk ?? this.walkMode) === 'inline',
      writ,
      policy: this.currentPolicy(version.tenant).policy,
      ...(o.split ? { split: o.split } : {}),
      ...(o.traceparent ? { traceparent: o.traceparent } : {}),
      ...(o.shadowWork ? { shadowWork: o.shadowWork } : {}),
    });
  }

  /**
   * Starts (or finds) a simulated run: a test of `version` on `event` (`keel test`), or the shadow
   * of a live run on its event — or, without `shadowOf`, a shadow on an event the live version did
   * not start. Nothing in it ever acts and nobody is asked (simulated-effects.ts); it is walked here
   * or left to a worker like any run, and recovered like any run.
   */
  async startSimulated(
    version: VersionRecord,
    event: EventRecord,
    o: ({ mode: 'test'; test: TestRef } | { mode: 'shadow'; shadowOf?: string }) & {
      /** The status its checks judge it as: a shadow's live version's; a test's default LIVE. */
      judgedAs?: 'LIVE' | 'AUTONOMOUS';
      walk?: WalkMode;
    },
  ): Promise<{ run: RunSummary; created: boolean }> {
    const { tenant, specHash } = version;
    const runId =
      o.mode === 'test'
        ? this.testRunId(version, event, o.test)
        : o.shadowOf !== undefined
          ? shadowRunIdFor(tenant, o.shadowOf, specHash)
          : loneShadowRunIdFor(tenant, version.workflowId, specHash, event);
    return this.create(runId, version, event, {
      walk: (o.walk ?? this.walkMode) === 'inline',
      policy: this.currentPolicy(tenant).policy,
      ...(o.mode === 'test'
        ? { mode: 'test', test: o.test }
        : { mode: 'shadow', ...(o.shadowOf !== undefined ? { shadowOf: o.shadowOf } : {}) }),
      judgedAs: o.judgedAs ?? (version.status === 'AUTONOMOUS' ? 'AUTONOMOUS' : 'LIVE'),
    });
  }

  /**
   * Continues a run from its ledger head after a crash: by the worker that claimed it (passing the
   * ledger its claim returned; the worker holds and renews the lease), or here, where this
   * process first claims the run's lease — free, expired, its own, or held by a process known to be
   * gone — and holds it while it walks. A run leased by a live walker elsewhere is left to it
   * (run_state); one this process walks already is not walked twice. Waiting, suspended, paused
   * and finished runs are left as they are.
   */
  async recover(
    tenant: string,
    runId: string,
    o: WalkOptions & { readonly entries?: readonly StoredEntry[] } = {},
  ): Promise<RunSummary> {
    // The ledger alone says where the run is and which version it is pinned to: a worker passes
    // the ledger its claim returned, and the version comes from the cache — no query at all.
    let stored = o.entries;
    let leased = false;
    if (!stored && !this.controls.walking(tenant, runId)) {
      const claimed = await this.claim(tenant, runId);
      if (claimed) {
        stored = claimed.entries;
        leased = true;
      }
    }
    let state: RunState;
    if (stored) {
      // Claimed with its ledger (here or by a worker): the chain and the root's identity must hold,
      // then what every action checks: the row, the pinned spec, the approvals rows, the checkpoint.
      const entries = checkClaimedLedger(tenant, runId, stored);
      state = foldRun(entries);
      try {
        const run = await this.store.runs.getRun(tenant, runId);
        if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
        const problem = rowProblem(run, entries, state);
        if (problem) throw refuseUnverified(runId, problem);
        await this.checkEvidence(run, state, stored);
      } catch (e) {
        if (leased) await this.store.queue.releaseRun(this.inlineLease.owner, runId).catch(() => false);
        throw e;
      }
    } else {
      const run = await this.store.runs.getRun(tenant, runId);
      if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
      const version = await this.store.registry.getVersion(tenant, run.workflowId, run.version);
      const all = await this.store.ledger.readEntries(tenant, runId);
      ({ state } = checkStoredRun(run, all, version));
      await this.checkEvidence(run, state, all);
    }
    if (
      state.finished ||
      state.suspended ||
      state.status === 'paused' ||
      (state.approval && !state.approval.decision)
    )
      return stateSummary(state);
    if (!o.entries && !leased) {
      const here = this.controls.walking(tenant, runId);
      throw new KeelError(
        ErrorCode.runState,
        here
          ? `run ${runId} is being walked by this process already`
          : `run ${runId} is being walked by another process (its lease is live); it goes on there, or can be recovered here once that lease expires`,
        { runId, status: state.status },
      );
    }
    const version = await this.pinned.get(tenant, runId, state);
    const fx = await this.effectsFor(tenant, state, version);
    const writer = new RunWriter(this.store.ledger, state, state.head, this.live.at);
    // Every append of this walk renews the lease it holds (a worker's lease is renewed by the worker).
    if (leased) writer.leaseWith(this.inlineLease);
    await this.controls.walk(writer, version, fx, await this.walkOptions(state, o), leased);
    return stateSummary(state);
  }

  /**
   * Claims one running run's lease for this process's inline walks: a free or expired lease, its
   * own (no walk of it runs here), or one whose holder is known to be gone. Undefined when the run
   * is not running or a live walker elsewhere holds it.
   */
  private async claim(tenant: string, runId: string) {
    const { owner, ms } = this.inlineLease;
    const take = (takeOver: readonly string[]) =>
      this.store.queue.claimRuns(owner, ms, 1, this.leaseClock.now(), { tenant, runId, takeOver });
    const [mine] = await take([owner]);
    if (mine) return mine;
    const gone = await this.goneOwners();
    return gone.length > 0 ? (await take([owner, ...gone]))[0] : undefined;
  }

  /**
   * Records a person's account of a suspended run's in-flight step — it happened (with its output)
   * or it did not (the step is proposed again as a new attempt) — then continues the run inline or
   * leaves it to a worker. Only a run suspended as outcome_unknown can be reconciled, once.
   */
  async reconcile(
    tenant: string,
    runId: string,
    r: ReconcileRequest & { walk?: WalkMode },
    retries = HEAD_RETRIES,
  ): Promise<RunSummary> {
    const { state, version, entries } = await this.load(tenant, runId);
    const decision = operatorReconciliation(state, entries, r);
    const writer = new RunWriter(this.store.ledger, state, state.head, this.live.at);
    writer.add('step.reconciled', decision);
    try {
      await this.proceed(writer, version, r.walk);
    } catch (e) {
      if (!(isKeelError(e) && e.code === ErrorCode.headConflict)) throw e;
      // Ours was recorded and another walker went on from there: report where the run is now.
      const now = await this.load(tenant, runId);
      const ours = now.entries.some(
        (x) => x.kind === 'step.reconciled' && hashOf(x.payload) === hashOf(decision),
      );
      if (ours) return stateSummary(now.state);
      // Someone reconciled it first: report theirs (already_resolved), never apply ours on top.
      if (retries <= 0) throw headMoved(runId, 'reconciling it', e);
      return this.reconcile(tenant, runId, r, retries - 1);
    }
    return stateSummary(state);
  }

  /**
   * Cancels a run that has not finished, as `c.by` (with `c.reason`), and returns where it ended:
   * a walk of it in this process is aborted, any other run gets `run.finished` cancelled at its
   * head (run-controls.ts). A finished run throws `run_terminal`; an unknown one `not_found`.
   */
  cancel(tenant: string, runId: string, c: CancelRequest): Promise<RunSummary> {
    return this.controls.cancel(tenant, runId, c);
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
    return this.controls.pause(tenant, runId, c);
  }

  /** Resumes a paused run as `by`, then walks on (inline) or leaves it to a worker (enqueue). */
  resume(tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary> {
    return this.controls.resume(tenant, runId, c);
  }

  /** After a person's decision: walk on now (holding the lease), or commit and leave it to a worker. */
  private async proceed(writer: RunWriter, version: VersionRecord, walk = this.walkMode): Promise<void> {
    if (walk === 'enqueue') {
      writer.leaseWith({ op: 'release' });
      await writer.commit();
      return;
    }
    writer.leaseWith(this.inlineLease);
    const s = writer.state;
    await this.controls.walk(
      writer,
      version,
      await this.effectsFor(s.tenant, s, version),
      await this.walkOptions(s),
      true,
    );
  }

  /** Resolves the run's pending approval exactly once, then continues (or stops) the run. */
  async resolveApproval(
    tenant: string,
    runId: string,
    r: { decision: ApprovalDecision; by: string; note?: string; walk?: WalkMode },
    retries = HEAD_RETRIES,
  ): Promise<RunSummary> {
    const { state, version, entries } = await this.load(tenant, runId);
    const pending = state.approval && !state.approval.decision ? state.approval.request : undefined;
    if (!pending) {
      const prior = entries.filter((e) => e.kind === 'approval.resolved').at(-1);
      if (prior) {
        const p = prior.payload as PayloadOf<'approval.resolved'>;
        // Who decided, what and when, so an approver who came second is told whose decision stands.
        throw new KeelError(
          ErrorCode.alreadyResolved,
          `the approval of run ${runId} was already ${p.decision} by ${p.by}`,
          {
            runId,
            proposalId: p.proposalId,
            decision: p.decision,
            by: p.by,
            resolvedBy: p.by,
            resolvedAt: prior.at,
            ...(p.note ? { note: p.note } : {}),
          },
        );
      }
      throw new KeelError(
        ErrorCode.runState,
        `run ${runId} is ${state.status}; it is not waiting for an approval`,
        {
          runId,
          status: state.status,
        },
      );
    }
    const writer = new RunWriter(this.store.ledger, state, state.head, this.live.at);
    writer.add('approval.resolved', {
      proposalId: pending.proposalId,
      decision: r.decision,
      by: r.by,
      ...(r.note ? { note: r.note } : {}),
    });
    writer.approvalClosed(pending.proposalId);
    try {
      await this.proceed(writer, version, r.walk);
    } catch (e) {
      // Another approver got there first: report theirs, never apply ours on top.
      if (!(isKeelError(e) && e.code === ErrorCode.headConflict)) throw e;
      if (retries <= 0) throw headMoved(runId, `recording the ${r.decision} decision`, e);
      return this.resolveApproval(tenant, runId, r, retries - 1);
    }
    return stateSummary(state);
  }

  /**
   * A new run that inherits the source run's entries before `fromSeq` under a root naming the
   * source, then continues: `replay` from the source's record, `branch` live (fork-run.ts).
   */
  fork(tenant: string, sourceRunId: string, o: ForkOptions): Promise<{ run: RunSummary; created: boolean }> {
    return forkRun(this.maker, tenant, sourceRunId, o);
  }

  /**
   * The effects a run is walked with: live, except for a replay fork, which is always served from
   * its source's record — on creation, on recovery after a crash, and after an approval — and a
   * simulated run (a test, a shadow), whose tools that may act never do.
   */
  private async effectsFor(tenant: string, s: RunState, version: VersionRecord): Promise<Effects> {
    if (s.mode !== undefined) {
      const reads = version.spec.simulation?.reads ?? 'live';
      if (!s.shadowOf) return simulatedEffects(this.live, reads);
      // A shadow draws what its live run drew, and is answered as it was where it calls alike
      // (simulated-effects.ts); a recovered shadow has had some of its calls answered already.
      const live = indexLedger(
        (await this.store.ledger.readEntries(tenant, s.shadowOf)).map(decodeEntry),
        'call',
      );
      const made =
        s.head.seq > 0
          ? indexLedger((await this.store.ledger.readEntries(tenant, s.runId)).map(decodeEntry), 'call')
              .outcomes
          : undefined;
      return simulatedEffects(this.live, reads, {
        draws: live.draws,
        outcomes: live.outcomes,
        ...(made ? { made: new Map([...made].map(([k, v]) => [k, v.length])) } : {}),
      });
    }
    if (s.forkOf?.mode !== 'replay') return this.live;
    const source = (await this.store.ledger.readEntries(tenant, s.forkOf.runId)).map(decodeEntry);
    // Under a writ a live call would have to be charged to its shared budget, which a replay never
    // touches: there a fork calls nothing live and fails closed wherever nothing is recorded.
    return recordedEffects(indexLedger(source), this.live.at, s.writ ? {} : { live: this.live });
  }

  /** A diagnostic re-execution: a new, live run of the same version and event, linked by `attemptOf`. */
  rerun(tenant: string, runId: string): Promise<{ run: RunSummary; created: boolean }> {
    return rerunRun(this.maker, tenant, runId);
  }

  private async create(
    runId: Digest,
    version: VersionRecord,
    event: EventRecord,
    o: CreateOptions,
  ): Promise<{ run: RunSummary; created: boolean }> {
    const existing = await this.store.runs.getRun(version.tenant, runId);
    if (existing) return { run: summaryOf(existing), created: false };
    if (await this.store.checkpoints.getRetainedRun(version.tenant, runId)) throw retainedRunError(runId);
    // A new run is pinned to the version's spec hash: the stored spec must still hash to it.
    const edited = specProblem(version, version);
    if (edited) throw refuseUnverified(runId, edited);
    const fx = this.live;
    // Optional fields assigned, not spread: this runs for every run.
    const started: PayloadOf<'run.started'> = {
      tenant: version.tenant,
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      status: o.status ?? version.status,
      event,
      engine: this.engineVersion,
    };
    if (o.forkOf) started.forkOf = o.forkOf;
    if (o.attemptOf) started.attemptOf = o.attemptOf;
    if (o.attempt !== undefined) started.attempt = o.attempt;
    if (o.direct) started.direct = true;
    if (o.writ) started.writ = o.writ;
    if (o.policy) started.policy = o.policy;
    if (o.delegatedBy) started.delegatedBy = o.delegatedBy;
    if (o.mode) started.mode = o.mode;
    if (o.test) started.test = o.test;
    if (o.shadowOf) started.shadowOf = o.shadowOf;
    if (o.split) started.split = o.split;
    if (o.judgedAs) started.judgedAs = o.judgedAs;
    if (o.traceparent) started.traceparent = o.traceparent;
    const root = chainEntry(runId, null, 'run.started', started, fx.at(0));
    const state = startState(root.entry);
    const prefix = o.prefix ?? [];
    const writer = new RunWriter(
      this.store.ledger,
      state,
      null,
      // Inherited entries keep their recorded times; new ones are stamped now.
      (seq) => (seq <= prefix.length ? prefix[seq - 1]!.at : fx.at(seq)),
      {
        workflowId: version.workflowId,
        version: version.version,
        specHash: version.specHash,
        eventId: event.id,
        eventType: event.type,
        ...(o.mode ? { mode: o.mode } : {}),
        ...(o.shadowOf ? { shadowOf: o.shadowOf } : {}),
      },
    );
    writer.addRoot(root.stored);
    if (o.shadowWork) writer.queueShadowWork(o.shadowWork(runId));
    for (const e of prefix) writer.add(e.kind, e.payload as never);
    if (state.approval && !state.approval.decision) {
      const r = state.approval.request;
      writer.approvalOpened({
        tenant: version.tenant,
        runId,
        ...r,
        requestedAt: prefix.at(-1)?.at ?? root.entry.at,
      });
    }
    try {
      if (o.walk === false) {
        // Left for a worker: no lease, and the workers are woken in the same transaction.
        writer.leaseWith({ op: 'release' });
        await writer.commit();
      } else {
        writer.leaseWith(this.inlineLease);
        const fx = await this.effectsFor(version.tenant, state, version);
        await this.controls.walk(writer, version, fx, await this.walkOptions(state), true);
      }
    } catch (e) {
      const raced =
        isKeelError(e) && e.code === ErrorCode.headConflict
          ? await this.store.runs.getRun(version.tenant, runId)
          : undefined;
      if (raced) return { run: summaryOf(raced), created: false };
      throw e;
    }
    return { run: stateSummary(state), created: true };
  }

  /**
   * A run with its pinned version and its folded state, for acting on it: another tenant's run is
   * "not found", and a run whose ledger, row or pinned spec does not verify is refused
   * (`ledger_invalid`, run-integrity.ts) before anything is done.
   */
  async load(tenant: string, runId: string) {
    let run = await this.store.runs.getRun(tenant, runId);
    if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
    let stored = await this.store.ledger.readEntries(tenant, runId);
    // A ledger past the row's head may only mean a walker appended between the two reads: read
    // both again (a bounded number of times) before calling it a row that disagrees with its ledger.
    for (let i = 0; i < HEAD_RETRIES && stored.length > run.head.seq + 1; i++) {
      const now = await this.store.runs.getRun(tenant, runId);
      if (!now || now.head.seq === run.head.seq) break;
      run = now;
      stored = await this.store.ledger.readEntries(tenant, runId);
    }
    const version = await this.store.registry.getVersion(tenant, run.workflowId, run.version);
    // The row is checked against its root before the version it names is relied on.
    const checked = checkStoredRun(run, stored, version);
    await this.checkEvidence(run, checked.state, stored);
    return { run, stored, ...checked };
  }

  /**
   * What `verify` checks beside the ledger and row, before any action: the pending-approval rows,
   * the last checkpointed head, the witness (run-evidence.ts). Throws `ledger_invalid`.
   */
  private async checkEvidence(
    run: Pick<RunRecord, 'tenant' | 'runId'>,
    state: RunState,
    stored: readonly StoredEntry[],
  ): Promise<void> {
    const problem = await runEvidenceProblem(
      this.store,
      run,
      state.head,
      openRequest(state),
      (seq) => stored[seq]?.hash,
      this.witness,
    );
    if (problem) throw refuseUnverified(run.runId, problem);
  }
}
