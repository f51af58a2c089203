/**
 * The build runs once per change (scripts/build-fresh.mjs): a dist/ built after its sources last
 * changed is kept, so the README's quick start (`npm install`, whose `prepare` builds, then `npx
 * keel demo` or `npm test`, which would run `prepare` or the build again) builds a fresh clone once,
 * and never removes dist/ under a running `keel`. A source edited, added or removed since makes it
 * stale; tests do not count (they are not built).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
// @ts-expect-error: plain JavaScript (scripts/ is not type-checked); staleBecause(root): string | undefined
import { staleBecause } from '../../scripts/build-fresh.mjs';
import { BUILD_STAMP } from '../../src/testing/keel-command.ts';
import { REPO, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('build-fresh');
after(() => sandbox.remove());

const stale = staleBecause as (root: string) => string | undefined;

test('fresh after a build; stale once a source is edited, added or removed, or the build config changes; tests do not count', () => {
  const root = join(sandbox.dir, 'checkout');
  const past = new Date(Date.now() - 60_000);
  const write = (f: string, text = 'x') => {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), text);
  };
  for (const f of [
    'src/a.ts',
    'src/cli/b.ts',
    'templates/t/keel.tools.mjs',
    'web/src/app.ts',
    'package.json',
    'tsconfig.json',
  ])
    write(f);
  const age = (f: string) => utimesSync(join(root, f), past, past);
  const build = () => {
    for (const f of [
      'src/a.ts',
      'src/cli/b.ts',
      'src/cli',
      'src',
      'templates/t/keel.tools.mjs',
      'templates/t',
      'templates',
      'web/src/app.ts',
      'web/src',
      'web',
      'package.json',
      'tsconfig.json',
    ])
      age(f);
    write('dist/.build-stamp', 'built');
    // Built a second after those files last changed, well before what the test changes next
    // (file times have a coarse clock: a change in the same tick as the stamp would look older).
    const stamp = new Date(past.getTime() + 1000);
    utimesSync(join(root, 'dist/.build-stamp'), stamp, stamp);
  };
  assert.equal(stale(root), 'dist/ is not built');
  build();
  assert.equal(stale(root), undefined, 'just built');
  write('src/cli/b.ts', 'edited');
  assert.match(stale(root) ?? '', /^src\/cli\/b\.ts changed/);
  build();
  write('src/cli/new.ts');
  assert.match(
    stale(root) ?? '',
    /^src\/cli(\/new\.ts)? changed/,
    'a file added is new, and changes its folder',
  );
  build();
  rmSync(join(root, 'src/cli/new.ts'));
  assert.match(stale(root) ?? '', /^src\/cli changed/, 'a file removed changes its folder');
  build();
  write('templates/t/keel.tools.mjs', 'edited');
  assert.match(stale(root) ?? '', /^templates\/t\/keel\.tools\.mjs changed/);
  build();
  write('tsconfig.json', 'edited');
  assert.match(stale(root) ?? '', /^tsconfig\.json changed/);
  build();
  // A test edited in place: its folder does not change, and tests are not built.
  write('src/cli/b.test.ts');
  age('src/cli');
  age('src/cli/b.test.ts');
  build();
  write('src/cli/b.test.ts', 'edited');
  assert.equal(stale(root), undefined, 'a test edited in place does not count');
});

test('node scripts/build.mjs on this fresh checkout keeps dist/ as it is and ends at once', () => {
  assert.equal(stale(REPO), undefined, 'the tests run on a fresh build');
  const before = statSync(BUILD_STAMP);
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'build.mjs')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const ms = performance.now() - started;
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /dist\/ is up to date with its sources/);
  const after = statSync(BUILD_STAMP);
  assert.equal(after.ino, before.ino, 'dist/ was not rebuilt');
  assert.equal(after.mtimeMs, before.mtimeMs);
  assert.ok(ms < 10_000, `${Math.round(ms)} ms`);
});
