/**
 * The composition root: `createKeel(config)` wires concrete adapters (SQLite store, system
 * sources) into the engine and returns typed handles for workflows, events, runs and approvals.
 * This is the only module that names concrete adapters; everything it returns is tenant-scoped.
 */
import { hostname } from 'node:os';
import { goneLeaseOwners, goneOwnersAmong, leaseOwnerName, systemSources } from '../adapters/system/index.ts';
import { DirectoryWitness } from '../adapters/witness/index.ts';
import {
  type DraftCatalog,
  type EventShape,
  type ExplainPolicy,
  explainSpec,
  type ReadBack,
} from '../core/authoring/index.ts';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import { requireInstantBound } from '../core/instant.ts';
import {
  decodeEntry,
  type Entry,
  type PolicyEntry,
  RUN_STATUSES,
  type RunStatus,
  type StoredEntry,
  TERMINAL_STATUSES,
  type VerifyResult,
} from '../core/ledger/index.ts';
import { type ApprovalCause, approvalCause, describeEntry, parseEvent } from '../core/run/index.ts';
import {
  parseSpec,
  type SpecOptions,
  specHash,
  validateSpec,
  type WorkflowSpec,
} from '../core/spec/index.ts';
import { formatTraceParent, parseTraceParent } from '../core/telemetry/index.ts';
import { validateValue } from '../core/tools/index.ts';
import {
  delegateTool,
  Engine,
  modelPlanner,
  openRequest,
  type ReconcileRequest,
  type ReplayResult,
  type RunSummary,
  refuseUnverified,
  replayRun,
  ToolRegistry,
  verifyRun,
  type WalkMode,
} from '../engine/index.ts';
import type {
  CheckpointWitness,
  ModelProvider,
  PendingApproval,
  Planner,
  PrincipalKind,
  Promotion,
  RawSources,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  ToolDefinition,
  VersionRecord,
} from '../ports/index.ts';
import { Worker, type WorkerOptions } from '../worker/index.ts';
import { apiKeysHandle } from './api-keys.ts';
import { auditHandle } from './audit.ts';
import { CORE_TOOLS } from './core-tools.ts';
import { type DelegationKeysConfig, delegationKeys } from './delegation-keys.ts';
import { type ExposeEnvConfig, envExposure } from './env-exposure.ts';
import { eventDeliveries, LIBRARY_CHANNEL } from './event-deliveries.ts';
import { governanceConfig, type PoliciesConfig, type TrustedKeysConfig } from './governance-config.ts';
import { idempotencyHandle } from './idempotency.ts';
import { createLifecycle, type PromotionGatesConfig } from './lifecycle/lifecycle.ts';
import { LiveActivity } from './lifecycle/live-activity.ts';
import { DEFAULT_SHADOW_LIMIT } from './lifecycle/shadow-drainer.ts';
import { KeelMetrics } from './metrics.ts';
import { observedStore } from './observed-store.ts';
import { openSqliteStore } from './open-store.ts';
import { type TraceExportConfig, TraceExporter } from './trace-export.ts';
import { storedWritTrust, writsHandle } from './writ-trust.ts';

