/**
 * The shadow pipeline on PostgreSQL through createKeel: a live run's root queues its SHADOW
 * versions' comparisons in the append statement's transaction; a narrowed candidate disagrees
 * without a run, a broadened one runs alone; a second store on the same schema (another process, in
 * effect) drains what the first left in the queue, in turn across candidates, and nothing is left.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createKeel } from '../../app/index.ts';
import { deploy, spyTool } from '../../testing/index.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_shadows');
after(() => dropSchema(url, schema));

const tools = () => [
  spyTool('reply', { effect: 'write', simulate: (a) => ({ sent: a.ticket, simulated: true }) }),
  spyTool('refund', {
    effect: 'external',
    idempotent: false,
    cost: { fromArg: 'amount' },
    simulate: (a) => ({ refunded: a.amount, simulated: true }),
  }),
];

const spec = (version: number, status: string, when?: string) => `id: refund
version: ${version}
status: ${status}
triggers:
  - event: refund.requested
${when ? `    when: ${JSON.stringify(when)}\n` : ''}steps:
  - { name: reply, tool: reply, args: { ticket: "{{event.subject}}" } }
  - { name: refund, tool: refund, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 3, maxCostUsd: 100 }
`;

test('on PostgreSQL: comparisons queued with the live root, start/no-start disagreements, drained by another store', async () => {
  // This process walks no shadow runs: its comparisons wait in the queue for another process.
  const keel = createKeel({ store: await openScratchStore(url, schema), tools: tools(), maxShadowRuns: 0 });
  try {
    await deploy(keel, 'acme', spec(1, 'LIVE', 'payload.amount < 50'));
    await deploy(keel, 'acme', spec(2, 'SHADOW', 'payload.amount <= 30'));
    await deploy(keel, 'acme', spec(3, 'SHADOW'));
    let n = 0;
    for (const amount of [20, 40, 70]) {
      const id = `e${n++}`;
      await keel.events.emit('acme', {
        id,
        type: 'refund.requested',
        subject: `T-${id}`,
        time: '2026-12-01T10:00:00Z',
        payload: { amount },
      });
    }
    await keel.lifecycle.settled();
    // v2 and v3 beside the runs of $20 and $40; v3 alone on $70 (v1 and v2 do not start on it).
    const lag = await keel.lifecycle.shadowQueue.status({ tenant: 'acme' });
    assert.deepEqual([lag.waiting, lag.running], [5, 0]);
    assert.ok(lag.oldestAgeMs !== undefined && lag.oldestAgeMs >= 0);
  } finally {
    await keel.close();
  }
  const other = createKeel({ store: await openScratchStore(url, schema), tools: tools() });
  try {
    assert.deepEqual(await other.lifecycle.shadowQueue.drain({ tenant: 'acme' }), { worked: 5, retried: 0 });
    const v2 = await other.lifecycle.shadowReport('acme', 'refund', { version: 2 });
    assert.deepEqual(
      [v2.comparisons, v2.agreed, v2.starts.wouldNotStart, v2.starts.wouldStartAlone],
      [2, 1, 1, 0],
    );
    const v3 = await other.lifecycle.shadowReport('acme', 'refund', { version: 3 });
    assert.deepEqual(
      [v3.comparisons, v3.agreed, v3.starts.wouldNotStart, v3.starts.wouldStartAlone],
      [3, 2, 0, 1],
    );
    assert.deepEqual(await other.lifecycle.shadowQueue.status(), {
      waiting: 0,
      running: 0,
      failed: 0,
      failures: [],
    });
    for (const r of (await other.runs.list('acme', { mode: 'shadow' })).runs)
      assert.equal((await other.runs.verify('acme', r.runId)).ok, true);
  } finally {
    await other.close();
  }
});
