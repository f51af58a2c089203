/**
 * Keel's declarations type-check in a consumer's project as it is installed: `keel` and what
 * package.json declares it depends on (and what those depend on), nothing else — none of Keel's
 * development dependencies. The declarations name Node's types (`Buffer`, `node:crypto`) and
 * better-sqlite3's and pg's, so their type packages are dependencies: without them a consumer with
 * `--strict --module nodenext` got errors inside Keel's types until it installed them itself.
 * Offline: the install is simulated by linking the checkout's packages into a temporary project
 * (tsc keeps the links' paths, `--preserveSymlinks`, so it finds nothing beside the checkout).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { REPO, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('package-types');
after(() => sandbox.remove());

const packageJson = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };

/** Links `node_modules/<name>` for each of keel's dependencies and theirs, as npm hoists them. */
function installDependencies(project: string): string[] {
  const linked: string[] = [];
  const queue = Object.keys(packageJson(REPO).dependencies ?? {});
  while (queue.length > 0) {
    const name = queue.shift()!;
    const from = join(REPO, 'node_modules', name);
    const to = join(project, 'node_modules', name);
    if (linked.includes(name) || !existsSync(from)) continue;
    linked.push(name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(from, to, 'dir');
    const p = packageJson(from);
    queue.push(
      ...Object.keys(p.dependencies ?? {}),
      ...Object.keys(p.peerDependencies ?? {}).filter((d) => p.peerDependenciesMeta?.[d]?.optional !== true),
    );
  }
  return linked;
}

test('a strict nodenext consumer type-checks against Keel with only what Keel declares installed', () => {
  const project = join(sandbox.dir, 'consumer');
  const keel = join(project, 'node_modules', 'keel');
  mkdirSync(keel, { recursive: true });
  writeFileSync(join(keel, 'package.json'), readFileSync(join(REPO, 'package.json')));
  symlinkSync(join(REPO, 'dist'), join(keel, 'dist'), 'dir');
  const linked = installDependencies(project);
  assert.ok(linked.includes('@types/node'), 'Node’s types come with Keel');
  writeFileSync(join(project, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    join(project, 'index.ts'),
    [
      "import { createKeel, openStore } from 'keel';",
      "import { defineWorkflow } from 'keel/plan';",
      "import supportDesk from 'keel/support-desk';",
      'export const all = [createKeel, openStore, defineWorkflow, supportDesk];',
      '',
    ].join('\n'),
  );
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(
    process.execPath,
    [
      tsc,
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--noEmit',
      '--preserveSymlinks',
      'index.ts',
    ],
    { cwd: project, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(r.status, 0, `tsc found errors:\n${r.stdout}${r.stderr}`);
});
