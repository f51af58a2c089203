/**
 * Pausing runs: a run walked in this process finishes the step in progress and stops at the
 * boundary; any other running run is held at its head. No step starts while paused (the tools'
 * spies prove it), a paused run survives a restart, `unpause` walks on, and a ledger with pauses
 * verifies, replays identically (the pauses are written again where they were) and forks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import type { Entry } from '../core/ledger/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-pause-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;
const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
const SPEC = `id: w
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: slow}
  - {name: b, tool: noop}
  - {name: c, tool: noop}
limits: {maxSteps: 3, maxCostUsd: 0}
`;

async function sound(keel: Keel, runId: string) {
  assert.equal((await keel.runs.verify('t1', runId)).ok, true);
  const replay = await keel.runs.replay('t1', runId);
  assert.equal(replay.identical, true, JSON.stringify(replay));
}

describe('pause', () => {
  test('a walk in this process finishes its step, stops at the boundary, and walks on after unpause', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = spyTool('slow', {
      handler: async () => {
        await gate;
        return { slow: true };
      },
    });
    const noop = spyTool('noop');
    const keel = createKeel({ store: ':memory:', tools: [slow, noop], sources: fakeSources() });
    await deploy(keel, 't1', SPEC);
    const walking = keel.events.emit('t1', go('e1'));
    while (slow.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const runId = (await keel.runs.list('t1')).runs[0]!.runId;
    const pausing = keel.runs.pause('t1', runId, { by: 'dana', reason: 'check first' });
    await new Promise((r) => setTimeout(r, 20));
    release(); // the step in progress finishes (drain-current-node)
    const paused = await pausing;
    await walking;
    assert.equal(paused.status, 'paused');
    assert.equal(noop.calls.length, 0, 'no step starts while paused');
    const entries = await keel.runs.entries('t1', runId);
    assert.deepEqual(kinds(entries).slice(-2), ['step.completed', 'run.paused']);
    assert.equal((await keel.runs.get('t1', runId)).status, 'paused');
    assert.equal(
      (await keel.runs.recover('t1', runId)).status,
      'paused',
      'resume after a restart leaves it paused',
    );
    assert.equal(noop.calls.length, 0);
    await assert.rejects(keel.runs.pause('t1', runId, { by: 'dana' }), isCode('run_state'));
    const done = await keel.runs.resume('t1', runId, { by: 'erin' });
    assert.equal(done.status, 'completed');
    assert.equal(noop.calls.length, 2);
    const all = kinds(await keel.runs.entries('t1', runId));
    assert.equal(all.indexOf('run.resumed'), all.indexOf('run.paused') + 1);
    await sound(keel, runId);
    const history = await keel.runs.history('t1', runId);
    assert.ok(
      history.some((h) => h.text === 'dana paused the run: check first; no step starts until it is resumed.'),
    );
    await assert.rejects(keel.runs.resume('t1', runId, { by: 'erin' }), isCode('run_terminal'));
    await assert.rejects(keel.runs.pause('t1', runId, { by: 'erin' }), isCode('run_terminal'));
  });

  test('a run nobody walks is held at its head; the hold survives a new process; forks and replay agree', async () => {
    const file = join(dir, 'held.db');
    const tools = () => [spyTool('slow'), spyTool('noop')];
    const first = createKeel({ store: file, tools: tools(), sources: fakeSources() });
    await deploy(first, 't1', SPEC);
    const [run] = (await first.events.emit('t1', go('e2'), { walk: 'enqueue' })).runs;
    assert.equal((await first.runs.pause('t1', run!.runId, { by: 'dana' })).status, 'paused');
    await assert.rejects(first.runs.pause('t2', run!.runId, { by: 'eve' }), isCode('not_found'));
    await first.close();
    const again = tools();
    const second = createKeel({ store: file, tools: again, sources: fakeSources() });
    assert.equal((await second.runs.recover('t1', run!.runId)).status, 'paused');
    assert.equal(again[0]!.calls.length, 0);
    await sound(second, run!.runId);
    assert.equal((await second.runs.resume('t1', run!.runId, { by: 'dana' })).status, 'completed');
    await sound(second, run!.runId);
    const entries = await second.runs.entries('t1', run!.runId);
    for (let fromSeq = 1; fromSeq <= entries.length; fromSeq++) {
      const fork = await second.runs.fork('t1', run!.runId, { fromSeq, mode: 'replay' });
      assert.equal(fork.status, 'completed', `replay fork from ${fromSeq}`);
      assert.deepEqual(
        kinds(await second.runs.entries('t1', fork.runId)),
        kinds(entries),
        `replay fork from ${fromSeq}`,
      );
      assert.equal((await second.runs.verify('t1', fork.runId)).ok, true);
    }
    await second.close();
  });
});
