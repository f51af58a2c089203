import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
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
      /keel promote w AUTONOMOUS/.test((e as Error).message),
  );
  assert.deepEqual(await keel.workflows.list('t1'), []);
  await keel.close();
});
