/**
 * The hooks file `keel serve` serves and `keel hooks` reads (docs/hooks.md): named by --hooks or
 * KEEL_HOOKS, else the working directory's keel.hooks.yaml (or .yml, .json), else none, as tools
 * files are found. Checked strictly (core/hooks/parse-hooks.ts, file:line errors). Each hook's
 * secret is read from the environment only when the hooks are served or a sample verified; a
 * missing one is refused naming the hook and the variable, and a value is never printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { type HookSpec, parseHooks } from '../core/hooks/index.ts';
import type { ServedHook } from '../server/hooks/hook-routes.ts';
import { flagOrEnv } from './context.ts';

/** The hooks file read when neither --hooks nor KEEL_HOOKS names one, first found wins. */
export const DEFAULT_HOOKS_FILES = ['keel.hooks.yaml', 'keel.hooks.yml', 'keel.hooks.json'];

/** The hooks file to read: --hooks, KEEL_HOOKS, else the working directory's keel.hooks.*, else none. */
export function hooksFileOf(flag: string | undefined, dir = process.cwd()): string | undefined {
  const named = flagOrEnv(flag, 'hooks', 'KEEL_HOOKS');
  if (named !== undefined) return named;
  const local = DEFAULT_HOOKS_FILES.find((f) => existsSync(resolve(dir, f)));
  return local === undefined ? undefined : resolve(dir, local);
}

/** A hooks file's hooks, checked; a file that cannot be read is a usage error naming it. */
export function readHooksFile(file: string): HookSpec[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new KeelError(ErrorCode.usage, `--hooks: ${file}: cannot read it: ${(e as Error).message}`, {
      field: 'hooks',
      file,
    });
  }
  return parseHooks(text, file);
}

/** Whether each hook's secret is set (for listing), never its value. */
export function secretIsSet(spec: HookSpec, env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[spec.auth.secret];
  return v !== undefined && v !== '';
}

/** The hooks with their secrets from the environment; a missing secret refuses them all, naming it. */
export function servedHooks(specs: readonly HookSpec[], env: NodeJS.ProcessEnv = process.env): ServedHook[] {
  return specs.map((spec) => {
    const secret = env[spec.auth.secret];
    if (secret === undefined || secret === '')
      throw new KeelError(
        ErrorCode.usage,
        `hook ${spec.name}: its secret ${spec.auth.secret} is not set in the environment (auth.secret names it)`,
        { field: 'auth.secret', hook: spec.name, env: spec.auth.secret },
      );
    return { spec, secret };
  });
}
