import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { deploy, fakeSources, setStatus, spyTool } from '../testing/index.ts';
import { createKeel } from './keel.ts';

test('verify catches a run row whose status disagrees with its ledger', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-app-'));
  try {
    const path = join(dir, 'k.db');
    const keel = createKeel({ store: path, tools: [spyTool('noop')], sources: fakeSources() });
    await deploy(
      keel,
      't1',
      'id: w\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: a, tool: noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    const [run] = (
      await keel.events.emit('t1', { id: 'e', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
    ).runs;
    assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    const raw = new Database(path);
    raw.prepare(`UPDATE runs SET status = 'refused' WHERE run_id = ?`).run(run!.runId);
    raw.close();
    const r = await keel.runs.verify('t1', run!.runId);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.failure.code, 'status_mismatch');
    assert.match(!r.ok ? r.failure.message : '', /stored as refused but its ledger says completed/);
    await keel.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('publish refuses a spec that claims a status beyond DRAFT, and stores nothing', async () => {
  const keel = createKeel({ store: ':memory:', tools: [spyTool('noop')], sources: fakeSources() });
  await assert.rejects(
    keel.workflows.publish(
      't1',
      'id: w\nversion: 1\nstatus: AUTONOMOUS\nsteps: [{name: a, tool: noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
      'w.yaml',
      'mallory',
    ),
    (e: unknown) =>
      (e as { code?: string }).code === 'spec_invalid' &&
      /publish it as DRAFT, then promote it one step at a time \(`keel promote w TESTING`/.test(
        (e as Error).message,
      ),
  );
  assert.deepEqual(await keel.workflows.list('t1'), []);
  await keel.close();
});

test('trying a TESTING version on a real event never takes the name of the LIVE run of that event', async () => {
  const a = spyTool('noop');
  const keel = createKeel({ store: ':memory:', tools: [a], sources: fakeSources() });
  await keel.workflows.publish(
    't1',
    'id: w\nversion: 1\nstatus: DRAFT\ntriggers: [{event: go}]\nsteps: [{name: a, tool: noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    'w.yaml',
    'dana',
  );
  await keel.workflows.promote('t1', 'w', 'TESTING', 'dana');
  const event = { id: 'e', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} };
  const tried = await keel.runs.start('t1', 'w', event, { live: true });
  assert.equal(tried.status, 'completed');
  // The test is about run names, not the gates: the version is put at LIVE directly.
  await setStatus(keel, 't1', 'w', 1, 'LIVE');
  const [live] = (await keel.events.emit('t1', event)).runs;
  assert.ok(live?.created, 'the LIVE routing made a run of its own');
  assert.notEqual(live.runId, tried.runId);
  assert.equal(a.calls.length, 2, 'the LIVE run walked: it was not the tried run returned');
  const root = async (runId: string) =>
    (await keel.runs.entries('t1', runId))[0]!.payload as { direct?: true };
  assert.deepEqual([(await root(tried.runId)).direct, (await root(live.runId)).direct], [true, undefined]);
  // Both still name themselves: each root derives its own id.
  assert.equal((await keel.runs.verify('t1', tried.runId)).ok, true);
  assert.equal((await keel.runs.verify('t1', live.runId)).ok, true);
  // And each is idempotent on its own: starting or emitting again returns the same run.
  assert.equal((await keel.runs.start('t1', 'w', event, { live: true })).runId, tried.runId);
  assert.equal((await keel.events.emit('t1', event)).runs[0]?.runId, live.runId);
  await keel.close();
});
