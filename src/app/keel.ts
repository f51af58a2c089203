/**
 * The composition root: `createKeel(config)` wires concrete adapters (a SQLite store unless one is
 * given, system sources, a witness directory) into the engine, the lifecycle and the worker, and
 * composes Keel's services from them — workflows, events, runs, approvals, the lifecycle, API keys,
 * writs, idempotency records and the audit query — as the `Keel` interface declares them
 * (keel-api.ts; docs/architecture.md maps them). This is the only module that names concrete
 * adapters; every service it returns is tenant-scoped. It holds no logic of its own: each service
 * is its own module.
 */
import { hostname } from 'node:os';
import { goneLeaseOwners, goneOwnersAmong, leaseOwnerName, systemSources } from '../adapters/system/index.ts';
import { DirectoryWitness } from '../adapters/witness/index.ts';
import { TERMINAL_STATUSES } from '../core/ledger/index.ts';
import { delegateTool, Engine, modelPlanner, ToolRegistry, type WalkMode } from '../engine/index.ts';
import type {
  CheckpointWitness,
  ModelProvider,
  Planner,
  RawSources,
  Store,
  ToolDefinition,
} from '../ports/index.ts';
import { Worker } from '../worker/index.ts';
import { apiKeysHandle } from './api-keys.ts';
import { approvalsHandle } from './approvals-handle.ts';
import { auditHandle } from './audit.ts';
import { CORE_TOOLS } from './core-tools.ts';
import { type DelegationKeysConfig, delegationKeys } from './delegation-keys.ts';
import { type ExposeEnvConfig, envExposure } from './env-exposure.ts';
import { eventDeliveries } from './event-deliveries.ts';
import { eventsHandle } from './events-handle.ts';
import { governanceConfig, type PoliciesConfig, type TrustedKeysConfig } from './governance-config.ts';
import { idempotencyHandle } from './idempotency.ts';
import type { Keel, WorkerHandleOptions } from './keel-api.ts';
import { createLifecycle, type PromotionGatesConfig } from './lifecycle/lifecycle.ts';
import { LiveActivity, type RunEnded } from './lifecycle/live-activity.ts';
import { DEFAULT_SHADOW_LIMIT } from './lifecycle/shadow-drainer.ts';
import { KeelMetrics } from './metrics.ts';
import { observedStore } from './observed-store.ts';
import { openSqliteStore } from './open-store.ts';
import { runsHandle } from './runs-handle.ts';
import { SAMPLE_TOOLS } from './sample-tools.ts';
import { type TraceExportConfig, TraceExporter } from './trace-export.ts';
import { type UnroutedConfig, unroutedInbox } from './unrouted.ts';
import { workflowsHandle } from './workflows-handle.ts';
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
  /** Limits of the unrouted inbox (docs/events.md): default 10,000 entries per tenant, 30 days. */
  readonly unrouted?: UnroutedConfig;
  /**
   * Where signed checkpoints are kept outside the store (docs/audit.md, "Witness"): a directory
   * (or a CheckpointWitness). Every action on a run then first checks that the store's checkpoint
   * chain holds the last checkpoint it keeps for the run's tenant, and `verify` reports it.
   */
  readonly checkpointWitness?: CheckpointWitness | string;
  /**
   * Told of background work that failed: a shadow run, an automatic rollout step, or the walk an
   * event's delivery gave a run it woke (`runId`; the run stays woken and a worker walks it).
   */
  readonly onBackgroundError?: (
    e: unknown,
    what: { tenant: string; workflowId?: string; liveRunId?: string; runId?: string },
  ) => void;
}

export type { Keel } from './keel-api.ts';

