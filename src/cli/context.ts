/**
 * What every command needs: the store (from --store, KEEL_STORE, KEEL_DATABASE_URL, or
 * ./.keel/keel.db), the tenant, who is acting, and the tools. The store is a SQLite file or
 * a postgres:// URL. Besides Keel's core tools, tools come only from a tool pack module
 * (--tools / KEEL_TOOLS, else the working directory's keel.tools.*; tool-pack.ts): no example's
 * tools are built in. KEEL_WORKERS=external leaves walks to `keel worker`
 * processes. --policy / --trust-keys (governance-options.ts) set the tenant's policy and trusted writ
 * keys; --expose-env (expose-env-option.ts) the env variables tenants' runs may read. Opening
 * never prints a password. What a command may do to the store (create it, write to it, only read
 * it, or open none) is store-access.ts's table; a store this command created is removed again when
 * the command fails, so a refused first `publish` leaves nothing behind.
 */

import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { Keel, OpenedStore, WalkMode } from '../app/index.ts';
import { describeStoreTarget, isPostgresUrl } from '../app/store-target.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { ModelProvider, ToolDefinition } from '../ports/index.ts';
import { exposeEnvFor } from './expose-env-option.ts';
import type { GovernanceOptions } from './governance-options.ts';
import type { CommandAccess } from './store-access.ts';
import { defaultToolPack, loadToolPack } from './tool-pack.ts';
import type { ToolOrigin } from './tools-file.ts';

export const DEFAULT_STORE = join('.keel', 'keel.db');

export interface GlobalOptions extends GovernanceOptions {
  readonly store?: string;
  /**
   * The project directory whose `.keel/keel.db` is the default store, when no store is chosen
   * (`keel init <dir>`: the store goes with the project). Never a flag; the working directory when unset.
   */
  readonly projectDir?: string;
  /** The checkpoint witness, a directory (or one checkpoint's file) (env KEEL_CHECKPOINT_WITNESS). */
  readonly witness?: string;
  readonly tenant?: string;
  readonly json?: boolean;
  /** A tool pack module, or a tools file (`.yaml`, `.yml`, `.json`; tools-file.ts) (env KEEL_TOOLS). */
  readonly tools?: string;
  /** The hooks file (hooks-file.ts) (env KEEL_HOOKS). */
  readonly hooks?: string;
  /** Env variables exposed to tenants' runs, `TENANT=NAME,...;...` (env KEEL_EXPOSE_ENV). */
  readonly exposeEnv?: string;
  /** The model provider and its model and base URL (env KEEL_MODEL_PROVIDER, KEEL_MODEL, KEEL_MODEL_BASE_URL). */
  readonly modelProvider?: string;
  readonly model?: string;
  readonly modelBaseUrl?: string;
}

export interface CliContext {
  readonly keel: Keel;
  /** The store target as it may be printed (a URL's password replaced). */
  readonly storeName: string;
  readonly tenant: string;
  readonly json: boolean;
  /** True when this command created the store (it says so once it succeeded). */
  readonly created: boolean;
  /** True when the store is open read-only (it lies where this process cannot write). */
  readonly readOnly: boolean;
  /** Where tools that came from a tools file come from (an MCP server), by registered name. */
  readonly toolOrigins: ReadonlyMap<string, ToolOrigin>;
  /** The model provider --model-provider / KEEL_MODEL_PROVIDER configures, if any (docs/models.md). */
  readonly modelProvider?: ModelProvider;
  /** Says "created store <name>" on stderr, once, when this command created the store. */
  announceCreated(): void;
  /** Closes the store; after a failure, also removes the store this command created. */
  close(failed?: boolean): Promise<void>;
}

/** A flag given as an empty string is a usage error; an empty environment variable counts as unset. */
export function flagOrEnv(flag: string | undefined, field: string, envName: string): string | undefined {
  if (flag !== undefined) {
    if (flag.trim() === '')
      throw new KeelError(ErrorCode.usage, `--${field}: expected a non-empty value`, { field });
    return flag;
  }
  const env = process.env[envName];
  return env === undefined || env.trim() === '' ? undefined : env;
}

/**
 * The store a command uses: --store, then KEEL_STORE, then KEEL_DATABASE_URL (a PostgreSQL URL),
 * then ./.keel/keel.db (in `projectDir` when given). An empty path would make SQLite open a throwaway
 * temporary database and silently lose writes, so an empty flag is refused and an empty variable
 * counts as unset.
 */
export function storeTarget(o: GlobalOptions): string {
  const chosen = flagOrEnv(o.store, 'store', 'KEEL_STORE');
  if (chosen !== undefined) return checkScheme(chosen, 'store');
  const url = flagOrEnv(undefined, 'store', 'KEEL_DATABASE_URL');
  if (url !== undefined) {
    if (!isPostgresUrl(url)) {
      throw new KeelError(
        ErrorCode.usage,
        'KEEL_DATABASE_URL: expected a postgres:// or postgresql:// URL (set KEEL_STORE for a SQLite file)',
        { field: 'KEEL_DATABASE_URL' },
      );
    }
    return url;
  }
  return defaultStore(o);
}

