/**
 * `npm run build`, also run by `prepare` (so `npm install` in a checkout builds, and `npm pack`
 * packs a fresh build): compiles src/ and the support-desk example to JavaScript with declarations
 * in dist/ (tsconfig.build.json), then copies beside them the other files the code reads at run
 * time (the OpenWOP fixtures, the example's workflows and events, the project templates), so dist/ keeps the sources'
 * layout and every path a module computes from its own location still holds. dist/ is rebuilt from
 * nothing each time: a module removed from src/ never lingers in the package. The compiled modules
 * are then bundled into dist/bundle/ (bundle-dist.mjs), what `keel` and the package's exports load.
 * Last, the console (web/) is bundled into dist/web/. Plain JavaScript, so it runs where only the runtime dependencies
 * are installed. A dist/ built after its sources last changed is kept as it is (build-fresh.mjs);
 * `--force` (`npm run build`) builds regardless.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleBecause } from './build-fresh.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
/** Source trees whose non-TypeScript files ship beside the compiled code. */
const TREES = ['src', 'examples'];
/** The data files the code reads (fixtures, example workflows and events). */
const DATA = /\.(json|ya?ml)$/;
/** Never shipped: test inputs and the plan-check corpus. */
const SKIP = new Set(['src/plan/corpus', 'src/testing']);

// A fresh dist/ is kept (build-fresh.mjs): one build per change, whatever runs `prepare` again.
if (!process.argv.includes('--force')) {
  const why = staleBecause(ROOT);
  if (why === undefined) {
    process.stderr.write(
      'build: dist/ is up to date with its sources (node scripts/build.mjs --force rebuilds)\n',
    );
    process.exit(0);
  }
  process.stderr.write(`build: ${why}: building dist/\n`);
}

// The stamp carries the time the build started: a source changed while it ran makes it stale.
const started = new Date();
rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write(`build: tsc failed (${r.status ?? r.signal})\n`);
  process.exit(1);
}

function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const from = join(dir, entry.name);
    const rel = relative(ROOT, from).split('\\').join('/');
    if (SKIP.has(rel)) continue;
    if (entry.isDirectory()) copyAssets(from);
    else if (entry.isFile() && DATA.test(entry.name)) {
      mkdirSync(dirname(join(DIST, rel)), { recursive: true });
      copyFileSync(from, join(DIST, rel));
    }
  }
}
for (const tree of TREES) copyAssets(join(ROOT, tree));
// The draft 2020-12 meta-schema check as standalone code beside the validator that uses it
// (src/core/tools/meta-schema-code.ts), so no process compiles the meta-schema at run time.
{
  const tools = join(DIST, 'src', 'core', 'tools');
  const { META_SCHEMA_MODULE, metaSchemaValidatorCode } = await import(
    pathToFileURL(join(tools, 'meta-schema-code.js')).href
  );
  writeFileSync(join(tools, META_SCHEMA_MODULE), metaSchemaValidatorCode());
  // Likewise the tool descriptor check (src/core/tools/descriptor-schema-code.ts), beside
  // tool-descriptor-schema.js, so no process registering a tool compiles that schema.
  const { DESCRIPTOR_SCHEMA_MODULE, descriptorValidatorCode } = await import(
    pathToFileURL(join(tools, 'descriptor-schema-code.js')).href
  );
  writeFileSync(join(tools, DESCRIPTOR_SCHEMA_MODULE), descriptorValidatorCode());
}
// The project templates (`keel init --template`) ship whole: specs, events, README, policy and
// their tool packs, plain JavaScript a project loads as it is (never compiled).
cpSync(join(ROOT, 'templates'), join(DIST, 'templates'), {
  recursive: true,
  filter: (from) =>
    !relative(join(ROOT, 'templates'), from)
      .split(/[\\/]/)
      .some((p) => p.startsWith('.')),
});

// Keel's own modules, bundled from dist/ by esbuild into a few files in dist/bundle/ (bundle-dist.mjs):
// what `keel` (bin/keel.js) and the package's exports load, so a command reads tens of files
// instead of the hundreds tsc writes. esbuild is a development dependency: without it, dist/bundle/
// holds entries that re-export the compiled modules, and everything works as before, only slower.
{
  const { bundleDist } = await import('./bundle-dist.mjs');
  if (!(await bundleDist(DIST)))
    process.stderr.write('build: esbuild is not installed, so dist/bundle/ re-exports dist/src/ unbundled\n');
}

// The operator console (web/), bundled into dist/web/ for `keel serve` to serve at /console/.
// vite is a development dependency: where it is not installed (an install without them), the
// package builds without the console and `keel serve` says so at /console/.
let vite;
try {
  vite = await import('vite');
} catch {
  process.stderr.write('build: vite is not installed, so the console (web/) is not built\n');
}
if (vite) await vite.build({ configFile: join(ROOT, 'web', 'vite.config.ts') });
// Written last: the tests' `keel` (src/testing/keel-command.ts) refuses a dist/ older than its sources.
writeFileSync(join(DIST, '.build-stamp'), `${new Date().toISOString()}\n`);
utimesSync(join(DIST, '.build-stamp'), started, started);
