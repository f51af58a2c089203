/**
 * A newcomer's shell, for tests that run the documents' commands as written: `keel` linked in a
 * scratch npm prefix (as `npm link` in the checkout would make it), whose `keel` is the sources'
 * command, on PATH and found by `npx`; and an environment with nothing of this test run's Keel
 * settings (no KEEL_*, no HELPDESK_DB) and nothing a running npm script exports (npm_*).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';

/** Makes `<dir>/npm-prefix` with `bin/keel`, a shell script starting the sources' command. */
export function linkedPrefix(dir: string): string {
  const prefix = join(dir, 'npm-prefix');
  mkdirSync(join(prefix, 'bin'), { recursive: true });
  const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;
  const script = `#!/bin/sh\nexec ${[process.execPath, ...KEEL_COMMAND].map(quote).join(' ')} "$@"\n`;
  writeFileSync(join(prefix, 'bin', 'keel'), script);
  chmodSync(join(prefix, 'bin', 'keel'), 0o755);
  return prefix;
}

/** The environment of a newcomer with `keel` linked in `prefix`. */
export function newcomerEnv(prefix: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e))
    if (
      k.startsWith('KEEL_') ||
      // What `npm test` exports to its scripts (npm_config_prefix above all, which would outrank
      // NPM_CONFIG_PREFIX and hide the linked `keel` from npx): a newcomer's shell has none of it.
      k.toLowerCase().startsWith('npm_') ||
      k === 'HELPDESK_DB' ||
      k === 'NODE_OPTIONS' ||
      k === 'NODE_TEST_CONTEXT'
    )
      delete e[k];
  return {
    ...e,
    NO_COLOR: '1',
    NPM_CONFIG_PREFIX: prefix,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    ...extra,
  };
}
