/**
 * A run started by a CLI process that died is finished by the next Keel that looks, with real
 * processes: `keel emit` is SIGKILLed inside a tool call, then `keel recover --all` (or a `keel
 * serve` started afterwards, with no worker anywhere) continues the run from its ledger head at
 * once — the dead process's lease is taken over, not waited out. A run whose walker is alive is
 * left to it: `keel recover <run>` refuses it (exit 4).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { failJson, okJson, REPO, Sandbox } from '../helpers/keel-cli.ts';
import { KeelServer } from '../helpers/keel-server.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { runRow } from '../helpers/sqlite-files.ts';
import { effectLog } from './crash-tools.ts';

const TOOLS = join(import.meta.dirname, 'crash-tools.ts');
const SPEC = `id: slow
version: 1
status: DRAFT
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - { name: s, tool: slow }
  - { name: b, tool: note }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;

const children: ChildProcess[] = [];
const sandboxes: Sandbox[] = [];
const servers: KeelServer[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of servers) await s.kill9();
  for (const s of sandboxes) s.remove();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ms: number, done: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(100);
  }
}

/** A sandbox with the slow workflow AUTONOMOUS, an event file, and the crash tools wired. */
async function setup(name: string) {
  const sandbox = new Sandbox(name);
  sandboxes.push(sandbox);
  const effects = join(sandbox.dir, 'effects.db');
  const env = { CRASH_EFFECTS: effects, SLOW_MS: '60000' };
  const keel = (args: readonly string[]) => sandbox.keel(['--tools', TOOLS, ...args], { env });
  okJson(keel(['publish', sandbox.write('slow.yaml', SPEC), '--json']));
  // Not a test of promotion: put at AUTONOMOUS directly (a recorded fixture, past the gates).
  await putAtStatus(sandbox.store(), 'default', 'slow', 'AUTONOMOUS');
  const event = sandbox.write('go.json', { id: 'g1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
  return { sandbox, effects, env, keel, event };
}

/**
 * `keel emit` (or `keel run slow`) in the background; resolves once its run is inside the slow
 * tool's first call.
 */
async function emitAndHang(
  s: Awaited<ReturnType<typeof setup>>,
  command: 'emit' | 'run' = 'emit',
): Promise<ChildProcess> {
  const what = command === 'emit' ? ['emit', s.event] : ['run', 'slow', s.event];
  const child = spawn(
    process.execPath,
    [...KEEL_COMMAND, '--store', s.sandbox.store(), '--tools', TOOLS, ...what, '--json'],
    { cwd: REPO, env: { ...process.env, ...s.env, NO_COLOR: '1' }, stdio: 'ignore' },
  );
  children.push(child);
  const log = effectLog(s.effects);
  try {
    await until('the slow step is running', 30_000, async () =>
      (await log.rows()).some((r) => r.tool === 'slow'),
    );
  } finally {
    await log.close();
  }
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const gone = once(child, 'exit');
  child.kill('SIGKILL');
  await gone;
}

function runningRun(s: Awaited<ReturnType<typeof setup>>): string {
  const runs = okJson<{ runs: { runId: string; status: string }[] }>(s.keel(['runs', 'ls', '--json'])).runs;
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.status, 'running');
  return runs[0]!.runId;
}

test('keel recover: refuses a run a live process walks; after that process is killed, --all finishes it at once', async () => {
  const s = await setup('recover-cli');
  const emit = await emitAndHang(s);
  const runId = runningRun(s);
  const refused = failJson(s.keel(['recover', runId, '--json']), 4);
  assert.equal(refused.error, 'run_state');
  assert.match(refused.message, /another process/);
  await kill9(emit);
  // The lease the dead process held is still live: recovering now means it was taken over.
  const lease = runRow(s.sandbox.store(), runId);
  assert.match(String(lease?.lease_owner), /^inline:.+:\d+$/);
  assert.ok(Number(lease?.lease_until) > Date.now() + 5000, 'the dead walker’s lease has seconds to run');
  const out = okJson<{ recovered: number; byStatus: Record<string, number>; errors: number }>(
    s.keel(['recover', '--all', '--json']),
  );
  assert.deepEqual([out.recovered, out.byStatus.completed, out.errors], [1, 1, 0]);
  assert.equal(okJson<{ ok: boolean }>(s.keel(['verify', runId, '--json'])).ok, true);
  const history = okJson<{ kind: string }[]>(s.keel(['history', runId, '--json'])).map((h) => h.kind);
  assert.deepEqual(history.filter((k) => k === 'step.allowed').length, 3, 'each step allowed once');
  assert.equal(okJson<{ recovered: number }>(s.keel(['recover', '--all', '--json'])).recovered, 0);
});

test('a keel serve started after a killed keel emit finishes its run with no worker anywhere', async () => {
  const s = await setup('recover-serve');
  const emit = await emitAndHang(s);
  const runId = runningRun(s);
  await kill9(emit);
  const server = await KeelServer.start(s.sandbox, ['--tools', TOOLS], s.sandbox.store(), s.env);
  servers.push(server);
  await until('the run completed', 20_000, () => {
    const r = s.keel(['runs', 'show', runId, '--json']);
    return r.code === 0 && (JSON.parse(r.stdout) as { status: string }).status === 'completed';
  });
  // (polled with spawnSync, which blocks this process: its pipe is read once the loop turns)
  await until('the server reports the run it recovered', 5000, () => /"kind":"walked"/.test(server.stderr));
  assert.equal(await server.stop(), 0);
  assert.equal(okJson<{ ok: boolean }>(s.keel(['verify', runId, '--json'])).ok, true);
});

test('a keel serve already running finishes the run of a keel run killed meanwhile, with no worker anywhere', async () => {
  const s = await setup('recover-serving');
  const server = await KeelServer.start(s.sandbox, ['--tools', TOOLS], s.sandbox.store(), s.env);
  servers.push(server);
  const run = await emitAndHang(s, 'run');
  const runId = runningRun(s);
  await kill9(run);
  // Found by the server's continual recovery: the dead process's lease is taken over, not waited out.
  await until('the run completed', 20_000, () => {
    const r = s.keel(['runs', 'show', runId, '--json']);
    return r.code === 0 && (JSON.parse(r.stdout) as { status: string }).status === 'completed';
  });
  await until('the server reports the run it recovered', 5000, () => /"kind":"walked"/.test(server.stderr));
  assert.equal(await server.stop(), 0);
  assert.equal(okJson<{ ok: boolean }>(s.keel(['verify', runId, '--json'])).ok, true);
});