export interface KeelConfig {
  /**
   * A Store, or a path to a SQLite file (`:memory:` for a throwaway store). For PostgreSQL, pass
   * `await openStore('postgres://…')` (open-store.ts): a URL string here is refused.
   */
  readonly store: Store | string;
  readonly tools?: readonly ToolDefinition[];
  /** Clock, random and env; the real ones by default. */
  readonly sources?: RawSources;
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * `inline` (default): emitting, starting, approving and reconciling walk the run in the caller.
   * `enqueue`: they commit the run as running and leave the walk to `keel worker` processes.
   */
  readonly walk?: WalkMode;
  /**
   * Per-tenant policies (`{ acme: parsePolicy(text, file) }`, or a function of the tenant): every
   * proposal of a tenant's runs is judged by its policy, and the decision with its trace is
   * ledgered before anything executes. A tenant without one gets the core checks only.
   */
  readonly policies?: PoliciesConfig;
  /**
   * Per-tenant Ed25519 public keys (KeyObjects or PEM text) trusted to sign writs. A run started
   * with `{ writ }` is refused unless the chain verifies against its tenant's keys.
   */
  readonly trustedKeys?: TrustedKeysConfig;
  /**
   * Answers the model slots of specs (`{"$model": {prompt, schema}}`, docs/planner.md); each answer
   * is ledgered as source `x-model`. Absent: a spec with a model slot is refused at validate/publish.
   */
  readonly modelProvider?: ModelProvider;
  /** How many times a schema-invalid answer of a metering provider is asked again (2 by default). */
  readonly modelRetries?: number;
  /** Fills model slots; the model planner by default (inert on steps without slots). */
  readonly planner?: Planner;
  /**
   * Per-tenant Ed25519 private keys (KeyObjects or PKCS#8 PEM) that sign the child writs of
   * `core.delegate` steps; each one's public key must be among the tenant's `trustedKeys`.
   */
  readonly delegationKeys?: DelegationKeysConfig;
  /**
   * Which process environment variables each tenant's runs may read (`{{env.NAME}}`): a map from
   * tenant (or `"*"`, every tenant) to names, or a function of the tenant. Nothing by default: a
   * spec whose `env:` names another variable is refused at publish, and any other name reads as
   * unset (env-exposure.ts).
   */
  readonly exposeEnv?: ExposeEnvConfig;
  /** Which env names hold secrets (recorded as a keyed hash, never in clear); `SECRET_ENV` by default. */
  readonly isSecretEnv?: (name: string) => boolean;
  /**
   * Promotion gate thresholds per tenant (docs/lifecycle.md): a map from tenant to thresholds, or
   * a function of the tenant; what is not given is the default (DEFAULT_GATES).
   */
  readonly promotionGates?: PromotionGatesConfig;
  /**
   * How many shadow runs of a tenant this process walks at once (default 8; a number also bounds
   * all tenants together); past it, shadow work waits in the queue. 0: this process leaves them to
   * others (`keel serve`, `keel worker`).
   */
  readonly maxShadowRuns?: number | ((tenant: string) => number);
  /**
   * Export each run's spans (projected from its ledger) to an OpenTelemetry collector when it
   * finishes (trace-export.ts; `traceExportFromEnv` reads the OTEL_* variables). Absent: nothing
   * of it is loaded and nothing is done per step.
   */
  readonly traces?: TraceExportConfig;
  /** Count commits for `GET /metrics` (metrics.ts); `keel serve` turns it on. */
  readonly metrics?: boolean;
  /**
   * Where signed checkpoints are kept outside the store (docs/audit.md, "Witness"): a directory
   * (or a CheckpointWitness). Every action on a run then first checks that the store's checkpoint
   * chain holds the last checkpoint it keeps for the run's tenant, and `verify` reports it.
   */
  readonly checkpointWitness?: CheckpointWitness | string;
  /** Told of background lifecycle work that failed (a shadow run, an automatic rollout step). */
  readonly onBackgroundError?: (
    e: unknown,
    what: { tenant: string; workflowId?: string; liveRunId?: string },
  ) => void;
}

export interface HistoryLine {
  readonly seq: number;
  readonly at: string;
  readonly kind: string;
  readonly text: string;
}

export interface EmitResult {
  readonly eventId: string;
  /** The event's source: as given, or the channel's name when it gave none. */
  readonly source: string;
  readonly runs: readonly (RunSummary & { created: boolean })[];
  /** Set when the event was delivered before with the same content: these are its first runs. */
  readonly redelivery?: true;
  /** With `redelivery`: when the event was first delivered. */
  readonly firstDeliveredAt?: string;
}

export interface EmitOptions extends StartOptions {
  /**
   * The channel the event came through: its source when it gives none (`cli` for `keel emit`,
   * `http` for `POST /api/events`; `library` by default).
   */
  readonly channel?: string;
}

/**
 * A pending approval as an approver is shown it, from the run's ledger: the request
 * (`approval.requested`: step, tool, args, costCents, reason, channel, the policy's record with its
 * trace when a policy was checked), the run's workflow and pinned version, and why it waits
 * (`cause`). A run that fails verification is listed with `invalid` and none of these but its id.
 */
export interface PendingApprovalItem extends PendingApproval {
  readonly workflowId?: string;
  readonly version?: number;
  readonly costCents?: number;
  readonly policy?: PolicyEntry;
  /** `policy`: a rule of `policy` (its `rule`, its `trace`); `destructive`: the guardrail; `gate`: the tool always asks. */
  readonly cause?: ApprovalCause;
}

/** What `runs.counts` counts: the runs of a workflow (of one version), created in a time range. */
export interface RunCountFilter {
  readonly workflowId?: string;
  readonly version?: number;
  /** ISO 8601 instants with a zone: runs created at or after `since`, and before `until`. */
  readonly since?: string;
  readonly until?: string;
}

/** A tenant's runs by status (every status, 0 where none), and their sum. */
export interface RunCounts {
  readonly counts: Record<RunStatus, number>;
  readonly total: number;
}

/**
 * A filter's `since` and `until` as the stores compare them (the clock's text, instantBound); one
 * that is not an RFC 3339 instant is a usage error naming it (requireInstantBound).
 */
function timeRange<F extends { since?: string; until?: string }>(f: F): F {
  const out: { since?: string; until?: string } = { ...f };
  for (const field of ['since', 'until'] as const) {
    const v = f[field];
    if (v === undefined) continue;
    out[field] = requireInstantBound(field, v);
  }
  return out as F;
}

