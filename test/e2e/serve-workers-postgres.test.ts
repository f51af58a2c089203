/**
 * `keel serve --workers` on PostgreSQL: the server walks nothing itself (zero embedded walkers);
 * runs it creates wait, committed, until a `keel worker` process claims them. Real processes on a
 * fresh schema of KEEL_TEST_DATABASE_URL (default the local server); never skips.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../../src/adapters/postgres/index.ts';
import { WorkerProcess } from '../../src/testing/worker-process.ts';
import { okJson, Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_serve');
const store = (() => {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.toString();
})();
const sandbox = new Sandbox('serve-workers');
let server: KeelServer | undefined;
let worker: WorkerProcess | undefined;
after(async () => {
  await server?.stop();
  if (worker?.alive) await worker.kill9();
  await dropSchema(url, schema);
  sandbox.remove();
});

test('runs created over HTTP wait for a worker, which walks them (approvals included) from the ledger head', async () => {
  okJson(sandbox.keel(['--store', store, '--json', 'migrate']));
  const key = createKey(sandbox, 'acme', store);
  server = await KeelServer.start(sandbox, ['--workers'], store);
  const noop = await server.api<{ runId: string }>('POST', '/v1/runs', {
    key,
    body: { workflowId: 'conformance-noop' },
  });
  const gate = await server.api<{ runId: string }>('POST', '/v1/runs', {
    key,
    body: { workflowId: 'conformance-approval' },
  });
  assert.equal(noop.status, 201, JSON.stringify(noop.body));
  await new Promise((r) => setTimeout(r, 500));
  const waiting = await server.api<{ events: { type: string }[] }>(
    'GET',
    `/v1/runs/${noop.body.runId}/events`,
    { key },
  );
  assert.deepEqual(
    waiting.body.events.map((e) => e.type),
    ['run.started'],
    'nothing walked the run in the server',
  );
  worker = new WorkerProcess({ store, id: 'w-serve', pollMs: 50 });
  await worker.ready;
  assert.equal(
    (await server.waitFor(`/v1/runs/${noop.body.runId}`, key, (s) => s === 'completed')).status,
    'completed',
  );
  const w = await server.waitFor(`/v1/runs/${gate.body.runId}`, key, (s) => s === 'waiting-approval');
  assert.equal(w.currentNodeId, 'gate');
  const ok = await server.api('POST', `/v1/runs/${gate.body.runId}/approvals/gate`, {
    key,
    body: { action: 'accept' },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(
    (await server.waitFor(`/v1/runs/${gate.body.runId}`, key, (s) => s === 'completed')).status,
    'completed',
  );
  assert.equal((await worker.terminate()).code, 0, worker.stderr);
});