/** The store when none is chosen: .keel/keel.db in the project directory (the working directory). */
function defaultStore(o: GlobalOptions): string {
  return o.projectDir === undefined || o.projectDir === '.'
    ? DEFAULT_STORE
    : join(o.projectDir, DEFAULT_STORE);
}

function checkScheme(target: string, field: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
  if (scheme !== undefined && !isPostgresUrl(target)) {
    throw new KeelError(
      ErrorCode.usage,
      `--${field}: ${scheme}:// is not a supported store; use a SQLite file path or a postgres:// URL`,
      { field },
    );
  }
  return target;
}

/** What a person can do about a store that is missing or read-only, added to the store's error. */
function withAdvice(e: unknown, command: string, target: string, chosen: boolean): unknown {
  if (!isKeelError(e)) return e;
  let advice: string | undefined;
  if (e.code === ErrorCode.storeNotFound)
    advice = `${chosen ? 'check --store (or KEEL_STORE)' : 'the default store; choose another with --store or KEEL_STORE'}, or create it: keel init, keel migrate or a first keel publish`;
  else if (e.code === ErrorCode.storeUnavailable && e.details.readOnly === true)
    advice = `keel ${command} writes to the store; commands that only read (runs ls, history, verify...) can use it`;
  if (advice === undefined) return e;
  return new KeelError(
    e.code,
    `${e.message}: ${advice}`,
    { ...e.details, path: describeStoreTarget(target) },
    { cause: e },
  );
}

export async function openContext(
  o: GlobalOptions,
  access: CommandAccess = 'write',
  command = 'this command',
): Promise<CliContext> {
  const target = storeTarget(o);
  // Loaded here, not at start-up, like the engine below: `keel --help` reads none of it.
  const { checkKeyName } = await import('../app/api-keys.ts');
  // The names an API key may carry: a tenant the CLI writes to is one the HTTP surface can address.
  const tenant = checkKeyName(flagOrEnv(o.tenant, 'tenant', 'KEEL_TENANT') ?? 'default', 'tenant');
  const server = isPostgresUrl(target);
  // Everything the person handed us (tool pack, policy, keys) is read before the store is touched.
  const walk = walkModeFromEnv();
  const loaded = await loadTools(o);
  try {
    return await openWithTools(o, access, command, target, tenant, server, walk, loaded);
  } catch (e) {
    await loaded.close();
    throw e;
  }
}

/**
 * Background work that failed (a shadow run, a rollout step, the walk an event gave a run it woke)
 * as one warning line on stderr: where and the error's code and message, never its arguments.
 */