export interface StartOptions {
  readonly walk?: WalkMode;
  /** The writ the run executes under: a writ file's value `{chain: [root, ..., writ]}`, or the chain. */
  readonly writ?: { readonly chain: readonly unknown[] } | readonly unknown[];
  /**
   * The W3C `traceparent` of the request that starts the run: recorded in its root when valid
   * (the run's span becomes the caller's child), ignored when not (as W3C Trace Context asks).
   */
  readonly traceparent?: string;
}

export interface PublishOptions {
  /**
   * Publish even when the spec's `env:` names variables not exposed to the tenant (their runs read
   * them as unset). For Keel's own fixtures (OpenWOP conformance), never for a tenant's spec.
   */
  readonly allowUnexposedEnv?: boolean;
}

/** Versions shown to behave: a run of one acts unless it is a test or a shadow. */
const ROUTABLE_STATUSES: readonly string[] = ['LIVE', 'AUTONOMOUS'];

/** What a simulated direct run (`runs.start` of a version not yet shown to behave) is named as. */
const DIRECT_TEST = { name: 'run', approvals: 'approve' } as const;

function startOptions(o: StartOptions): { walk?: WalkMode; writ?: readonly unknown[]; traceparent?: string } {
  const w = o.writ;
  const chain = w === undefined ? undefined : Array.isArray(w) ? w : (w as { chain?: unknown }).chain;
  if (w !== undefined && !Array.isArray(chain))
    throw new KeelError(ErrorCode.writInvalid, 'writ: expected {"chain": [root, ..., writ]} or the chain', {
      field: 'writ',
    });
  const trace = o.traceparent === undefined ? undefined : parseTraceParent(o.traceparent);
  return {
    ...(o.walk ? { walk: o.walk } : {}),
    ...(chain ? { writ: chain as readonly unknown[] } : {}),
    ...(trace?.ok ? { traceparent: formatTraceParent(trace.value) } : {}),
  };
}

export type { Keel } from './keel-api.ts';

