/**
 * `walk: 'background'` (what `keel serve` starts an event's runs with): the emit answers once each
 * new run's root is durable, under this process's lease, and hands the walk, already going, to
 * `onWalk`; nothing claims the run. Without `onWalk` it is refused before anything is written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deploy, fakeSources, isCode } from '../testing/index.ts';
import { createKeel } from './keel.ts';

const SPEC = `id: three
version: 1
status: LIVE
triggers: [{ event: tick }]
steps:
  - { name: a, tool: core.noop }
  - { name: b, tool: core.noop }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
const tick = (id: string) => ({ id, type: 'tick', time: '2026-12-01T10:00:00Z', payload: {} });

test('a background start answers at the durable root and walks the run on, with no claim', async () => {
  const keel = createKeel({ store: ':memory:', sources: fakeSources() });
  try {
    await deploy(keel, 'acme', SPEC);
    let claims = 0;
    const queue = keel.store.queue;
    const claimRuns = queue.claimRuns.bind(queue);
    queue.claimRuns = (...a: Parameters<typeof claimRuns>) => {
      claims++;
      return claimRuns(...a);
    };
    const walks: { runId: string; walking: Promise<unknown> }[] = [];
    const r = await keel.events.emit('acme', tick('e-1'), {
      walk: 'background',
      onWalk: (runId, walking) => walks.push({ runId, walking }),
    });
    assert.equal(r.runs.length, 1);
    const run = r.runs[0]!;
    assert.equal(run.created, true);
    assert.equal(run.status, 'running');
    assert.deepEqual(
      walks.map((w) => w.runId),
      [run.runId],
    );
    // Its root is stored, leased to this process while it walks.
    const stored = await keel.store.runs.getRun('acme', run.runId);
    assert.ok(stored);
    await walks[0]!.walking;
    assert.equal((await keel.runs.get('acme', run.runId)).status, 'completed');
    assert.equal(claims, 0, 'the run was claimed');
  } finally {
    await keel.close();
  }
});

test('a background start without onWalk is refused before the event is delivered', async () => {
  const keel = createKeel({ store: ':memory:', sources: fakeSources() });
  try {
    await deploy(keel, 'acme', SPEC);
    await assert.rejects(keel.events.emit('acme', tick('e-2'), { walk: 'background' }), (e) => {
      assert.ok(isCode('usage')(e), String(e));
      assert.equal((e as { details: { field?: string } }).details.field, 'onWalk');
      return true;
    });
    assert.equal(await keel.events.delivered('acme', 'library', 'e-2'), undefined);
    assert.equal((await keel.store.runs.listRuns('acme')).runs.length, 0);
  } finally {
    await keel.close();
  }
});
