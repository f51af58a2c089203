/**
 * What every command needs: the store (from --store, KEEL_STORE, KEEL_DATABASE_URL, or
 * ./.keel/keel.db), the tenant, who is acting, and the tools. The store is a SQLite file or
 * a postgres:// URL. Besides Keel's core tools, tools come only from a tool pack module
 * (--tools / KEEL_TOOLS, else the working directory's keel.tools.*; tool-pack.ts): no example's
 * tools are built in. KEEL_WORKERS=external leaves walks to `keel worker`
 * processes. --policy / --trust-keys (governance-options.ts) set the tenant's policy and trusted writ
 * keys; --expose-env (expose-env-option.ts) the env variables tenants' runs may read. Opening
 * never prints a password.
 */

import { mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { checkKeyName } from '../app/api-keys.ts';
import type { Keel } from '../app/index.ts';
import { describeStoreTarget, isPostgresUrl } from '../app/store-target.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { WalkMode } from '../engine/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { exposeEnvFor } from './expose-env-option.ts';
import { type GovernanceOptions, governanceConfigFor } from './governance-options.ts';
import { defaultToolPack, loadToolPack } from './tool-pack.ts';

export const DEFAULT_STORE = join('.keel', 'keel.db');

export interface GlobalOptions extends GovernanceOptions {
  readonly store?: string;
  readonly tenant?: string;
  readonly json?: boolean;
  /** A tool pack module (env KEEL_TOOLS). */
  readonly tools?: string;
  /** Env variables exposed to tenants' runs, `TENANT=NAME,...;...` (env KEEL_EXPOSE_ENV). */
  readonly exposeEnv?: string;
}

export interface CliContext {
  readonly keel: Keel;
  /** The store target as it may be printed (a URL's password replaced). */
  readonly storeName: string;
  readonly tenant: string;
  readonly json: boolean;
  close(): Promise<void>;
}

/** A flag given as an empty string is a usage error; an empty environment variable counts as unset. */
function flagOrEnv(flag: string | undefined, field: string, envName: string): string | undefined {
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
 * then ./.keel/keel.db. An empty path would make SQLite open a throwaway temporary database and
 * silently lose writes, so an empty flag is refused and an empty variable counts as unset.
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
  return DEFAULT_STORE;
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

function storeUnavailable(what: string, path: string, e: unknown): KeelError {
  return new KeelError(
    ErrorCode.storeUnavailable,
    `cannot open ${what} ${path}: ${(e as Error).message}`,
    { path },
    { cause: e },
  );
}

export async function openContext(o: GlobalOptions): Promise<CliContext> {
  const target = storeTarget(o);
  // The names an API key may carry: a tenant the CLI writes to is one the HTTP surface can address.
  const tenant = checkKeyName(flagOrEnv(o.tenant, 'tenant', 'KEEL_TENANT') ?? 'default', 'tenant');
  const server = isPostgresUrl(target);
  // Failing to create the store's directory is "store unavailable" (exit 6), like failing to open
  // the store itself, not an internal error.
  try {
    if (!server && target !== ':memory:') mkdirSync(dirname(target), { recursive: true });
  } catch (e) {
    throw storeUnavailable('store', target, e);
  }
  const walk = walkModeFromEnv();
  const tools = await loadTools(o);
  const governance = await governanceConfigFor(o, tenant);
  const exposure = exposeEnvFor(o.exposeEnv);
  // Loaded here, not at start-up: `keel --help` and commands without a store never read the engine.
  const { createKeel, openStore } = await import('../app/index.ts');
  const store = await openStore(target);
  let keel: Keel;
  try {
    keel = createKeel({ store, tools, walk, ...governance, ...exposure });
  } catch (e) {
    await store.close();
    throw e;
  }
  return {
    keel,
    storeName: server ? describeStoreTarget(target) : target,
    tenant,
    json: o.json === true,
    close: () => keel.close(),
  };
}

/** The tool pack --tools or KEEL_TOOLS names, else the working directory's keel.tools.*, else none. */
async function loadTools(o: GlobalOptions): Promise<ToolDefinition[]> {
  const named = flagOrEnv(o.tools, 'tools', 'KEEL_TOOLS');
  if (named !== undefined) return loadToolPack(named);
  const local = defaultToolPack();
  return local === undefined ? [] : loadToolPack(local, 'default');
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
