/**
 * Edges of the `keel` command a newcomer meets first (issue 31): `keel init <dir>` run from
 * elsewhere makes the project and its store in <dir>, and the advice it prints then works as
 * printed, `npx keel` and all, in a newcomer's shell; a reader that closes stdout early
 * (`keel runs ls | head`) ends the command quietly, with no EPIPE stack trace; an MCP server's
 * header secret left unset is a setting left out (exit 2, naming it), not a server that is down.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { failJson, runKeel, Sandbox, show } from '../helpers/keel-cli.ts';
import { linkedPrefix, newcomerEnv } from '../helpers/newcomer.ts';

const sandbox = new Sandbox('cli-edges');
after(() => sandbox.remove());

/** The advice `keel init` printed last: the shell command after `next: `, its note dropped. */
function advice(stdout: string): string {
  const next = stdout.split('\n').find((l) => l.startsWith('next: '));
  assert.ok(next, `init printed its advice\n${stdout}`);
  return next.slice('next: '.length).replace(/ \([^)]*\)$/, '');
}

/** Runs `command` in bash, as a newcomer with `keel` linked (npx finds it, offline). */
function followAdvice(command: string, cwd: string) {
  const env = newcomerEnv(linkedPrefix(sandbox.dir), { npm_config_offline: 'true' });
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', command], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, out: `$ ${command}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}` };
}

describe('keel init <dir>, run from another directory', () => {
  test('the example: the store is made in <dir>, none in the working directory, and the advice works as printed', () => {
    const elsewhere = join(sandbox.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const r = runKeel(['init', join('..', 'my project')], { cwd: elsewhere });
    assert.equal(r.code, 0, show(r));
    const project = join(sandbox.dir, 'my project');
    assert.ok(existsSync(join(project, '.keel', 'keel.db')), `the store is in <dir>\n${show(r)}`);
    assert.equal(existsSync(join(elsewhere, '.keel')), false, 'nothing is made in the working directory');
    assert.match(r.stderr, /created store \.\.\/my project\/\.keel\/keel\.db/);
    const next = advice(r.stdout);
    assert.match(next, /^cd '\.\.\/my project' && npx keel publish /);
    const followed = followAdvice(next, elsewhere);
    assert.equal(followed.code, 0, followed.out);
    assert.match(followed.out, /passed: \d+ of \d+/);
  });

  test('a template: the store is made in <dir> and its advice (with its policy) works as printed', () => {
    const elsewhere = join(sandbox.dir, 'elsewhere-2');
    mkdirSync(elsewhere);
    const r = runKeel(['init', '--template', 'expense-report', 'ap'], { cwd: elsewhere });
    assert.equal(r.code, 0, show(r));
    assert.ok(existsSync(join(elsewhere, 'ap', '.keel', 'keel.db')), show(r));
    assert.equal(existsSync(join(elsewhere, '.keel')), false, 'nothing is made in the working directory');
    const next = advice(r.stdout);
    assert.match(next, /^cd ap && npx keel --policy policy\.yaml publish /);
    const followed = followAdvice(next, elsewhere);
    assert.equal(followed.code, 0, followed.out);
    assert.match(followed.out, /passed: \d+ of \d+/);
  });

  test('a store chosen with --store is used as chosen, not moved into <dir>', () => {
    const store = join(sandbox.dir, 'chosen', 'keel.db');
    const r = runKeel(['--store', store, 'init', 'chosen-project'], { cwd: sandbox.dir });
    assert.equal(r.code, 0, show(r));
    assert.ok(existsSync(store), show(r));
    assert.equal(existsSync(join(sandbox.dir, 'chosen-project', '.keel', 'keel.db')), false);
  });
});

/** Starts `keel ...args` with stdout a pipe whose reading end is closed at once (`| head -0`). */
function withClosedStdout(args: readonly string[]) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...KEEL_COMMAND, ...args], {
      cwd: sandbox.dir,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed pipe', () => {
  test('keel runs ls | head, keel --help | head, keel templates ls | head: exit 0, nothing on stderr', async () => {
    // The demo's store holds runs of each kind (completed, refused, waiting for approval).
    const demo = runKeel(['--json', 'demo', '--keep'], { cwd: sandbox.dir, timeoutMs: 60_000 });
    assert.equal(demo.code, 0, show(demo));
    const store = (JSON.parse(demo.stdout) as { store: string }).store;
    after(() => rmSync(dirname(store), { recursive: true, force: true }));
    const listed = runKeel(['--store', store, '--tenant', 'acme-support', 'runs', 'ls']);
    assert.ok(listed.stdout.split('\n').length > 4, `the store has runs to list\n${show(listed)}`);
    for (const args of [
      ['--store', store, '--tenant', 'acme-support', 'runs', 'ls'],
      ['--store', store, '--tenant', 'acme-support', '--json', 'runs', 'ls'],
      ['--help'],
      ['templates', 'ls'],
    ]) {
      const r = await withClosedStdout(args);
      assert.equal(r.stderr, '', `keel ${args.join(' ')} | head -0: nothing on stderr`);
      assert.equal(r.code, 0, `keel ${args.join(' ')} | head -0 exits 0`);
    }
  });
});

describe('an MCP server whose header secret is not set', () => {
  test('keel tools approve exits 2 (usage), naming the variable and its header; nothing is sent', () => {
    const file = join(sandbox.dir, 'mcp-tools.yaml');
    writeFileSync(
      file,
      'mcp:\n  search:\n    url: http://127.0.0.1:9/mcp\n    headers:\n      Authorization: Bearer {{secret.SEARCH_TOKEN}}\n',
    );
    const r = runKeel(['--json', 'tools', 'approve', file], {
      cwd: sandbox.dir,
      env: { SEARCH_TOKEN: undefined },
    });
    const e = failJson(r, 2);
    assert.equal(e.error, 'usage', show(r));
    assert.match(e.message, /secret SEARCH_TOKEN \(header Authorization\) is not set in the environment/);
    assert.deepEqual(e.details, { server: 'search', field: 'SEARCH_TOKEN', header: 'Authorization' });
  });
});
