/**
 * Which process environment variables each tenant's runs may read (`{{env.NAME}}`): the operator's
 * exposure, from `createKeel({ exposeEnv })` (the CLI and `keel serve` fill it from `--expose-env`
 * or KEEL_EXPOSE_ENV). Nothing is exposed unless configured: a spec's `env:` list says what a
 * workflow wants to read, never what it may.
 *
 * Owns the config's normalisation (bad names refused naming the field) and the publish check: a
 * spec naming a variable not exposed to its tenant is refused, naming the variable and how the
 * operator exposes it. Never reads the environment itself; the engine's live effects ask `exposes`
 * before every read, so a name not exposed reads as unset whatever was published.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { ENV_NAME, type SpecProblem, specInvalidError, type WorkflowSpec } from '../core/spec/index.ts';

/** The exposure key that applies to every tenant. */
export const EVERY_TENANT = '*';

/**
 * Per-tenant exposed variable names: a map from tenant (or `"*"`, every tenant) to names, or a
 * function of the tenant. Absent: nothing is exposed.
 */
export type ExposeEnvConfig =
  | Readonly<Record<string, readonly string[]>>
  | ((tenant: string) => readonly string[] | undefined);

export interface EnvExposure {
  /** Whether the tenant's runs may read `name`. */
  exposes(tenant: string, name: string): boolean;
  /** Refuses (spec_invalid, one problem per name) a spec whose `env:` names a variable not exposed to the tenant. */
  checkSpec(spec: WorkflowSpec, tenant: string, file: string): void;
}

export function envExposure(config: ExposeEnvConfig | undefined): EnvExposure {
  const namesFor = normalise(config);
  const exposes = (tenant: string, name: string) => namesFor(tenant).has(name);
  return {
    exposes,
    checkSpec(spec, tenant, file) {
      const problems: SpecProblem[] = [];
      (spec.env ?? []).forEach((name, i) => {
        if (!exposes(tenant, name))
          problems.push({ file, field: `env[${i}]`, message: unexposed(name, tenant) });
      });
      if (problems.length > 0) throw specInvalidError(problems);
    },
  };
}

/** Why a spec cannot read `name`, and what the operator does to let it. */
function unexposed(name: string, tenant: string): string {
  return `env.${name} is not exposed to tenant ${tenant}, so its runs cannot read it; the operator exposes a variable to a tenant with --expose-env ${tenant}=${name} (keel serve, keel worker and every keel command; or KEEL_EXPOSE_ENV), or createKeel({ exposeEnv: { ${JSON.stringify(tenant)}: [${JSON.stringify(name)}] } })`;
}

function normalise(config: ExposeEnvConfig | undefined): (tenant: string) => ReadonlySet<string> {
  const none: ReadonlySet<string> = new Set();
  if (config === undefined) return () => none;
  if (typeof config === 'function') {
    return (tenant) => {
      const names = config(tenant);
      return names === undefined ? none : new Set(checkNames(names, `exposeEnv(${JSON.stringify(tenant)})`));
    };
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new KeelError(
      ErrorCode.usage,
      'exposeEnv: expected a map from tenant (or "*") to variable names, or a function of the tenant',
      { field: 'exposeEnv' },
    );
  }
  const byTenant = new Map<string, ReadonlySet<string>>();
  for (const [tenant, names] of Object.entries(config)) {
    if (tenant.trim() === '')
      throw new KeelError(ErrorCode.usage, 'exposeEnv: a tenant name is empty', { field: 'exposeEnv' });
    byTenant.set(tenant, new Set(checkNames(names, `exposeEnv.${tenant}`)));
  }
  const every = byTenant.get(EVERY_TENANT) ?? none;
  const merged = new Map<string, ReadonlySet<string>>();
  return (tenant) => {
    if (tenant === EVERY_TENANT) return every;
    let names = merged.get(tenant);
    if (!names) {
      const own = byTenant.get(tenant);
      names = own ? new Set([...every, ...own]) : every;
      if (own) merged.set(tenant, names);
    }
    return names;
  };
}

function checkNames(names: unknown, field: string): string[] {
  if (!Array.isArray(names)) {
    throw new KeelError(ErrorCode.usage, `${field}: expected a list of variable names`, { field });
  }
  names.forEach((name, i) => {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      throw new KeelError(
        ErrorCode.usage,
        `${field}[${i}]: expected an UPPER_CASE variable name (A-Z, 0-9, _), got ${JSON.stringify(name)}`,
        { field: `${field}[${i}]` },
      );
    }
  });
  return names as string[];
}
