/**
 * Shadow runs survive crashes like any run, with real processes: `keel emit` starts the live run of
 * v1 (which completes) and, beside it, the shadow run of v2, whose read tool hangs; the process is
 * killed with SIGKILL inside that call. `keel recover --all` finishes the shadow from its ledger
 * head; its comparison with the live run is then kept exactly once, however often it is asked
 * for; the shadow verifies; and the tool that acts was called by the live run alone.
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
  const recovered = okJson<{ recovered: number; byStatus: Record<string, number> }>(
    run(['recover', '--all', '--json']),
  );
  assert.deepEqual([recovered.recovered, recovered.byStatus.completed], [1, 1]);
  for (let i = 0; i < 2; i++) {
    const report = okJson<{ comparisons: number; agreed: number }>(
      run(['shadow', 'report', 'pay', '--json']),
    );
    assert.deepEqual(
      [report.comparisons, report.agreed],
      [1, 0],
      'one comparison: v2 pays 45 where v1 paid 40',
    );
  }
  assert.equal(okJson<{ ok: boolean }>(run(['verify', shadow!.runId, '--json'])).ok, true);
  const calls = callsIn(effects);
  assert.equal(calls.pay, 1, 'only the live run paid');
  assert.equal(
    calls.peek,
    3,
    'the live read, the shadow read cut by the kill, and its read again on recovery',
  );
});
