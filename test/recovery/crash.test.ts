/**
 * Crash safety with a real kill: a process is SIGKILLed inside a tool call, after the allow
 * decision was made durable and before the result was recorded. Recovery continues from the
 * ledger head: an idempotent tool is called again with the same idempotency key; a
 * non-idempotent one is never re-run on Keel's own initiative (outcome_unknown).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { spyTool } from '../../src/testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const child = join(import.meta.dirname, 'crash-child.ts');

function crashOnce(name: string, idempotent: boolean, chain = false) {
  const store = join(dir, `${name}.db`);
  const marker = join(dir, `${name}.calls`);
  const argv = [
    '--import',
    'tsx',
    child,
    store,
    marker,
    idempotent ? 'yes' : 'no',
    ...(chain ? ['chain'] : []),
  ];
  const r = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.signal, 'SIGKILL', `child should die by SIGKILL, got status ${r.status}: ${r.stderr}`);
  const calls = readFileSync(marker, 'utf8').trim().split('\n');
  const charges = calls.filter((c) => c.startsWith('charge '));
  assert.equal(charges.length, 1);
  return { store, key: charges[0]!.slice('charge '.length), calls };
}

async function reopen(store: string, idempotent: boolean) {
  const charge = spyTool('charge', { effect: 'external', idempotent, handler: () => ({ charged: true }) });
  const mark = spyTool('mark', { handler: (_a, ctx) => ({ marked: ctx.step }) });
  const keel = createKeel({ store, tools: [charge, mark] });
  const [run] = (await keel.runs.list('acme')).runs;
  assert.ok(run);
  return { keel, charge, mark, run };
}

test('after a kill mid-call, an idempotent tool is retried once with the same idempotency key', async () => {
  const { store, key } = crashOnce('idem', true);
  const { keel, charge, run } = await reopen(store, true);
  assert.equal(run.status, 'running');
  const before = await keel.runs.entries('acme', run.runId);
  assert.equal(before.at(-1)!.kind, 'step.allowed', 'the allow decision was durable before the call');
  assert.equal(payloadOf(before.at(-1)!, 'step.allowed').idempotencyKey, key);
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);

  const resumed = await keel.runs.recover('acme', run.runId);
  assert.equal(resumed.status, 'completed');
  assert.equal(charge.calls.length, 1);
  assert.equal(charge.calls[0]!.ctx.idempotencyKey, key);
  const entries = await keel.runs.entries('acme', run.runId);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['run.started', 'step.allowed', 'step.completed', 'run.finished'],
  );
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
  await keel.close();
});

test('after a kill mid-call, a non-idempotent tool is not re-run: the run is outcome_unknown', async () => {
  const { store } = crashOnce('nonidem', false);
  const { keel, charge, run } = await reopen(store, false);
  const resumed = await keel.runs.recover('acme', run.runId);
  assert.equal(resumed.status, 'outcome_unknown');
  assert.equal(charge.calls.length, 0);
  // The suspension is recorded after the effect-started entry, and the run row says so.
  assert.deepEqual(
    (await keel.runs.entries('acme', run.runId)).slice(-2).map((e) => e.kind),
    ['step.allowed', 'run.suspended'],
  );
  assert.equal((await keel.runs.get('acme', run.runId)).status, 'outcome_unknown');
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
  await keel.close();
});

test('a kill in step 3 of idempotent steps resumes from the durable head with the same keys and completes', async () => {
  const { store, key, calls } = crashOnce('chain', true, true);
  const markKeys = calls.filter((c) => c.startsWith('mark ')).map((c) => c.slice('mark '.length));
  assert.equal(markKeys.length, 2);
  const { keel, charge, mark, run } = await reopen(store, true);
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
  const resumed = await keel.runs.recover('acme', run.runId);
  assert.equal(resumed.status, 'completed');
  // Whatever was re-run after the crash was re-run with the keys of the first attempt.
  for (const c of mark.calls) assert.ok(markKeys.includes(c.ctx.idempotencyKey));
  assert.deepEqual(
    charge.calls.map((c) => c.ctx.idempotencyKey),
    [key],
  );
  const entries = await keel.runs.entries('acme', run.runId);
  assert.deepEqual(
    entries.filter((e) => e.kind === 'step.completed').map((e) => payloadOf(e, 'step.completed').step),
    ['a', 'b', 'charge'],
  );
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
  await keel.close();
});
