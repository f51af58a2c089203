/**
 * `keel.workflows`: a tenant's workflow specs — validated (tools, model slots and exposed env
 * included), published as immutable DRAFT versions, listed, read back in plain words, and moved up
 * the lifecycle by a person (the lifecycle's promotion and its gates). A spec or plan module that
 * does not validate changes nothing. Versions are the registry's.
 */
import {
  type DraftCatalog,
  type EventShape,
  type ExplainPolicy,
  explainSpec,
  type ReadBack,
  withTestedValues,
} from '../core/authoring/index.ts';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Policy } from '../core/policy/index.ts';
import {
  parseSpec,
  type SpecOptions,
  specHash,
  validateSpec,
  type WorkflowSpec,
} from '../core/spec/index.ts';
import { validateValue } from '../core/tools/index.ts';
import type { ToolRegistry } from '../engine/index.ts';
import type { PrincipalKind, Promotion, Registry, VersionRecord } from '../ports/index.ts';
import type { EnvExposure } from './env-exposure.ts';
import type { LifecycleHandle } from './lifecycle/lifecycle-handle.ts';

/** A published version, and whether this call created it (false: the same content was there). */
export interface Published {
  readonly created: boolean;
  readonly record: VersionRecord;
}

export interface PublishOptions {
  /**
   * Publish even when the spec's `env:` names variables not exposed to the tenant (their runs read
   * them as unset). For Keel's own fixtures (OpenWOP conformance), never for a tenant's spec.
   */
  readonly allowUnexposedEnv?: boolean;
}

export interface WorkflowsHandle {
  /** Parses, validates (tools included) and hashes a spec without storing it. */
  validate(text: string, file: string): { spec: WorkflowSpec; specHash: Digest };
  /** Publishes a spec (YAML or JSON text) as DRAFT; the same id and version with other content is refused. */
  publish(tenant: string, text: string, file: string, by: string): Promise<Published>;
  /** Publishes a spec given as a value (as the HTTP API receives it). */
  publishObject(tenant: string, value: unknown, by: string, o?: PublishOptions): Promise<Published>;
  /** Checks a plan module (`*.plan.ts`) for determinism, evaluates it in the sandbox and validates its spec. */
  validatePlan(path: string): Promise<{ spec: WorkflowSpec; specHash: Digest }>;
  /** Publishes the spec a plan module yields. */
  publishPlan(tenant: string, path: string, by: string): Promise<Published>;
  /** Moves a version (the newest unless `version` is given) to another status, as `by`. */
  /**
   * Moves a version one step up (only when its gate is met, or `override` gives why a person
   * promotes without it) or any step down; `principal: 'service'` is refused. docs/lifecycle.md.
   */
  promote(
    tenant: string,
    workflowId: string,
    to: string,
    by: string,
    version?: number,
    o?: { override?: string; principal?: PrincipalKind },
  ): Promise<Promotion>;
  list(tenant: string, workflowId?: string): Promise<VersionRecord[]>;
  get(tenant: string, workflowId: string, version?: number): Promise<VersionRecord | undefined>;
  promotions(tenant: string, workflowId: string): Promise<Promotion[]>;
  /** `spec` read back in plain words (keel explain) over the tools and the tenant's current policy. */
  explain(tenant: string, spec: WorkflowSpec): ReadBack;
  /** What a draft for `tenant` is compiled and read back against: the tools, `events`, the policy. */
  draftCatalog(tenant: string, events?: readonly EventShape[]): DraftCatalog;
  /**
   * `events` with the values the tenant's reviewed workflows (every version past DRAFT) test of
   * their fields (core/authoring/tested-values.ts): "enterprise" is a plan once a LIVE workflow tests it.
   */
  draftEvents(tenant: string, events: readonly EventShape[]): Promise<EventShape[]>;
}

export interface WorkflowsDeps {
  readonly registry: Registry;
  readonly tools: ToolRegistry;
  /**
   * The instance's own building blocks (Keel's `core.*` tools, OpenWOP's sample nodes no tool of
   * the instance replaced): left out of a draft's catalog, which holds the tools people use.
   */
  readonly builtInTools: ReadonlySet<string>;
  /** The tenant's current policy, if one is configured. */
  readonly policyFor: (tenant: string) => Policy | undefined;
  readonly exposure: EnvExposure;
  /** Which env names hold secrets (KeelConfig.isSecretEnv). */
  readonly isSecretEnv?: (name: string) => boolean;
  /** Whether this Keel has a model provider: without one, a spec with a model slot is refused. */
  readonly hasModelProvider: boolean;
  /** A lifecycle move (the lifecycle's promotion, gates and all). */
  readonly promote: LifecycleHandle['promote'];
  /** ISO time now (the sources' clock): when a version is published. */
  readonly now: () => string;
}

export function workflowsHandle(d: WorkflowsDeps): WorkflowsHandle {
  const { registry, tools, exposure, now } = d;
  const knownTool = (name: string) => tools.has(name);
  const specOptions: SpecOptions = {
    knownTool,
    ...(d.isSecretEnv ? { isSecretEnv: d.isSecretEnv } : {}),
    describeTool: (name) => tools.get(name),
    checkModelSlot: ({ schema }) => {
      if (!d.hasModelProvider) {
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
    return registry.putVersion({
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
    const policy = d.policyFor(tenant);
    return policy ? { policy, tenant } : undefined;
  };

  const workflows: WorkflowsHandle = {
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
      const { promotion } = await d.promote(
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
      registry.listVersions(tenant, workflowId),
    get: (tenant: string, workflowId: string, version?: number) =>
      registry.getVersion(tenant, workflowId, version),
    promotions: (tenant: string, workflowId: string) => registry.listPromotions(tenant, workflowId),
    /** `spec` read back in plain words over this Keel's tools and the tenant's current policy. */
    explain(tenant: string, spec: WorkflowSpec): ReadBack {
      return explainSpec(spec, tools.catalog(), governedBy(tenant));
    },
    async draftEvents(tenant: string, events: readonly EventShape[]): Promise<EventShape[]> {
      if (events.length === 0) return [...events];
      const reviewed = (await registry.listVersions(tenant)).filter((r) => r.status !== 'DRAFT');
      return withTestedValues(
        events,
        reviewed.map((r) => r.spec),
      );
    },
    /** What a draft for `tenant` is compiled and read back against: the tools, `events`, the policy. */
    draftCatalog(tenant: string, events?: readonly EventShape[]): DraftCatalog {
      const governed = governedBy(tenant);
      return {
        tools: tools.catalog().filter((t) => !d.builtInTools.has(t.name)),
        ...(events ? { events } : {}),
        ...(governed ? { policy: governed } : {}),
      };
    },
  };
  return workflows;
}
