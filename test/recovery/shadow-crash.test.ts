/**
 * Shadow runs survive crashes like any run, with real processes: `keel emit` starts the live run of
 * v1 (which completes) and, beside it, the shadow run of v2, whose read tool hangs; the process is
 * killed with SIGKILL inside that call. The dead process's shadow holds nothing: later events, even
 * with one shadow run at a time allowed, get their comparisons from the processes that emit them.
 * `keel status` shows the dead one's comparison still to make; `keel recover --all` finishes the
 * shadow from its ledger head and works its item of the shadow queue; its comparison with the live
 * run is then kept exactly once, however often it is asked for; the shadow verifies; and the tool
 * that acts was called by the live runs alone.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { KEEL_COMMAND } from '../../src/testing/keel-command.ts';
import { okJson, REPO, Sandbox } from '../helpers/keel-cli.ts';
import { callsIn, shadowTools } from './shadow-tools.ts';

const TOOLS = join(import.meta.dirname, 'shadow-tools.ts');
const spec = (version: number, status: string, hang: boolean) => `id: pay
version: ${version}
status: ${status}
triggers: [{ event: order.paid }]
steps:
  - { name: look, tool: peek, args: { order: "{{event.subject}}", hang: ${hang} } }
  - { name: pay, tool: pay, args: { amount: ${version === 1 ? 40 : 45} } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const sandboxes: Sandbox[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const s of sandboxes) s.remove();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a shadow run killed mid-walk is recovered, and its comparison is kept exactly once', async () => {
  const sandbox = new Sandbox('shadow-crash');
  sandboxes.push(sandbox);
  const store = sandbox.store();
  const effects = join(sandbox.dir, 'effects.db');
  const keel = createKeel({ store, tools: shadowTools(effects, false) });
  await deploy(keel, 'default', spec(1, 'LIVE', false));
  await deploy(keel, 'default', spec(2, 'SHADOW', true));
  await keel.close();
  const event = sandbox.write('order.json', {
    id: 'o1',
    type: 'order.paid',
    subject: 'O-1',
    time: '2026-12-01T10:00:00Z',
    payload: {},
  });
  const env = { ...process.env, NO_COLOR: '1', SHADOW_EFFECTS: effects, SHADOW_HANG: '1' };
  const child = spawn(
    process.execPath,
    [...KEEL_COMMAND, '--store', store, '--tools', TOOLS, 'emit', event, '--json'],
    {
      cwd: REPO,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  // The live run is done (and printed) and the shadow is inside its hanging read.
  const deadline = Date.now() + 60_000;
  while (!(out.includes('completed') && (callsIn(effects).peek ?? 0) >= 2)) {
    assert.ok(Date.now() < deadline, `timed out: ${out}`);
    assert.equal(child.exitCode, null, `keel emit exited early: ${out}`);
    await sleep(50);
  }
  assert.equal(child.exitCode, null, 'keel emit is still inside the shadow');
  const gone = once(child, 'exit');
  child.kill('SIGKILL');
  await gone;

  const run = (args: string[]) =>
    sandbox.keel(['--tools', TOOLS, ...args], { env: { SHADOW_EFFECTS: effects } });
  const shadows = okJson<{ runs: { runId: string; status: string; mode?: string }[] }>(
    run(['runs', 'ls', '--json']),
  );
  const shadow = shadows.runs.find((r) => r.mode === 'shadow');
  assert.equal(shadow?.status, 'running', 'the shadow was cut mid-walk');
  const queued = (json: { shadowQueue: { waiting: number; running: number } }) =>
    json.shadowQueue.waiting + json.shadowQueue.running;
  assert.equal(
    queued(okJson(run(['status', '--json']))),
    1,
    "the dead process's comparison is still to make",
  );
  // Later events, one shadow run at a time allowed: the dead shadow holds no slot, nothing is skipped.
  for (const id of ['o2', 'o3', 'o4']) {
    const file = sandbox.write(`${id}.json`, {
      id,
      type: 'order.paid',
      subject: `O-${id}`,
      time: '2026-12-01T10:00:00Z',
      payload: {},
    });
    okJson(run(['--max-shadow-runs', '1', 'emit', file, '--json']));
  }
  const before = okJson<{
    comparisons: number;
    skipped: number;
    queue: { waiting: number; running: number };
  }>(run(['shadow', 'report', 'pay', '--json']));
  assert.deepEqual(
    [before.comparisons, before.skipped, before.queue.waiting + before.queue.running],
    [3, 0, 1],
  );
  const recovered = okJson<{
    recovered: number;
    byStatus: Record<string, number>;
    shadows: { worked: number };
  }>(run(['recover', '--all', '--json']));
  assert.deepEqual([recovered.recovered, recovered.byStatus.completed, recovered.shadows.worked], [1, 1, 1]);
  assert.equal(queued(okJson(run(['status', '--json']))), 0);
  for (let i = 0; i < 2; i++) {
    const report = okJson<{ comparisons: number; agreed: number }>(
      run(['shadow', 'report', 'pay', '--json']),
    );
    assert.deepEqual(
      [report.comparisons, report.agreed],
      [4, 0],
      'one comparison per event: v2 pays 45 where v1 paid 40',
    );
  }
  assert.equal(okJson<{ ok: boolean }>(run(['verify', shadow!.runId, '--json'])).ok, true);
  const calls = callsIn(effects);
  assert.equal(calls.pay, 4, 'only the live runs paid');
  assert.equal(
    calls.peek,
    9,
    'the live read, the shadow read cut by the kill, and its read again on recovery; a live and a shadow read per later event',
  );
});
