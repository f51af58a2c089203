/**
 * Crash safety of parallel branches, with a real kill: the process is SIGKILLed while the calls
 * of two branches are both in flight (both allows durable, neither outcome recorded). The ledger
 * verifies and holds both allows in flight; recovery settles each one: the idempotent call is
 * made again with the same idempotency key, the non-idempotent one is never re-run on Keel's own
 * initiative — its reconcile check settles it, or without one the run is outcome_unknown until a
 * person says what happened — and then the branches join and the run completes. Replay of the
 * recovered run is identical and calls nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { foldRun } from '../../src/core/run/index.ts';
import { spyTool } from '../../src/testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-parallel-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const child = join(import.meta.dirname, 'parallel-crash-child.ts');

function crashWithTwoInFlight(name: string) {
  const store = join(dir, `${name}.db`);
  const marker = join(dir, `${name}.calls`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', child, store, marker], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.signal, 'SIGKILL', `child should die by SIGKILL, got status ${r.status}: ${r.stderr}`);
  const calls = readFileSync(marker, 'utf8').trim().split('\n');
  const keyOf = (tool: string) => calls.find((c) => c.startsWith(`${tool} `))!.slice(tool.length + 1);
  assert.equal(calls.length, 2, 'both branches called their tool before the kill');
  return { store, lookupKey: keyOf('lookup'), chargeKey: keyOf('charge') };
}

async function reopen(store: string, reconcile: boolean, lookupFails = false) {
  const lookup = spyTool('lookup', {
    effect: 'read',
    idempotent: true,
    handler: () => {
      if (lookupFails) throw new Error('crm is down');
      return { x: 'crm' };
    },
  });
  const charge = spyTool('charge', {
    effect: 'external',
    idempotent: false,
    handler: () => ({ charged: true }),
    ...(reconcile ? { reconcile: () => ({ happened: true, output: { charged: 'found' } }) } : {}),
  });
  const reply = spyTool('reply');
  const keel = createKeel({ store, tools: [lookup, charge, reply] });
  const [run] = (await keel.runs.list('acme')).runs;
  assert.ok(run);
  const entries = await keel.runs.entries('acme', run.runId);
  assert.deepEqual(
    entries.map((e) => e.kind),
    ['run.started', 'step.allowed', 'step.allowed'],
    'both allows were durable before either call; neither outcome was recorded',
  );
  const s = foldRun(entries);
  assert.deepEqual([...s.flying.keys()], ['lookup', 'charge'], 'the fold holds both calls in flight');
  assert.equal((await keel.runs.verify('acme', run.runId)).ok, true);
  return { keel, lookup, charge, reply, runId: run.runId };
}

test('killed with two branches in flight: the idempotent call is retried with its key, the other settled by its reconcile check; the run completes', async () => {
  const { store, lookupKey } = crashWithTwoInFlight('reconciled');
  const { keel, lookup, charge, reply, runId } = await reopen(store, true);
  const done = await keel.runs.recover('acme', runId);
  assert.equal(done.status, 'completed');
  assert.deepEqual(
    lookup.calls.map((c) => c.ctx.idempotencyKey),
    [lookupKey],
  );
  assert.equal(charge.calls.length, 0, 'the non-idempotent call is never made again');
  const entries = await keel.runs.entries('acme', runId);
  assert.deepEqual(
    entries.map((e) =>
      e.kind.startsWith('step.') ? `${e.kind}:${(e.payload as { step: string }).step}` : e.kind,
    ),
    [
      'run.started',
      'step.allowed:lookup',
      'step.allowed:charge',
      'step.completed:lookup',
      'step.reconciled:charge',
      'parallel.joined',
      'step.allowed:reply',
      'step.completed:reply',
      'run.finished',
    ],
  );
  assert.deepEqual(reply.calls[0]!.args, { text: 'crm found' });
  assert.equal((await keel.runs.verify('acme', runId)).ok, true);
  const before = lookup.calls.length + charge.calls.length + reply.calls.length;
  assert.equal((await keel.runs.replay('acme', runId)).identical, true);
  assert.equal(
    lookup.calls.length + charge.calls.length + reply.calls.length,
    before,
    'replay calls nothing',
  );
  await keel.close();
});

test('killed with two branches in flight, no reconcile check: outcome_unknown until a person decides, then the branches join and the run completes', async () => {
  const { store, lookupKey, chargeKey } = crashWithTwoInFlight('suspended');
  const { keel, lookup, charge, runId } = await reopen(store, false);
  const held = await keel.runs.recover('acme', runId);
  assert.equal(held.status, 'outcome_unknown');
  assert.deepEqual(
    lookup.calls.map((c) => c.ctx.idempotencyKey),
    [lookupKey],
  );
  assert.equal(charge.calls.length, 0);
  const suspended = (await keel.runs.entries('acme', runId)).at(-1)!;
  assert.equal(suspended.kind, 'run.suspended');
  const why = payloadOf(suspended, 'run.suspended');
  assert.equal(why.reason === 'outcome_unknown' && why.idempotencyKey, chargeKey);
  const done = await keel.runs.reconcile('acme', runId, {
    happened: true,
    output: { charged: 'by hand' },
    by: 'ops@acme',
  });
  assert.equal(done.status, 'completed');
  assert.equal(charge.calls.length, 0);
  const kinds = (await keel.runs.entries('acme', runId)).map((e) => e.kind);
  assert.deepEqual(kinds.slice(-6), [
    'run.suspended',
    'step.reconciled',
    'parallel.joined',
    'step.allowed',
    'step.completed',
    'run.finished',
  ]);
  assert.equal((await keel.runs.verify('acme', runId)).ok, true);
  assert.equal((await keel.runs.replay('acme', runId)).identical, true);
  await keel.close();
});

test('killed with two branches in flight, the retried call fails: the run ends failed only once the other call is settled too', async () => {
  const { store } = crashWithTwoInFlight('failed');
  const { keel, charge, reply, runId } = await reopen(store, true, true);
  const done = await keel.runs.recover('acme', runId);
  assert.equal(done.status, 'failed');
  assert.equal(charge.calls.length, 0);
  assert.equal(reply.calls.length, 0, 'nothing after the parallel runs');
  const entries = await keel.runs.entries('acme', runId);
  assert.deepEqual(
    entries.map((e) =>
      e.kind.startsWith('step.') ? `${e.kind}:${(e.payload as { step: string }).step}` : e.kind,
    ),
    [
      'run.started',
      'step.allowed:lookup',
      'step.allowed:charge',
      'step.failed:lookup',
      'step.reconciled:charge',
      'run.finished',
    ],
    'the other call in flight is settled before the run ends',
  );
  assert.match(JSON.stringify(entries.at(-1)!.payload), /lookup: crm is down/);
  assert.equal((await keel.runs.verify('acme', runId)).ok, true);
  const r = await keel.runs.replay('acme', runId);
  assert.equal(r.identical, true, JSON.stringify(r));
  await keel.close();
});
