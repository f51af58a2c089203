/**
 * The scale-out commands through the real `keel` binary on a SQLite file: `emit --enqueue` leaves
 * runs to workers, `status` shows the queue and the workers, `runs ls --status outcome_unknown`
 * lists suspended runs, `reconcile` settles one (and refuses bad input, changing nothing), and
 * `--tools` / KEEL_WORKERS are checked. Suspended runs are made the way a crash makes them: a
 * process stops inside a non-idempotent call, and a later one resumes the run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { inspect } from 'node:util';
import { createKeel } from '../../src/app/index.ts';
import { spyTool } from '../../src/testing/index.ts';
import { WorkerProcess } from '../../src/testing/worker-process.ts';
import { type CliError, failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';

const sandbox = new Sandbox('scale-out');
after(() => sandbox.remove());
const TOOLS = join(import.meta.dirname, '..', 'recovery', 'crash-tools.ts');
const env = { CRASH_EFFECTS: join(sandbox.dir, 'effects.db'), KEEL_TENANT: 'acme' };
const keel = (args: string[], extra: Record<string, string> = {}) =>
  sandbox.keel(['--tools', TOOLS, ...args], { env: { ...env, ...extra } });

const SPEC = `id: pay
version: 1
status: DRAFT
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - { name: pay, tool: charge }
  - { name: b, tool: note }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;
const event = (id: string) =>
  sandbox.write(`${id}.json`, { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

/** A run suspended as outcome_unknown: one process stops inside `charge`, another resumes the run. */
async function suspendedRun(id: string): Promise<string> {
  const tools = (hang: boolean) => [
    spyTool('note', { handler: () => ({ noted: true }) }),
    spyTool('charge', {
      idempotent: false,
      effect: 'external',
      handler: () => (hang ? new Promise(() => {}) : {}),
    }),
  ];
  const crashed = createKeel({ store: sandbox.store(), tools: tools(true) });
  const emitted = crashed.events.emit('acme', { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
  // An emit that ends (it starts no run, or the run does not stop in `charge`) fails the test, not hangs it.
  let ended: unknown;
  emitted.then(
    (r) => (ended = r),
    (e: unknown) => (ended = e),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    assert.equal(ended, undefined, `the emit ended instead of stopping inside charge: ${inspect(ended)}`);
    assert.ok(Date.now() < deadline, `no run of ${id} reached charge in 30 s`);
    const [run] = (await crashed.runs.list('acme', { limit: 100 })).runs.filter((r) => r.eventId === id);
    const entries = run ? await crashed.runs.entries('acme', run.runId) : [];
    if (entries.some((e) => e.kind === 'step.allowed' && (e.payload as { tool: string }).tool === 'charge')) {
      const later = createKeel({ store: sandbox.store(), tools: tools(false) });
      assert.equal((await later.runs.recover('acme', run!.runId)).status, 'outcome_unknown');
      await later.close();
      return run!.runId;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('emit --enqueue leaves the run to a worker; status shows the queue, then the worker', async () => {
  okJson(keel(['publish', sandbox.write('pay.yaml', SPEC), '--as', 'alice', '--json']));
  // Not a test of promotion: put at AUTONOMOUS directly (a recorded fixture, past the gates).
  await putAtStatus(sandbox.store(), 'acme', 'pay', 'AUTONOMOUS');
  const emitted = okJson<{ runs: { runId: string; status: string }[] }>(
    keel(['emit', event('q1'), '--enqueue', '--json']),
  );
  assert.equal(emitted.runs[0]!.status, 'running');
  const queued = okJson<{ queueDepth: number; oldestRunnable: { runId: string; ageMs: number } }>(
    keel(['status', '--json']),
  );
  assert.equal(queued.queueDepth, 1);
  assert.equal(queued.oldestRunnable.runId, emitted.runs[0]!.runId);
  assert.ok(queued.oldestRunnable.ageMs >= 0);
  assert.match(keel(['status']).stdout, /queue\s+1 runnable; oldest waiting/);

  const worker = new WorkerProcess({ store: sandbox.store(), tools: TOOLS, id: 'w-cli', env, pollMs: 100 });
  try {
    await worker.ready;
    for (let i = 0; i < 100; i++) {
      const run = okJson<{ status: string }>(keel(['runs', 'show', emitted.runs[0]!.runId, '--json']));
      if (run.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const s = okJson<{ queueDepth: number; workers: { id: string; alive: boolean; pid: number }[] }>(
      keel(['status', '--json']),
    );
    assert.equal(s.queueDepth, 0);
    assert.deepEqual(
      s.workers.map((w) => [w.id, w.alive, w.pid]),
      [['w-cli', true, worker.pid]],
    );
    // Another worker may not take a live worker's id.
    const taken = failJson(keel(['--json', 'worker', '--id', 'w-cli']), 2);
    assert.match(taken.message, /--id: worker w-cli is in use by pid \d+/);
  } finally {
    assert.equal((await worker.terminate()).code, 0);
  }
  const gone = okJson<{ workers: unknown[] }>(keel(['status', '--json']));
  assert.deepEqual(gone.workers, [], 'a stopped worker unregisters');
});

test('a suspended run is listed, told in history, and reconciled once', async () => {
  const runId = await suspendedRun('s1');
  const listed = okJson<{ runs: { runId: string }[] }>(
    keel(['runs', 'ls', '--status', 'outcome_unknown', '--json']),
  );
  assert.deepEqual(
    listed.runs.map((r) => r.runId),
    [runId],
  );
  assert.match(
    keel(['history', runId]).stdout,
    /Suspended as outcome_unknown: charge \(step pay, attempt 1\) started/,
  );
  assert.match(keel(['status']).stdout, /suspended 1 outcome_unknown/);

  const refusals: [string[], RegExp][] = [
    [['--happened', '--did-not-happen'], /exactly one of --happened and --did-not-happen/],
    [[], /exactly one of --happened and --did-not-happen/],
    [['--did-not-happen', '--output', '1'], /output: only a call that happened has an output/],
    [['--happened', '--output', '{bad'], /--output: not valid JSON/],
  ];
  for (const [flags, message] of refusals) {
    const e: CliError = failJson(keel(['reconcile', runId, ...flags, '--as', 'dana', '--json']), 2);
    assert.match(e.message, message);
  }
  assert.equal(okJson<{ status: string }>(keel(['runs', 'show', runId, '--json'])).status, 'outcome_unknown');

  const done = okJson<{ status: string; reconciledBy: string }>(
    keel(['reconcile', runId, '--happened', '--output', '{"charge_id":"ch_9"}', '--as', 'dana', '--json']),
  );
  assert.deepEqual([done.status, done.reconciledBy], ['completed', 'dana']);
  assert.match(
    keel(['history', runId]).stdout,
    /dana reconciled step pay: charge did happen and returned \{"charge_id":"ch_9"\}/,
  );
  assert.equal(okJson<{ ok: boolean }>(keel(['verify', runId, '--json'])).ok, true);
  const again = failJson(keel(['reconcile', runId, '--did-not-happen', '--as', 'eve', '--json']), 4);
  assert.equal(again.error, 'already_resolved');
});

test('reconcile --did-not-happen --enqueue leaves the retry to a worker', async () => {
  const runId = await suspendedRun('s2');
  const r = okJson<{ status: string }>(
    keel(['reconcile', runId, '--did-not-happen', '--enqueue', '--as', 'dana', '--json']),
  );
  assert.equal(r.status, 'running');
  const s = okJson<{ queueDepth: number }>(keel(['status', '--json']));
  assert.equal(s.queueDepth, 1);
});

test('bad scale-out settings are usage errors naming the setting', () => {
  const workers = failJson(keel(['runs', 'ls', '--json'], { KEEL_WORKERS: 'sometimes' }), 2);
  assert.match(workers.message, /KEEL_WORKERS: expected embedded or external, got "sometimes"/);
  const tools = failJson(sandbox.keel(['--tools', 'no-such-pack.ts', 'runs', 'ls', '--json']), 2);
  assert.match(tools.message, /--tools: cannot load no-such-pack\.ts/);
  const lease = failJson(keel(['--json', 'worker', '--lease-ms', '5']), 2);
  assert.match(lease.message, /--lease-ms: expected an integer from 100 to 2147483647, got "5"/);
});
