/**
 * dist/bundle/ (scripts/bundle-dist.mjs), what `keel` and the package's exports load: each library
 * entry exports exactly what its compiled module does, and a bundled module's own location is its
 * compiled file's, so the paths it computes from it (the templates, the console) still hold.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { REPO } from '../helpers/keel-cli.ts';

const dist = join(REPO, 'dist');
const load = async (file: string) => Object.keys(await import(pathToFileURL(join(dist, file)).href)).sort();

test('each library entry of the bundle exports what its compiled module exports', async () => {
  assert.ok(KEEL_COMMAND.length > 0); // built and fresh (keel-command.ts refuses a stale dist/)
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    exports: Record<string, { default?: string }>;
  };
  const compiled: Record<string, string> = {
    '.': 'src/index.js',
    './plan': 'src/plan/define-workflow.js',
    './support-desk': 'examples/support-desk/index.js',
  };
  for (const [entry, from] of Object.entries(compiled)) {
    const target = pkg.exports[entry]?.default;
    assert.match(target ?? '', /^\.\/dist\/bundle\/[\w-]+\.js$/, `${entry} is served from the bundle`);
    const names = await load(target!.slice('./dist/'.length));
    assert.ok(names.length > 0, entry);
    assert.deepEqual(names, await load(from), entry);
  }
});

test("a bundled module's import.meta.url is its compiled file's", () => {
  const meta = JSON.parse(readFileSync(join(dist, 'bundle-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const file = Object.entries(meta.outputs).find(([, o]) => 'dist/src/cli/templates.js' in o.inputs)?.[0];
  assert.ok(file, 'templates.js is in the bundle');
  const text = readFileSync(join(REPO, file), 'utf8');
  assert.match(text, /new URL\("\.\.\/src\/cli\/templates\.js", import\.meta\.url\)\.href/);
});

test('the bundle carries only the zod the routes call: no locale but English, no JSON Schema reader', () => {
  // `import { z } from 'zod'` (an object the bundler cannot shake) brought all of zod, 750 KB
  // parsed by every `keel serve` before it listens; the routes import it as a namespace.
  const meta = JSON.parse(readFileSync(join(dist, 'bundle-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const bundled = Object.values(meta.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, i]) => i.bytesInOutput > 0)
      .map(([f]) => f),
  );
  const zod = bundled.filter((f) => /node_modules\/zod\//.test(f));
  assert.ok(
    zod.some((f) => f.endsWith('v4/classic/schemas.js')),
    'zod is bundled',
  );
  const extra = zod.filter((f) => /v4\/locales\/(?!en\.js$)|from-json-schema/.test(f));
  assert.deepEqual(extra, []);
});

test('the build refuses a lazy import of a bundled package, naming the file and the import', async () => {
  const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { checkLazyImports } = (await import(
    pathToFileURL(join(REPO, 'scripts', 'bundle-dist.mjs')).href
  )) as {
    checkLazyImports: (dist: string) => void;
  };
  const dir = mkdtempSync(join(tmpdir(), 'keel-bundle-check-'));
  try {
    mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
    writeFileSync(join(dir, 'src', 'cli', 'ok.js'), "const m = await import('./other.js');\n");
    checkLazyImports(dir);
    writeFileSync(join(dir, 'src', 'cli', 'draft.js'), "const { stringify } = await import('yaml');\n");
    assert.throws(() => checkLazyImports(dir), /src\/cli\/draft\.js: import\('yaml'\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
