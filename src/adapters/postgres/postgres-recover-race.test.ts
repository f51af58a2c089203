/**
 * A run read while another walker appends to it, on PostgreSQL: `recover` on a run whose lease a
 * live walker elsewhere holds (here a worker) reads the run row, then its ledger. An append
 * committed between the two reads used to look like a row behind its ledger and was refused as
 * `ledger_invalid` at seq 0 (head_mismatch) — what a burst of events against `keel serve` logged
 * from its background walks. A run being walked is not a run that fails to verify: it is read
 * again, and left to its walker (run_state). A ledger whose tail was really deleted still fails
 * head_mismatch (test/e2e/ledger-tampering.test.ts).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createKeel } from '../../app/index.ts';
import { isKeelError } from '../../core/errors.ts';
import { deploy, spyTool } from '../../testing/index.ts';
import { Worker } from '../../worker/index.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_recover_race');
after(() => dropSchema(url, schema));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((s) => `  - { name: ${s}, tool: step }`).join('\n');
const SPEC = `id: w\nversion: 1\nstatus: AUTONOMOUS\ntriggers: [{ event: go }]\nsteps:\n${steps}\nlimits: { maxSteps: 10, maxCostUsd: 0 }\n`;
const RUNS = 12;

test('recovering a run a worker is appending to is never refused as unverified', async () => {
  const step = () => [
    spyTool('step', {
      idempotent: false,
      handler: async () => {
        await sleep(5);
        return { ok: true };
      },
    }),
  ];
  // `here` only enqueues and recovers; the worker (its own store handle: another process, in effect) walks.
  const here = createKeel({ store: await openScratchStore(url, schema), tools: step(), walk: 'enqueue' });
  const there = createKeel({ store: await openScratchStore(url, schema), tools: step() });
  const worker = new Worker({
    engine: there.engine,
    store: there.store,
    id: 'w-there',
    host: 'test',
    pid: process.pid,
    clock: { now: () => Date.now() },
    pollMs: 10,
  });
  const outcomes = { runState: 0, invalid: [] as string[] };
  try {
    await deploy(here, 'acme', SPEC);
    await worker.start();
    for (let i = 0; i < RUNS; i++) {
      const ev = { id: `e${i}`, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} };
      const { runId } = (await here.events.emit('acme', ev)).runs[0]!;
      // While the worker walks it, `here` keeps trying to recover it (as a background walk would).
      for (let n = 0; n < 5000 && (await here.runs.get('acme', runId)).status !== 'completed'; n++) {
        try {
          await here.runs.recover('acme', runId);
        } catch (e) {
          if (isKeelError(e) && e.code === 'run_state') outcomes.runState++;
          else if (isKeelError(e) && e.code === 'ledger_invalid') outcomes.invalid.push(e.message);
          else throw e;
        }
      }
      assert.equal((await here.runs.get('acme', runId)).status, 'completed');
      assert.equal((await here.runs.verify('acme', runId)).ok, true);
    }
    console.log(
      JSON.stringify({ runs: RUNS, runState: outcomes.runState, invalid: outcomes.invalid.length }),
    );
    assert.ok(outcomes.runState > 0, 'the reads overlapped the walks (else this test shows nothing)');
    assert.equal(worker.stats.errors, 0);
    assert.deepEqual(outcomes.invalid, [], 'a run being walked elsewhere was refused as unverified');
  } finally {
    await worker.stop(100);
    await there.close();
    await here.close();
  }
});