export function createKeel(config: KeelConfig): Keel {
  // Tools are checked before the store is opened: a misdeclared one changes nothing.
  const tools = new ToolRegistry([...CORE_TOOLS, delegateTool]);
  // Tools every instance has for the protocol's own use: never what a person's request means.
  const builtInTools = new Set([...CORE_TOOLS, delegateTool].map((t) => t.name));
  for (const [i, t] of (config.tools ?? []).entries()) tools.register(t, `tools[${i}]`);
  // OpenWOP's sample node types, unless the instance's own tools declare the name (sample-tools.ts).
  for (const t of SAMPLE_TOOLS)
    if (!tools.has(t.name)) {
      tools.register(t);
      builtInTools.add(t.name);
    }
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
      busy: (quietMs) => activity.busy(quietMs),
      goneOwners: async (owners) =>
        goneOwnersAmong(owners, (await store.queue.workerStatus(wallClock.now())).workers),
    },
    ...(config.onBackgroundError ? { onBackgroundError: config.onBackgroundError } : {}),
  });
  /**
   * A run that waited (for a person, a reconciliation, a resume) and has ended here: the shadow
   * work beside it, which waits for it to end, is woken (shadow-drainer.ts). Never fails the caller.
   */
  const ended: RunEnded = async (tenant, r) => {
    if ((TERMINAL_STATUSES as readonly string[]).includes(r.status))
      await lifecycle.drainer
        .liveRunEnded(tenant, r.runId)
        .catch((e) => config.onBackgroundError?.(e, { tenant, liveRunId: r.runId }));
    return r;
  };
  // The index's times are operational, never recorded in a ledger: read from the wall clock, so a
  // delivery never moves the recorded sources' clock.
  const operationalNow = () => new Date(wallClock.now()).toISOString();
  const deliveries = eventDeliveries({
    store,
    engine,
    route: lifecycle.route,
    shadowWork: (liveRun, event, candidates) => lifecycle.shadows.workBeside(liveRun, event, candidates),
    now: () => operationalNow(),
    ...(config.onBackgroundError ? { onWakeError: config.onBackgroundError } : {}),
  });

  /**
   * A worker over this Keel: claims runnable runs (a dead process's too, at once, when it ran on
   * this host) and walks them from their ledger heads. `keel worker`, `keel serve`'s recovery and
   * `keel recover --all` are this, with different names and scopes.
   */
  function worker(o: WorkerHandleOptions = {}): Worker {
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
    workflows: workflowsHandle({
      registry: store.registry,
      tools,
      builtInTools,
      policyFor: (tenant) => governance?.policyFor(tenant),
      exposure,
      ...(config.isSecretEnv ? { isSecretEnv: config.isSecretEnv } : {}),
      hasModelProvider: config.modelProvider !== undefined,
      promote: lifecycle.handle.promote,
      now,
    }),
    events: eventsHandle({
      deliveries,
      shadowQueue: store.shadowQueue,
      lifecycle,
      live,
      inbox: unroutedInbox({
        store,
        now: operationalNow,
        ...(config.unrouted ? { config: config.unrouted } : {}),
        ...(metrics ? { counter: metrics.unroutedCounter } : {}),
      }),
      now: operationalNow,
    }),
    runs: runsHandle({
      store,
      engine,
      tools,
      planner,
      ...(witness ? { witness } : {}),
      replayGovernance: trust.replayGovernance,
      live,
      ended,
    }),
    approvals: approvalsHandle({ runs: store.runs, engine, live, ended }),
    keys: apiKeysHandle(store.keys, sources.clock),
    audit: auditHandle(store.ledger),
    writs: writsHandle(store, trust.writTrust, sources.clock),
    idempotency: idempotencyHandle(store.idempotency, sources.clock),
    lifecycle: lifecycle.handle,
    telemetry: { ...(metrics ? { metrics } : {}), ...(traces ? { traces } : {}) },
    close: async () => {
      await lifecycle.handle.settled();
      // Spans of runs that just finished go out first, for a bounded time: an export never holds a close.
      if (traces) await traces.close(2000);
      await store.close();
    },
  };
}
