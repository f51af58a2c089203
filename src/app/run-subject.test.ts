/**
 * A run row's subject is a projection of its root's event, checked like its other identity
 * columns: a run started by an event keeps that event's subject, and a row whose subject was
 * edited in the file fails verification as `row_mismatch` naming `subject`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { deploy } from '../testing/index.ts';
import { createKeel } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-run-subject-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a run keeps its event's subject; a row whose subject was edited fails verification naming it", async () => {
  const store = join(dir, 'keel.db');
  const keel = createKeel({ store });
  try {
    await deploy(
      keel,
      'acme',
      'id: ping\nversion: 1\nstatus: LIVE\ntriggers: [{event: ping}]\nsteps: [{name: a, tool: core.noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    const emit = async (id: string, subject?: string) =>
      (
        await keel.events.emit('acme', {
          id,
          type: 'ping',
          time: '2026-01-01T00:00:00Z',
          ...(subject ? { subject } : {}),
        })
      ).runs[0]!.runId;
    const ticket = await emit('e-1', 'T-7');
    const none = await emit('e-2');
    assert.equal((await keel.runs.get('acme', ticket)).subject, 'T-7');
    assert.equal((await keel.runs.get('acme', none)).subject, undefined);
    assert.equal((await keel.runs.verify('acme', ticket)).ok, true);
    const raw = new Database(store);
    raw.prepare("UPDATE runs SET subject = 'T-8' WHERE run_id = ?").run(ticket);
    raw.close();
    const r = await keel.runs.verify('acme', ticket);
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.failure.code === 'row_mismatch', JSON.stringify(r));
    assert.match(
      !r.ok ? r.failure.message : '',
      /the run row's subject is "T-8" but the ledger's root says "T-7"/,
    );
  } finally {
    await keel.close();
  }
});
