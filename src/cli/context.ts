/**
 * What every command needs: the store (from --store, KEEL_STORE, or ./.keel/keel.db), the
 * tenant, who is acting, and the tool packs. The helpdesk the example tools act on lives beside
 * the store file.
 */
import { mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { Helpdesk } from '../../examples/support-desk/helpdesk.ts';
import { supportDeskTools } from '../../examples/support-desk/tools.ts';
import { createKeel, type Keel } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';

export const DEFAULT_STORE = join('.keel', 'keel.db');

export interface GlobalOptions {
  readonly store?: string;
  readonly tenant?: string;
  readonly json?: boolean;
}

export interface CliContext {
  readonly keel: Keel;
  readonly helpdesk: Helpdesk;
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

export function storePath(o: GlobalOptions): string {
  // An empty path would make SQLite open a throwaway temporary database and silently lose writes.
  const path = flagOrEnv(o.store, 'store', 'KEEL_STORE') ?? DEFAULT_STORE;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new KeelError(
      ErrorCode.usage,
      `--store ${path}: only SQLite file paths are supported by this build`,
      { field: 'store' },
    );
  }
  return path;
}

export function openContext(o: GlobalOptions): CliContext {
  const path = storePath(o);
  const tenant = flagOrEnv(o.tenant, 'tenant', 'KEEL_TENANT') ?? 'default';
  // Failing to create the store's directory or open the helpdesk beside it is "store unavailable"
  // (exit 6), like failing to open the store itself, not an internal error.
  const helpdeskPath = path === ':memory:' ? ':memory:' : join(dirname(path), 'helpdesk.db');
  let helpdesk: Helpdesk;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `cannot open store ${path}: ${(e as Error).message}`,
      { path },
      { cause: e },
    );
  }
  try {
    helpdesk = new Helpdesk(helpdeskPath);
  } catch (e) {
    throw new KeelError(
      ErrorCode.storeUnavailable,
      `cannot open the helpdesk ${helpdeskPath}: ${(e as Error).message}`,
      { path: helpdeskPath },
      { cause: e },
    );
  }
  let keel: Keel;
  try {
    keel = createKeel({ store: path, tools: supportDeskTools(helpdesk) });
  } catch (e) {
    helpdesk.shutdown();
    throw e;
  }
  return {
    keel,
    helpdesk,
    tenant,
    json: o.json === true,
    async close() {
      await keel.close();
      helpdesk.shutdown();
    },
  };
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