function logBackgroundError(
  e: unknown,
  what: { tenant: string; workflowId?: string; liveRunId?: string; runId?: string },
): void {
  const line = {
    level: 'warn',
    msg: 'background work failed',
    ...what,
    ...(isKeelError(e) ? { code: e.code } : {}),
    error: e instanceof Error ? e.message : String(e),
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

async function openWithTools(
  o: GlobalOptions,
  access: CommandAccess,
  command: string,
  target: string,
  tenant: string,
  server: boolean,
  walk: WalkMode,
  loaded: LoadedTools,
): Promise<CliContext> {
  const { tools } = loaded;
  const { governanceConfigFor, lifecycleConfigFor } = await import('./governance-options.ts');
  const governance = await governanceConfigFor(o, tenant);
  const lifecycle = await lifecycleConfigFor(o, tenant);
  const exposure = exposeEnvFor(o.exposeEnv);
  const witness = flagOrEnv(o.witness, 'witness', 'KEEL_CHECKPOINT_WITNESS');
  // Loaded here, not at start-up: `keel --help` and commands without a store never read the engine.
  const { createKeel, openStoreFor, modelProviderFromEnv, modelRetriesFromEnv, traceExportFromEnv } =
    await import('../app/index.ts');
  // The model provider KEEL_MODEL_PROVIDER names (docs/models.md); its key stays in the environment.
  // Flags win over their variables; the key is only ever read from the environment.
  const modelProvider = modelProviderFromEnv({
    ...process.env,
    ...(o.modelProvider !== undefined ? { KEEL_MODEL_PROVIDER: o.modelProvider } : {}),
    ...(o.model !== undefined ? { KEEL_MODEL: o.model } : {}),
    ...(o.modelBaseUrl !== undefined ? { KEEL_MODEL_BASE_URL: o.modelBaseUrl } : {}),
  });
  const modelRetries = modelRetriesFromEnv(process.env);
  // OTEL_EXPORTER_OTLP_ENDPOINT: each finished run's spans go to that collector (docs/observability.md).
  const traces = traceExportFromEnv(process.env);
  const telemetry = {
    ...(traces
      ? {
          traces: {
            ...traces,
            onError: (m: string) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: m })}\n`),
          },
        }
      : {}),
    // Only `keel serve` answers GET /metrics: other commands count nothing.
    ...(command === 'serve' ? { metrics: true } : {}),
  };
  const models = {
    ...(modelProvider ? { modelProvider } : {}),
    ...(modelRetries !== undefined ? { modelRetries } : {}),
  };
  // The directories a created store brings with it, removed again if the command fails.
  const newDirs = server || access !== 'create' ? [] : missingDirs(dirname(target));
  let opened: OpenedStore;
  try {
    opened =
      access === 'none' ? await openStoreFor(':memory:', 'create') : await openStoreFor(target, access);
  } catch (e) {
    throw withAdvice(e, command, target, target !== defaultStore(o) || o.store !== undefined);
  }
  const { store } = opened;
  let keel: Keel;
  try {
    keel = createKeel({
      store,
      tools,
      walk,
      onBackgroundError: logBackgroundError,
      ...(witness ? { checkpointWitness: witness } : {}),
      ...governance,
      ...lifecycle,
      ...exposure,
      ...models,
      ...telemetry,
    });
  } catch (e) {
    await store.close();
    throw e;
  }
  let announced = false;
  return {
    keel,
    storeName: describeStoreTarget(target),
    tenant,
    json: o.json === true,
    created: opened.created,
    readOnly: opened.readOnly,
    toolOrigins: loaded.origins,
    ...(modelProvider ? { modelProvider } : {}),
    announceCreated() {
      if (opened.created && !announced)
        process.stderr.write(`created store ${describeStoreTarget(target)}\n`);
      announced = true;
    },
    async close(failed = false) {
      try {
        await keel.close();
      } finally {
        await loaded.close();
      }
      if (failed && opened.created && !server) {
        for (const f of [target, `${target}-wal`, `${target}-shm`]) rmSync(f, { force: true });
        for (const d of newDirs) {
          try {
            rmdirSync(d); // only when empty
          } catch {}
        }
      }
    },
  };
}

/** `dir` and those of its ancestors that do not exist yet, deepest first. */
function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.push(d);
  return missing;
}

interface LoadedTools {
  readonly tools: ToolDefinition[];
  readonly origins: ReadonlyMap<string, ToolOrigin>;
  close(): Promise<void>;
}

/**
 * The tools --tools or KEEL_TOOLS names (a tools file by its extension, else a tool pack module),
 * else the working directory's keel.tools.*, else none.
 */
async function loadTools(o: GlobalOptions): Promise<LoadedTools> {
  const named = flagOrEnv(o.tools, 'tools', 'KEEL_TOOLS');
  if (named !== undefined) {
    const { isToolsFile, loadToolsFile } = await import('./tools-file.ts');
    if (isToolsFile(named)) return loadToolsFile(named);
  }
  const pack = (tools: ToolDefinition[]): LoadedTools => ({
    tools,
    origins: new Map(),
    close: async () => {},
  });
  if (named !== undefined) return pack(await loadToolPack(named));
  const local = defaultToolPack();
  return pack(local === undefined ? [] : await loadToolPack(local, 'default'));
}

/**
 * KEEL_WORKERS: `embedded` (default) walks runs in the command that starts or continues them;
 * `external` commits them as running and leaves the walk to `keel worker` processes.
 */
function walkModeFromEnv(): WalkMode {
  const v = process.env.KEEL_WORKERS?.trim();
  if (!v || v === 'embedded') return 'inline';
  if (v === 'external') return 'enqueue';
  throw new KeelError(
    ErrorCode.usage,
    `KEEL_WORKERS: expected embedded or external, got ${JSON.stringify(v)}`,
    { field: 'KEEL_WORKERS' },
  );
}

/** Who is acting: --as, then KEEL_USER, then the OS user. Recorded with promotions and approvals. */
export function actor(as?: string): string {
  const who = as ?? process.env.KEEL_USER ?? safeUser();
  if (!who || who.length > 200)
    throw new KeelError(ErrorCode.usage, '--as: expected a name of 1-200 characters', { field: 'as' });
  return who;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** How a command module runs its body with a context (main.ts's `withContext`). */
export type WithContext = (
  cmd: Command,
  // biome-ignore lint/suspicious/noConfusingVoidType: command bodies return an exit code or nothing
  body: (ctx: CliContext, g: GlobalOptions) => Promise<number | void>,
  /** The project directory whose .keel/keel.db is the default store (`keel init <dir>`). */
  projectDir?: string,
) => Promise<void>;

/** How a command module reports an error it catches itself (main.ts's `reportError`): a message and an exit code. */
export type ReportError = (e: unknown, json: boolean) => void;

/**
 * The tenant a command that mints or trusts credentials acts in: named by --tenant or KEEL_TENANT,
 * never the `default` fallback, so nothing is created for the wrong tenant by accident.
 */
export function namedTenant(ctx: CliContext, g: GlobalOptions, what: string): string {
  const env = process.env.KEEL_TENANT;
  if (g.tenant === undefined && (env === undefined || env.trim() === ''))
    throw new KeelError(ErrorCode.usage, `--tenant: required for ${what} (or set KEEL_TENANT)`, {
      field: 'tenant',
    });
  return ctx.tenant;
}
