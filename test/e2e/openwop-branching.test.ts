/**
 * OpenWOP's branching-workflow sample against a real `keel serve`: the calls its client makes —
 * register the definition through the reference hosts' sample route, start a run with an
 * Idempotency-Key, poll it to its end, read its events — and its witness, both branches'
 * `node.started` before either `node.completed`. With OPENWOP_EXAMPLES_DIR (a copy of
 * openwop/openwop-examples) the sample's own client runs too, unchanged.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const sandbox = new Sandbox('openwop-branching');
let server: KeelServer;
let key: string;

before(async () => {
  key = createKey(sandbox, 'samples');
  server = await KeelServer.start(sandbox);
});
after(async () => {
  await server?.stop();
  sandbox.remove();
});

const node = (id: string, typeId: string, config: Record<string, unknown> = {}) => ({
  id,
  typeId,
  name: id,
  position: { x: 0, y: 0 },
  config,
  inputs: {},
});
/** The sample's workflow.json, as it is published (its keys and values). */
const DEFINITION = {
  id: 'branching-demo',
  name: 'Branching Workflow Demo',
  description:
    'Two parallel paths fan out from a source, run concurrently, then fan back in at a merge node. Proves DAG execution end-to-end.',
  version: '1.0.0',
  status: 'active',
  nodes: [
    node('source', 'core.noop'),
    node('branchA', 'local.sample.demo.uppercase'),
    node('branchB', 'local.sample.demo.mock-ai'),
    node('merge', 'core.flow.merge', { mode: 'combine-by-position' }),
    node('sink', 'core.noop'),
  ],
  edges: [
    { id: 'e1', sourceNodeId: 'source', targetNodeId: 'branchA' },
    { id: 'e2', sourceNodeId: 'source', targetNodeId: 'branchB' },
    { id: 'e3', sourceNodeId: 'branchA', targetNodeId: 'merge', triggerRule: 'all_success' },
    { id: 'e4', sourceNodeId: 'branchB', targetNodeId: 'merge', triggerRule: 'all_success' },
    { id: 'e5', sourceNodeId: 'merge', targetNodeId: 'sink' },
  ],
  triggers: [{ id: 'manual', type: 'manual' }],
  variables: {},
  metadata: { example: 'branching-workflow', demonstrates: ['fan-out', 'fan-in', 'all_success-merge'] },
  settings: {},
};

interface WireEvent {
  type: string;
  nodeId?: string;
  sequence: number;
  payload?: Record<string, unknown>;
}

test('the sample route registers the definition as DRAFT; again is a no-op; a stray key is refused', async () => {
  const first = await server.api('POST', '/v1/host/sample/workflows', {
    key,
    body: { definition: DEFINITION },
  });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.deepEqual(first.body, { workflowId: 'branching-demo', version: 1, status: 'DRAFT', created: true });
  const again = await server.api('POST', '/v1/host/sample/workflows', {
    key,
    body: { definition: DEFINITION },
  });
  assert.equal(again.status, 200);
  assert.equal(again.body.created, false);
  const stray = await server.api('POST', '/v1/host/sample/workflows', {
    key,
    body: { definition: DEFINITION, publish: true },
  });
  assert.equal(stray.status, 400);
  assert.equal(stray.body.error, 'validation_error');
  assert.match(String(stray.body.message), /^publish: /);
  const cyclic = await server.api('POST', '/v1/host/sample/workflows', {
    key,
    body: {
      definition: {
        ...DEFINITION,
        edges: [...DEFINITION.edges, { sourceNodeId: 'sink', targetNodeId: 'source' }],
      },
    },
  });
  assert.equal(cyclic.status, 400);
  assert.match(String(cyclic.body.message), /cycle/);
  const anonymous = await server.api('POST', '/v1/host/sample/workflows', {
    body: { definition: DEFINITION },
  });
  assert.equal(anonymous.status, 401);
  // Served on v1 only, as the reference hosts serve it.
  const bare = await server.api('POST', '/host/sample/workflows', { key, body: { definition: DEFINITION } });
  assert.equal(bare.status, 404);
});

test('its run completes with both branches started before either completed, then merged', async () => {
  await server.api('POST', '/v1/host/sample/workflows', { key, body: { definition: DEFINITION } });
  const started = await server.api<{ runId: string }>('POST', '/v1/runs', {
    key,
    body: { workflowId: 'branching-demo', inputs: { message: 'hello' } },
    headers: { 'Idempotency-Key': 'openwop-example-branching-keel-e2e-0001' },
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const path = `/v1/runs/${encodeURIComponent(started.body.runId)}`;
  const end = await server.waitFor(path, key, (s) => ['completed', 'failed', 'cancelled'].includes(s));
  assert.equal(end.status, 'completed', JSON.stringify(end));
  const r = await server.api<{ events: WireEvent[] }>('GET', `${path}/events?fromSequence=0&limit=1000`, {
    key,
  });
  assert.equal(r.status, 200);
  const seq = (type: string, nodeId: string) =>
    r.body.events.find((e) => e.type === type && e.nodeId === nodeId)?.sequence ?? -1;
  const lastStarted = Math.max(seq('node.started', 'branchA'), seq('node.started', 'branchB'));
  const firstCompleted = Math.min(seq('node.completed', 'branchA'), seq('node.completed', 'branchB'));
  assert.ok(seq('node.started', 'branchA') >= 0 && seq('node.started', 'branchB') >= 0);
  assert.ok(
    lastStarted < firstCompleted,
    `serial: ${JSON.stringify(r.body.events.map((e) => [e.type, e.nodeId]))}`,
  );
  // The join runs after both branches, and the sink after the join.
  const branchesDone = Math.max(seq('node.completed', 'branchA'), seq('node.completed', 'branchB'));
  assert.ok(branchesDone < seq('node.started', 'merge'));
  assert.ok(seq('node.completed', 'merge') < seq('node.started', 'sink'));
  const types = r.body.events.map((e) => e.type);
  assert.equal(types[0], 'run.started');
  assert.equal(types.at(-1), 'run.completed');
  const outputs = (id: string) =>
    r.body.events.find((e) => e.type === 'node.completed' && e.nodeId === id)?.payload?.outputs;
  assert.deepEqual(outputs('branchB'), { completion: 'Mock response to: ' });
  assert.deepEqual(outputs('merge'), { merged: [] });
  // The same key names the same run: no second run.
  const retried = await server.api<{ runId: string }>('POST', '/v1/runs', {
    key,
    body: { workflowId: 'branching-demo', inputs: { message: 'hello' } },
    headers: { 'Idempotency-Key': 'openwop-example-branching-keel-e2e-0001' },
  });
  assert.equal(retried.body.runId, started.body.runId);
});

const examples = process.env.OPENWOP_EXAMPLES_DIR;
const sampleDir = examples
  ? [join(examples, 'examples', 'branching-workflow'), join(examples, 'branching-workflow')].find(existsSync)
  : undefined;

test("the sample's own client passes unchanged (with OPENWOP_EXAMPLES_DIR)", {
  skip: sampleDir ? false : 'OPENWOP_EXAMPLES_DIR names no copy of openwop/openwop-examples',
}, () => {
  const r = spawnSync(process.execPath, ['branching-workflow.mjs'], {
    cwd: sampleDir!,
    env: { ...process.env, OPENWOP_BASE_URL: server.url, OPENWOP_API_KEY: key },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /✓ branching-workflow PASSED/);
});
