/**
 * `--expose-env` (env KEEL_EXPOSE_ENV): which process environment variables each tenant's runs may
 * read, for every command that publishes or walks runs (`keel serve`, `keel worker`, `emit`,
 * `run`, `approve`, ...). Entries `TENANT=NAME[,NAME...]` separated by `;` or spaces; `*=NAME`
 * exposes to every tenant. Nothing is exposed without it, in the CLI as in `keel serve`: a command
 * walks whatever a tenant published into the store, in the environment of whoever runs it.
 */
import type { ExposeEnvConfig } from '../app/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';

const FIELD = 'expose-env';

/** `"acme=API_TOKEN,REGION; *=REGION"` -> `{ acme: ['API_TOKEN', 'REGION'], '*': ['REGION'] }`. */
export function parseExposeEnv(text: string, source = `--${FIELD}`): ExposeEnvConfig {
  const out = new Map<string, string[]>();
  for (const entry of text.split(/[;\s]+/).filter((e) => e !== '')) {
    const eq = entry.indexOf('=');
    const tenant = eq < 0 ? '' : entry.slice(0, eq);
    const names =
      eq < 0
        ? []
        : entry
            .slice(eq + 1)
            .split(',')
            .filter((n) => n !== '');
    if (tenant === '' || names.length === 0) {
      throw new KeelError(
        ErrorCode.usage,
        `${source}: expected TENANT=NAME[,NAME...] entries separated by ";" (e.g. "acme=API_TOKEN,REGION;*=REGION"), got ${JSON.stringify(entry.length > 60 ? `${entry.slice(0, 57)}...` : entry)}`,
        { field: FIELD },
      );
    }
    out.set(tenant, [...new Set([...(out.get(tenant) ?? []), ...names])]);
  }
  // Own properties whatever the tenant is called ("constructor", "__proto__" included).
  return Object.fromEntries(out);
}

/** The exposure a command runs with: --expose-env, else KEEL_EXPOSE_ENV, else nothing. */
export function exposeEnvFor(flag: string | undefined): { exposeEnv?: ExposeEnvConfig } {
  if (flag !== undefined) return { exposeEnv: parseExposeEnv(flag) };
  const env = process.env.KEEL_EXPOSE_ENV;
  return env === undefined || env.trim() === '' ? {} : { exposeEnv: parseExposeEnv(env, 'KEEL_EXPOSE_ENV') };
}
