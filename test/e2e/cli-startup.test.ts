/**
 * `keel --help` (and any command) starts by registering every command, so what the command modules
 * import at their top is read before anything runs. They import only what registering needs: the
 * parsers, the schema validator, the engine and the commands' implementations are loaded when a
 * command runs. This test counts what `keel --help` loads (a module resolve hook records every
 * module as it is resolved): no YAML parser, no Ajv, no engine or app services, and few of Keel's
 * own modules (167 of them before, with yaml and ajv; 55 after). The build bundles Keel's modules
 * (and ajv, yaml) into the files of dist/bundle/ (scripts/bundle-dist.mjs): a file loaded from there
 * counts as the modules the build's metafile says it holds.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { REPO, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('cli-startup');
after(() => sandbox.remove());

/** The modules `keel ...args` resolves, as file URLs, recorded by a resolve hook. */
function modulesLoaded(args: readonly string[], exit = 0): string[] {
  const log = join(sandbox.dir, 'modules.log');
  writeFileSync(log, '');
  const hooks = join(sandbox.dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}
`,
  );
  const register = join(sandbox.dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const r = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(register).href, ...KEEL_COMMAND, ...args],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    },
  );
  assert.equal(r.status, exit, r.stderr);
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean).flatMap(bundled))];
}

/** The modules a loaded file holds: itself, or for a file of dist/bundle/ those it was bundled from. */
function bundled(url: string): string[] {
  const file = /\/(dist\/bundle\/[^/]+\.js)$/.exec(url)?.[1];
  if (file === undefined) return [url];
  const meta = JSON.parse(readFileSync(join(REPO, 'dist', 'bundle-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const inputs = meta.outputs[file]?.inputs;
  assert.ok(inputs, `${file} is not in dist/bundle-meta.json`);
  return Object.keys(inputs).map((p) => pathToFileURL(join(REPO, p)).href);
}

test('keel --help loads no YAML parser, no Ajv, no engine, and under 70 of Keel’s modules', () => {
  const loaded = modulesLoaded(['--help']);
  const packages = loaded
    .filter((u) => u.includes('/node_modules/'))
    .map((u) => /node_modules\/((@[^/]+\/)?[^/]+)/.exec(u)![1]);
  assert.deepEqual(
    [...new Set(packages)].sort(),
    ['commander', 'picocolors'],
    'only the command parser and colours',
  );
  const own = loaded.filter((u) => u.includes('/dist/src/'));
  assert.deepEqual(
    own.filter(
      (u) =>
        /\/dist\/src\/(app|engine|worker|server|openwop)\/(index|.*keel)/.test(u) ||
        /keel-ajv|parse-spec/.test(u),
    ),
    [],
  );
  assert.ok(own.length > 10 && own.length < 70, `${own.length} of Keel's modules loaded:\n${own.join('\n')}`);
});

test('a command still loads what it needs when it runs (keel validate parses YAML)', () => {
  const spec = join(sandbox.dir, 'wf.yaml');
  writeFileSync(spec, 'id: hello\n');
  // An invalid spec (exit 2) still had to be parsed to be judged.
  const loaded = modulesLoaded(['--store', join(sandbox.dir, 'keel.db'), 'validate', spec], 2);
  assert.ok(
    loaded.some((u) => u.includes('/node_modules/yaml/')),
    'yaml is loaded to parse the spec',
  );
});
