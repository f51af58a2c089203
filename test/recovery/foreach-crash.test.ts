/**
 * Loops survive crashes, with real processes: runs loop over their event's lines (a payment and a
 * note per line) while the `keel serve` walking them is SIGKILLed mid-iteration and restarted.
 * Afterwards every run has completed, with one `foreach.started`, and each line's payment (a
 * non-idempotent tool with a reconcile check) happened exactly once, counted on the tool's own
 * side, under a key of its own; every run verifies. On SQLite (one server).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { countRuns, crashSites, effectCalls, paymentsMade, until } from './crash-site.ts';
import { crashTools } from './crash-tools.ts';

const RUNS = 20;
const LINES = 3;
const SPEC = `id: loops
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - name: each_line
    forEach: { items: "{{ event.payload.lines }}", as: line, max: 5 }
    steps:
      - { name: pay, tool: pay, args: { line: "{{ line }}" } }
      - { name: noted, tool: note, args: { line: "{{ line }}" } }
  - { name: b, tool: note }
limits: { maxSteps: 12, maxCostUsd: 0 }
`;

const sites = crashSites();

test('loops on SQLite: keel serve SIGKILLed mid-iteration; every line paid exactly once', async (t) => {
  const site = sites.sqlite('foreach-crash');
  const { log } = site;
  const keel = createKeel({ store: site.keelStore, tools: crashTools(log), walk: 'enqueue' });
  try {
    await deploy(keel, 'acme', SPEC);
    let server = await site.serve();
    for (let i = 0; i < RUNS; i++)
      await keel.events.emit('acme', {
        id: `e${i}`,
        type: 'go',
        time: '2026-01-01T00:00:00Z',
        payload: { lines: Array.from({ length: LINES }, (_, j) => `r${i}-l${j}`) },
      });
    // Kill while some runs are inside their loops: some payments made, not all.
    await until(
      'payments began',
      60_000,
      async () => (await log.rows()).filter((r) => r.tool === 'pay').length >= (RUNS * LINES) / 4,
      50,
    );
    const paidBeforeKill = (await log.rows()).filter((r) => r.tool === 'pay').length;
    await server.kill9();
    server = await site.serve();
    await until(
      'every run completed',
      120_000,
      async () => (await countRuns(keel, 'completed')) === RUNS,
      200,
    );
    const calls = await effectCalls(log);
    for (const r of (await keel.runs.list('acme', { limit: 1000 })).runs) {
      const entries = await keel.runs.entries('acme', r.runId);
      assert.equal(entries.filter((e) => e.kind === 'foreach.started').length, 1);
      const pays = entries
        .filter((e) => e.kind === 'step.allowed')
        .map((e) => payloadOf(e, 'step.allowed'))
        .filter((a) => a.tool === 'pay');
      const steps = [...new Set(pays.map((a) => a.step))];
      assert.deepEqual(
        steps,
        Array.from({ length: LINES }, (_, j) => `each_line[${j}].pay`),
      );
      for (const step of steps)
        assert.equal(paymentsMade(entries, calls, step), 1, `run ${r.runId}: ${step} paid exactly once`);
      assert.ok((await keel.runs.verify('acme', r.runId)).ok, `run ${r.runId} verifies`);
    }
    t.diagnostic(
      `${RUNS} runs of ${LINES} lines, killed with ${paidBeforeKill} of ${RUNS * LINES} paid: every line paid once`,
    );
    assert.equal(await server.stop(), 0);
  } finally {
    await keel.close();
  }
});