export function createKeel(config: KeelConfig) {
  // Tools are checked before the store is opened: a misdeclared one changes nothing.
  const tools = new ToolRegistry([...CORE_TOOLS, delegateTool]);
  for (const [i, t] of (config.tools ?? []).entries()) tools.register(t, `tools[${i}]`);
  const raw =
    typeof config.store === 'string' ? openSqliteStore(config.store, config.synchronous) : config.store;
  // Commits are watched only for what is configured: without traces or metrics the store is as given.
  const metrics = config.metrics ? new KeelMetrics(() => raw) : undefined;
  const traces = config.traces ? new TraceExporter(raw.ledger, config.traces) : undefined;
  const observers = [...(metrics ? [metrics] : []), ...(traces ? [traces] : [])];
  const store = observers.length > 0 ? observedStore(raw, observers) : raw;
  const witness =
    typeof config.checkpointWitness === 'string'
      ? new DirectoryWitness(config.checkpointWitness)
      : config.checkpointWitness;
  const delegationKeyFor = delegationKeys(config.delegationKeys);
  const sources = config.sources ?? systemSources();
  const wallClock = systemSources().clock;
  /** Holders of live leases that are processes of this host which no longer exist. */
  const goneOwners = async () => goneLeaseOwners(await store.queue.workerStatus(wallClock.now()));
  // Configured keys plus each tenant's stored keys and revoked writs (writ-trust.ts).
  const trust = storedWritTrust(store, governanceConfig(config.policies, config.trustedKeys));
  const governance = trust.governance;
  const planner = config.planner ?? modelPlanner();
  const exposure = envExposure(config.exposeEnv);
  const engine = new Engine({
    store,
    tools,
    sources,
    ...(config.walk ? { walk: config.walk } : {}),
    ...(governance ? { governance } : {}),
    planner,
    ...(config.modelProvider ? { modelProvider: config.modelProvider } : {}),
    ...(config.modelRetries !== undefined ? { modelRetries: config.modelRetries } : {}),
    ...(delegationKeyFor ? { delegationKeyFor } : {}),
    exposesEnv: exposure.exposes,
    ...(config.isSecretEnv ? { isSecretEnv: config.isSecretEnv } : {}),
    leaseOwner: leaseOwnerName('inline'),
    // Leases are operational, never recorded: they are read against the wall clock, whatever the sources.
    leaseClock: wallClock,
    goneOwners,
    ...(witness ? { witness } : {}),
  });
  const now = () => new Date(sources.clock.now()).toISOString();
  const shadowLimit = config.maxShadowRuns ?? DEFAULT_SHADOW_LIMIT;
  // Live work in hand in this process: background shadow work yields to it.
  const activity = new LiveActivity(() => wallClock.now());
  const live = <T>(fn: () => Promise<T>) => activity.around(fn);
  /** More live work to yield to (a `keel worker`'s walks), added by `lifecycle.shadowQueue.run`. */
  const extraBusy: (() => boolean)[] = [];
  const lifecycle = createLifecycle({
    engine,
    store,
    tools,
    planner,
    now,
    ...(config.promotionGates ? { gates: config.promotionGates } : {}),
    policyFor: (tenant) => governance?.policyFor(tenant),
    shadowQueue: {
      owner: leaseOwnerName('shadows'),
      limit: typeof shadowLimit === 'function' ? shadowLimit : () => shadowLimit,
      concurrency: typeof shadowLimit === 'number' ? Math.max(shadowLimit, 1) : DEFAULT_SHADOW_LIMIT,
      clock: () => wallClock.now(),
      busy: (quietMs) => activity.busy(quietMs) || extraBusy.some((b) => b()),
      goneOwners: async (owners) =>
        goneOwnersAmong(owners, (await store.queue.workerStatus(wallClock.now())).workers),
    },
    ...(config.onBackgroundError ? { onBackgroundError: config.onBackgroundError } : {}),
  });
  /**
   * A run that waited (for a person, a reconciliation, a resume) and has ended here: the shadow
   * work beside it, which waits for it to end, is woken (shadow-drainer.ts). Never fails the caller.
   */
  const ended = async <R extends { runId: string; status: string }>(tenant: string, r: R): Promise<R> => {
    if ((TERMINAL_STATUSES as readonly string[]).includes(r.status))
      await lifecycle.drainer
        .liveRunEnded(tenant, r.runId)
        .catch((e) => config.onBackgroundError?.(e, { tenant, liveRunId: r.runId }));
    return r;
  };
  const knownTool = (name: string) => tools.has(name);
  const specOptions: SpecOptions = {
    knownTool,
    ...(config.isSecretEnv ? { isSecretEnv: config.isSecretEnv } : {}),
    describeTool: (name) => tools.get(name),
    checkModelSlot: ({ schema }) => {
      if (!config.modelProvider) {
        return 'this argument is open for a model, but this Keel has no model provider (createKeel({ modelProvider }), or KEEL_MODEL_PROVIDER for the keel command: docs/models.md)';
      }
      try {
        validateValue(schema, null);
      } catch (e) {
        return `the slot schema is not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`;
      }
      return undefined;
    },
  };

  async function getRun(tenant: string, runId: string): Promise<RunRecord> {
    const run = await store.runs.getRun(tenant, runId);
    if (!run) throw new KeelError(ErrorCode.notFound, `run ${runId} not found`, { runId });
    return run;
  }

  async function publishSpec(
    tenant: string,
    spec: WorkflowSpec,
    file: string,
    by: string,
    o: PublishOptions = {},
  ) {
    if (!o.allowUnexposedEnv) exposure.checkSpec(spec, tenant, file);
    // Going beyond DRAFT is a person's recorded decision (`promote`), never a line in a file.
    if (spec.status !== 'DRAFT') {
      throw new KeelError(
        ErrorCode.specInvalid,
        `${file}: status: a version is published as DRAFT, got ${spec.status}; publish it as DRAFT, then promote it one step at a time (\`keel promote ${spec.id} TESTING\`, \`keel test ${spec.id}\`, ...; docs/lifecycle.md)`,
        { problems: [{ file, field: 'status', message: `expected DRAFT at publish, got ${spec.status}` }] },
      );
    }
    return store.registry.putVersion({
      tenant,
      workflowId: spec.id,
      version: spec.version,
      specHash: specHash(spec),
      spec,
      status: spec.status,
      publishedAt: now(),
      publishedBy: by,
    });
  }

  /** The tenant's current policy, for reading specs against (explainSpec); none when unconfigured. */
  const governedBy = (tenant: string): ExplainPolicy | undefined => {
    const policy = governance?.policyFor(tenant);
    return policy ? { policy, tenant } : undefined;
  };

  const workflows = {
    /** Parses, validates (tools included) and hashes a spec without storing it. */
    validate(text: string, file: string): { spec: WorkflowSpec; specHash: Digest } {
      const spec = parseSpec(text, file, specOptions);
      return { spec, specHash: specHash(spec) };
    },
    async publish(tenant: string, text: string, file: string, by: string) {
      return publishSpec(tenant, parseSpec(text, file, specOptions), file, by);
    },
    async publishObject(tenant: string, value: unknown, by: string, o: PublishOptions = {}) {
      return publishSpec(tenant, validateSpec(value, '(request)', specOptions), '(request)', by, o);
    },
    /**
     * Loads a plan module (`*.plan.ts`): the determinism check first (any finding refuses it), then
     * evaluation in the sandbox and `validateSpec`. Loaded on demand: TypeScript and QuickJS are
     * only read when a plan module is used.
     */
    async validatePlan(path: string): Promise<{ spec: WorkflowSpec; specHash: Digest }> {
      const { loadPlanModule } = await import('../plan/index.ts');
      return loadPlanModule(path, specOptions);
    },
    /** Publishes the spec a plan module yields, exactly as `publishObject` publishes a spec value. */
    async publishPlan(tenant: string, path: string, by: string) {
      const { spec } = await workflows.validatePlan(path);
      return publishSpec(tenant, spec, path, by);
    },
    /**
     * Moves a version (the newest unless `version`) one step: up only when its gate is met
     * (docs/lifecycle.md) or `override` gives the reason a person promotes without it; down always.
     * Only a person may promote (`principal` `service` is refused). Returns the chained record.
     */
    async promote(
      tenant: string,
      workflowId: string,
      to: string,
      by: string,
      version?: number,
      o: { override?: string; principal?: PrincipalKind } = {},
    ): Promise<Promotion> {
      const { promotion } = await lifecycle.promote(
        tenant,
        workflowId,
        to,
        { by, ...(o.principal ? { kind: o.principal } : {}) },
        {
          ...(version !== undefined ? { version } : {}),
          ...(o.override !== undefined ? { override: o.override } : {}),
        },
      );
      return promotion;
    },
    list: (tenant: string, workflowId?: string): Promise<VersionRecord[]> =>
      store.registry.listVersions(tenant, workflowId),
    get: (tenant: string, workflowId: string, version?: number) =>
      store.registry.getVersion(tenant, workflowId, version),
    promotions: (tenant: string, workflowId: string) => store.registry.listPromotions(tenant, workflowId),
    /** `spec` read back in plain words over this Keel's tools and the tenant's current policy. */
    explain(tenant: string, spec: WorkflowSpec): ReadBack {
      return explainSpec(spec, tools.catalog(), governedBy(tenant));
    },
    /** What a draft for `tenant` is compiled and read back against: the tools, `events`, the policy. */
    draftCatalog(tenant: string, events?: readonly EventShape[]): DraftCatalog {
      const governed = governedBy(tenant);
      return {
        tools: tools.catalog(),
        ...(events ? { events } : {}),
        ...(governed ? { policy: governed } : {}),
      };
    },
  };

  // The index's times are operational, never recorded in a ledger: read from the wall clock, so a
  // delivery never moves the recorded sources' clock.
  const deliveries = eventDeliveries({
    store,
    engine,
    route: lifecycle.route,
    shadowWork: (liveRun, event, candidates) => lifecycle.shadows.workBeside(liveRun, event, candidates),
    now: () => new Date(wallClock.now()).toISOString(),
  });

  const events = {
    /**
     * Delivers an event: validated, named by `(source, id)` (source `channel` when it gives none),
     * and on its first delivery one run started per matching workflow (its latest LIVE or
     * AUTONOMOUS version, or the version a rollout's bucket chooses). A redelivery with the same
     * content answers those runs (`redelivery`), one with other content is event_conflict and starts
     * nothing (event-deliveries.ts). With `writ` each run executes under it.
     */
    emit: (tenant: string, value: unknown, o: EmitOptions = {}): Promise<EmitResult> =>
      live(async () => {
        const channel = o.channel ?? LIBRARY_CHANNEL;
        if (typeof channel !== 'string' || channel === '' || channel.length > 512)
          throw new KeelError(ErrorCode.usage, 'channel: expected 1-512 characters', { field: 'channel' });
        const so = startOptions(o);
        const delivery = await deliveries.deliver(tenant, value, channel, so.writ ? { writ: so.writ } : {});
        const { event } = delivery;
        const runs: (RunSummary & { created: boolean })[] = [];
        for (const routed of delivery.runs) {
          const { run, created, queued } = await deliveries.start(tenant, routed, event, so);
          runs.push({ ...run, created });
          if (created) lifecycle.drainer.queued(queued);
          if (routed.split) lifecycle.tick(tenant, routed.workflowId);
        }
        // Every SHADOW version is compared on every event of its workflow: where no live version
        // starts, the candidates whose triggers match run alone (queued, off this path).
        for (const u of delivery.untaken) {
          const alone = lifecycle.shadows.workAlone(u.live, event, u.candidates);
          if (alone.length > 0) {
            await store.shadowQueue.enqueueShadowWork(alone);
            lifecycle.drainer.queued(alone);
          }
        }
        return {
          eventId: event.id,
          source: event.source,
          runs,
          ...(delivery.redeliveryOf !== undefined
            ? { redelivery: true as const, firstDeliveredAt: delivery.redeliveryOf }
            : {}),
        };
      }),
    /** The first delivery of the event `(source, id)`: its content's hash and the runs it chose. */
    delivered: deliveries.get,
    /** Redeliveries refused as event_conflict, the most recent first (one per content, counted). */
    conflicts: deliveries.conflicts,
  };

  const runs = {
    get: getRun,
    /**
     * Starts a run of one workflow directly (any status: this is how DRAFT and TESTING versions are
     * tried), for an event that need not match a trigger. The newest version unless `version` is given.
     * Its id is derived apart from the run routing the same event makes (`emit`), so trying a
     * version never takes the name of its later LIVE run. A version not yet shown to behave
     * (DRAFT, TESTING, SHADOW) runs simulated — the test run named `run` of that event: no write or
     * external tool acts, nobody is asked — unless `live` asks for its effects.
     */
    async start(
      tenant: string,
      workflowId: string,
      eventValue: unknown,
      o: StartOptions & { version?: number; live?: boolean } = {},
    ): Promise<RunSummary & { created: boolean; simulated?: true }> {
      const event = parseEvent(eventValue, tenant);
      if (o.live !== undefined && typeof o.live !== 'boolean')
        throw new KeelError(ErrorCode.usage, `live: expected true or false, got ${JSON.stringify(o.live)}`, {
          field: 'live',
        });
      const v = await store.registry.getVersion(tenant, workflowId, o.version);
      if (!v) {
        throw new KeelError(
          ErrorCode.notFound,
          `workflow ${workflowId}${o.version ? ` v${o.version}` : ''} not found`,
          {
            workflowId,
            version: o.version,
          },
        );
      }
      const so = startOptions(o);
      if (!o.live && !ROUTABLE_STATUSES.includes(v.status)) {
        if (so.writ)
          throw new KeelError(
            ErrorCode.usage,
            `writ: ${workflowId} v${v.version} is ${v.status}, so its run is simulated and acts under no writ; ask for live effects (live: true, keel run --live) to run it under the writ`,
            { field: 'writ', workflowId, version: v.version },
          );
        const { run, created } = await engine.startSimulated(v, event, {
          mode: 'test',
          test: DIRECT_TEST,
          ...(so.walk ? { walk: so.walk } : {}),
        });
        return { ...run, created, simulated: true as const };
      }
      const { run, created } = await live(() => engine.start(v, event, { ...so, direct: true }));
      return { ...run, created };
    },
    /**
     * Runs newest first, a page at a time; `since` (inclusive) and `until` (exclusive) bound their
     * creation time (the run root's time) and may be any ISO 8601 instant with a zone.
     */
    list: (tenant: string, filter?: RunFilter): Promise<RunPage> =>
      store.runs.listRuns(tenant, filter ? timeRange(filter) : filter),
    /** How many of the tenant's runs are in each status (of a workflow, a version, a time range). */
    async counts(tenant: string, filter: RunCountFilter = {}): Promise<RunCounts> {
      const f = timeRange(filter);
      const found = await store.runs.countRuns(tenant, {
        ...(f.workflowId !== undefined ? { workflowId: f.workflowId } : {}),
        ...(f.version !== undefined ? { version: f.version } : {}),
        ...(f.since !== undefined ? { since: f.since } : {}),
        ...(f.until !== undefined ? { until: f.until } : {}),
      });
      const counts = Object.fromEntries(RUN_STATUSES.map((st) => [st, found[st] ?? 0])) as Record<
        RunStatus,
        number
      >;
      return { counts, total: RUN_STATUSES.reduce((n, st) => n + counts[st], 0) };
    },
    async entries(tenant: string, runId: string): Promise<Entry[]> {
      await getRun(tenant, runId);
      return (await store.ledger.readEntries(tenant, runId)).map(decodeEntry);
    },
    async storedEntries(tenant: string, runId: string): Promise<StoredEntry[]> {
      await getRun(tenant, runId);
      return store.ledger.readEntries(tenant, runId);
    },
    async history(tenant: string, runId: string): Promise<HistoryLine[]> {
      return (await runs.entries(tenant, runId)).map((e) => ({
        seq: e.seq,
        at: e.at,
        kind: e.kind,
        text: describeEntry(e),
      }));
    },
    /**
     * Integrity of the stored bytes, then agreement of the run row (a projection) with its ledger,
     * then, when `engine` is given, that the run was recorded by that engine version.
     */
    async verify(tenant: string, runId: string, o: { engine?: string } = {}): Promise<VerifyResult> {
      return verifyRun(store, await getRun(tenant, runId), { ...o, ...(witness ? { witness } : {}) });
    },
    recover: (tenant: string, runId: string) => engine.recover(tenant, runId).then((r) => ended(tenant, r)),
    /**
     * Records whether a suspended (outcome_unknown) step's effect happened, as a person found out
     * on the tool's side, then continues the run (or leaves it to a worker).
     */
    reconcile: (tenant: string, runId: string, r: ReconcileRequest & { walk?: WalkMode }) =>
      engine.reconcile(tenant, runId, r).then((s) => ended(tenant, s)),
    /**
     * Cancels a run that has not finished, as `by`: a walk in this process is stopped (its current
     * tool call aborted), any other run gets `run.finished` cancelled; its pending approval closes.
     * A finished run throws run_terminal. Returns the run, now cancelled.
     */
    cancel: (tenant: string, runId: string, c: { by: string; reason?: string }): Promise<RunSummary> =>
      engine.cancel(tenant, runId, c).then((r) => ended(tenant, r)),
    /**
     * Holds a running run at its next step boundary; no step starts until `resume`. `immediate`
     * also cuts an idempotent tool's call in progress (it is made again on resume).
     */
    pause: (
      tenant: string,
      runId: string,
      c: { by: string; reason?: string; drainPolicy?: 'drain-current-node' | 'immediate' },
    ): Promise<RunSummary> => engine.pause(tenant, runId, c),
    /** Resumes a paused run, walking on here (inline) or leaving it to a worker (`walk: 'enqueue'`). */
    resume: (tenant: string, runId: string, c: { by: string; walk?: WalkMode }): Promise<RunSummary> =>
      engine.resume(tenant, runId, c).then((r) => ended(tenant, r)),
    /**
     * Re-executes the run against its own ledger, serving everything from the record, and compares.
     * A ledger (or row, or pinned spec) that fails verification is refused first (ledger_invalid):
     * replaying it would regenerate the edit and report it "identical".
     */
    async replay(tenant: string, runId: string): Promise<ReplayResult> {
      const run = await getRun(tenant, runId);
      const verified = await verifyRun(store, run, witness ? { witness } : {});
      if (!verified.ok) throw refuseUnverified(runId, verified.failure);
      const version = await store.registry.getVersion(tenant, run.workflowId, run.version);
      if (!version || version.specHash !== run.specHash) {
        throw new KeelError(
          ErrorCode.notFound,
          `run ${runId} is pinned to ${run.workflowId} v${run.version}, which is not in this store`,
          {
            runId,
          },
        );
      }
      return replayRun(await store.ledger.readEntries(tenant, runId), version, tools, {
        governance: await trust.replayGovernance(tenant),
        writChainOf: (t, hash) => engine.writChains.chainOf(t, hash),
        ...(planner ? { planner } : {}),
      });
    },
    /** A new run inheriting entries before `fromSeq`; `event` (branch only) is validated like an emitted one. */
    async fork(
      tenant: string,
      runId: string,
      o: { fromSeq: number; mode: string; event?: unknown; version?: number },
    ): Promise<RunSummary & { created: boolean; forkOf: string; fromSeq: number; mode: string }> {
      if (o.mode !== 'replay' && o.mode !== 'branch') {
        throw new KeelError(
          ErrorCode.usage,
          `mode: expected replay or branch, got ${JSON.stringify(o.mode)}`,
          { field: 'mode' },
        );
      }
      const { run, created } = await engine.fork(tenant, runId, {
        fromSeq: o.fromSeq,
        mode: o.mode,
        ...(o.event !== undefined ? { event: parseEvent(o.event, tenant) } : {}),
        ...(o.version !== undefined ? { version: o.version } : {}),
      });
      return { ...run, created, forkOf: runId, fromSeq: o.fromSeq, mode: o.mode };
    },
    /** A diagnostic re-execution: a new live run linked by attemptOf; the original is untouched. */
    async rerun(
      tenant: string,
      runId: string,
    ): Promise<RunSummary & { created: boolean; attemptOf: string }> {
      const { run, created } = await engine.rerun(tenant, runId);
      return { ...run, created, attemptOf: runId };
    },
  };

  /**
   * What an approver is shown: each pending approval as the run's ledger records it, never as the
   * approvals table (a projection) says. Runs with a pending row or a waiting status are read and
   * checked; one that does not verify is listed with `invalid` and nothing else of it, and a row for a
   * run whose ledger waits for nothing is not listed (`keel verify` reports it).
   */
  async function pendingApprovals(tenant: string, runId?: string): Promise<PendingApprovalItem[]> {
    const rows = await store.runs.listPendingApprovals(tenant, runId);
    const ids = new Set(rows.map((r) => r.runId));
    if (runId === undefined) {
      for (let cursor: string | undefined; ; ) {
        const page = await store.runs.listRuns(tenant, {
          status: 'waiting_approval',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        for (const r of page.runs) ids.add(r.runId);
        if (!page.next) break;
        cursor = page.next;
      }
    } else if ((await store.runs.getRun(tenant, runId))?.status === 'waiting_approval') ids.add(runId);
    const out: PendingApprovalItem[] = [];
    for (const id of ids) {
      try {
        const { state, entries } = await engine.load(tenant, id);
        const request = openRequest(state);
        if (!request) continue;
        const at = entries.findLast((e) => e.kind === 'approval.requested')?.at ?? '';
        out.push({
          tenant,
          runId: id,
          workflowId: state.workflowId,
          version: state.version,
          ...request,
          cause: approvalCause(request),
          requestedAt: at,
        });
      } catch (e) {
        if (!(isKeelError(e) && e.code === ErrorCode.ledgerInvalid)) throw e;
        // Nothing of a run that fails verification is shown as if it were true: neither its row
        // (a projection anyone with the database can edit) nor its ledger. Only when it was asked.
        const d = e.details as { code: string; seq: number };
        const row = rows.find((r) => r.runId === id);
        out.push({
          tenant,
          runId: id,
          proposalId: '' as Digest,
          step: '',
          tool: '',
          args: {},
          reason: '',
          channel: '',
          requestedAt: row?.requestedAt ?? '',
          invalid: { code: d.code, seq: d.seq, message: e.message },
        });
      }
    }
    return out.sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
  }

  const approvals = {
    list: pendingApprovals,
    approve: (tenant: string, runId: string, by: string, note?: string, o: { walk?: WalkMode } = {}) =>
      live(() =>
        engine.resolveApproval(tenant, runId, { decision: 'approved', by, ...(note ? { note } : {}), ...o }),
      ).then((r) => ended(tenant, r)),
    deny: (tenant: string, runId: string, by: string, note?: string, o: { walk?: WalkMode } = {}) =>
      live(() =>
        engine.resolveApproval(tenant, runId, { decision: 'denied', by, ...(note ? { note } : {}), ...o }),
      ).then((r) => ended(tenant, r)),
  };

  /**
   * A worker over this Keel: claims runnable runs (a dead process's too, at once, when it ran on
   * this host) and walks them from their ledger heads. `keel worker`, `keel serve`'s recovery and
   * `keel recover --all` are this, with different names and scopes.
   */
  function worker(
    o: Partial<Omit<WorkerOptions, 'engine' | 'store' | 'clock' | 'goneOwners'>> & { role?: string } = {},
  ): Worker {
    const { role = 'worker', ...rest } = o;
    return new Worker({
      id: leaseOwnerName(role),
      host: hostname(),
      pid: process.pid,
      ...rest,
      engine,
      store,
      clock: wallClock,
      goneOwners,
    });
  }

  return {
    store,
    tools,
    engine,
    worker,
    workflows,
    events,
    runs,
    approvals,
    keys: apiKeysHandle(store.keys, sources.clock),
    /** Ledger entries across the tenant's runs, filtered and paged, and their counts by kind. */
    audit: auditHandle(store.ledger),
    /** Stored trusted writ keys, writ revocations, and inspecting a writ for a tenant. */
    writs: writsHandle(store, trust.writTrust, sources.clock),
    idempotency: idempotencyHandle(store.idempotency, sources.clock),
    lifecycle: {
      test: lifecycle.test,
      shadowReport: lifecycle.shadowReport,
      gate: lifecycle.gate,
      promote: lifecycle.promote,
      replayGate: lifecycle.replayGate,
      rollout: lifecycle.rollout,
      diff: lifecycle.diff,
      records: lifecycle.records,
      settled: lifecycle.settled,
      shadowQueue: {
        /** The shadow queue's lag: of a tenant (one workflow, one version), or across the store. */
        status: async (filter: { tenant?: string; workflowId?: string; version?: number } = {}) => {
          const now = wallClock.now();
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
        drain: async (o: { tenant?: string; retryFailed?: boolean } = {}) => {
          const { retryFailed, ...scope } = o;
          const retried =
            retryFailed && scope.tenant !== undefined
              ? await store.shadowQueue.retryFailedShadowWork(scope.tenant)
              : 0;
          return { ...(await lifecycle.drainer.drain({ all: true, ...scope })), retried };
        },
        /**
         * Drains every tenant's queue continually in the background (`keel serve`, `keel worker`),
         * yielding to live work here and to `busy` (a worker's walks); `stop` waits for the items
         * being worked.
         */
        run(o: { pollMs?: number; busy?: () => boolean } = {}): { stop(): Promise<void> } {
          if (o.busy) extraBusy.push(o.busy);
          lifecycle.drainer.run(o.pollMs ?? 1000);
          return { stop: () => lifecycle.drainer.stop() };
        },
      },
    },
    /** Waits for the lifecycle's background work (shadow runs, automatic rollout steps), then closes the store. */
    /** Metrics (when `metrics`) and the trace exporter (when `traces`) of this Keel. */
    telemetry: { ...(metrics ? { metrics } : {}), ...(traces ? { traces } : {}) },
    close: async () => {
      await lifecycle.settled();
      // Spans of runs that just finished go out first, for a bounded time: an export never holds a close.
      if (traces) await traces.close(2000);
      await store.close();
    },
  };
}
