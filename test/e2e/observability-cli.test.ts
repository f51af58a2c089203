/**
 * Observability of a real `keel serve` process: an OTLP/HTTP receiver started here on 127.0.0.1
 * (OTEL_EXPORTER_OTLP_ENDPOINT) gets the spans of a run started over HTTP with a `traceparent`,
 * in the caller's trace; GET /metrics answers only with KEEL_METRICS_TOKEN; the server's stderr is
 * pino JSON lines carrying the request id, tenant and run id — and neither the spans nor the logs
 * hold the secret the run used, the payload value it was given, the API key or the metrics token.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { WorkerProcess } from '../../src/testing/worker-process.ts';
import { okJson, runKeelAsync, Sandbox, show } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const SPEC = `id: charge
version: 1
status: DRAFT
env: [API_TOKEN]
triggers: [{event: charge}]
steps:
  - {name: pay, tool: core.noop, args: {token: "{{env.API_TOKEN}}", card: "{{event.payload.card}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;
const SECRET = 'tok-Zr9-e2e-never-leaks';
const PAYLOAD = 'card-4242-e2e-payload';
const METRICS_TOKEN = 'metrics-e2e-token-0123456789';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const sandbox = new Sandbox('observability');
const bodies: string[] = [];
const receiver = createServer((req, res) => {
  let text = '';
  req.on('data', (d) => {
    text += d;
  });
  req.on('end', () => {
    if (req.url === '/v1/traces') bodies.push(text);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let server: KeelServer;
let key: string;
let otlp: string;

before(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  key = createKey(sandbox, 'acme');
  const spec = sandbox.write('charge.yaml', SPEC);
  const env = { KEEL_EXPOSE_ENV: 'acme=API_TOKEN' };
  const published = sandbox.keel(['--tenant', 'acme', 'publish', spec, '--json'], { env });
  assert.equal(published.code, 0, show(published));
  server = await KeelServer.start(sandbox, [], sandbox.store(), {
    ...env,
    API_TOKEN: SECRET,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_SERVICE_NAME: 'keel-e2e',
    KEEL_METRICS_TOKEN: METRICS_TOKEN,
  });
});
after(async () => {
  await server?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
  sandbox.remove();
});

test('spans of a real run reach the OTLP receiver in the caller trace; metrics by token; JSON logs with ids, no secrets', async () => {
  const started = await server.api<{ runId: string }>('POST', '/api/workflows/charge/runs', {
    key,
    headers: { traceparent: TRACEPARENT, 'X-Request-Id': 'e2e-req-1' },
    body: {
      event: { id: 'c1', type: 'charge', time: '2026-01-31T12:00:00Z', payload: { card: PAYLOAD } },
      live: true,
    },
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const runId = started.body.runId;
  const done = await server.waitFor(`/api/runs/${runId}`, key, (s) => s !== 'running');
  assert.equal(done.status, 'completed');

  const deadline = Date.now() + 10_000;
  while (bodies.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(bodies.length, 1, 'one export for the finished run');
  const req = JSON.parse(bodies[0]!);
  const spans = req.resourceSpans[0].scopeSpans[0].spans as {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
  }[];
  assert.deepEqual(
    spans.map((s) => s.name),
    ['run charge', 'step pay'],
  );
  assert.equal(spans[0]!.traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(spans[0]!.parentSpanId, 'b7ad6b7169203331');
  assert.equal(spans[1]!.parentSpanId, spans[0]!.spanId);
  assert.deepEqual(req.resourceSpans[0].resource.attributes[0], {
    key: 'service.name',
    value: { stringValue: 'keel-e2e' },
  });

  assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
  const m = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(m.status, 200);
  const metrics = await m.text();
  assert.match(metrics, /^keel_runs_finished_total\{status="completed"\} 1$/m);
  assert.match(metrics, /^keel_queue_depth 0$/m);

  await server.stop();
  const lines = server.stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const start = lines.find((l) => l.reqId === 'e2e-req-1');
  assert.ok(start, server.stderr);
  assert.equal(start.component, 'serve');
  assert.equal(start.tenant, 'acme');
  assert.deepEqual(start.runIds, [runId]);
  assert.equal(start.status, 201);
  assert.ok(lines.some((l) => l.msg === 'listening' && l.metrics === 'token' && l.traces === true));
  for (const s of [SECRET, PAYLOAD, key, METRICS_TOKEN]) {
    assert.ok(!server.stderr.includes(s), `${s.slice(0, 8)}… in the logs`);
    assert.ok(!bodies[0]!.includes(s), `${s.slice(0, 8)}… in the spans`);
  }
});

test('a one-shot keel run has sent its spans when the command exits', async () => {
  const env = { KEEL_EXPOSE_ENV: 'acme=API_TOKEN' };
  const store = sandbox.store('oneshot');
  okJson(
    sandbox.keel(['--tenant', 'acme', 'publish', sandbox.write('charge.yaml', SPEC), '--json'], {
      env,
      sub: 'oneshot',
    }),
  );
  const event = sandbox.write('oneshot-event.json', {
    id: 'one-1',
    type: 'charge',
    time: '2026-12-03T10:00:00Z',
    payload: { card: PAYLOAD },
  });
  const seen = bodies.length;
  const r = await runKeelAsync(
    ['--store', store, '--tenant', 'acme', '--json', 'run', 'charge', event, '--live', '--yes'],
    {
      cwd: sandbox.dir,
      env: { ...env, API_TOKEN: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: otlp },
    },
  );
  const { runId } = okJson<{ runId: string }>(r);
  const sent = bodies.slice(seen).join('\n');
  assert.ok(sent.includes(runId), `no span of ${runId} reached the collector before keel exited`);
  assert.ok(!sent.includes(SECRET) && !sent.includes(PAYLOAD));
});

test('keel worker logs JSON lines with worker id, run id and tenant; no secret or payload value', async () => {
  const env = { KEEL_EXPOSE_ENV: 'acme=API_TOKEN' };
  const event = sandbox.write('worker-event.json', {
    id: 'w1',
    type: 'charge',
    time: '2026-01-31T12:00:00Z',
    payload: { card: PAYLOAD },
  });
  const store = sandbox.store('worker');
  const spec = sandbox.write('worker/charge.yaml', SPEC);
  const pub = sandbox.keel(['--tenant', 'acme', 'publish', spec, '--json'], {
    env,
    sub: 'worker',
  });
  assert.equal(pub.code, 0, show(pub));
  const queued = okJson<{ runId: string; status: string }>(
    sandbox.keel(['--tenant', 'acme', 'run', 'charge', event, '--enqueue', '--json', '--live', '--yes'], {
      env,
      sub: 'worker',
    }),
  );
  assert.equal(queued.status, 'running');
  const worker = new WorkerProcess({
    store,
    env: { ...env, API_TOKEN: SECRET, KEEL_LOG_LEVEL: 'debug' },
    pollMs: 50,
  });
  try {
    await worker.ready;
    const deadline = Date.now() + 15_000;
    while (!worker.stderr.includes('"msg":"run walked"') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
  } finally {
    await worker.terminate();
  }
  const lines = worker.stderr
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const walked = lines.find((l) => l.msg === 'run walked');
  assert.ok(walked, worker.stderr);
  assert.equal(walked.component, 'worker');
  assert.equal(walked.runId, queued.runId);
  assert.equal(walked.tenant, 'acme');
  assert.equal(walked.status, 'completed');
  assert.ok(lines.some((l) => l.msg === 'worker started' && typeof l.workerId === 'string'));
  // With --json the summary is the command's output (stdout), not a log line.
  assert.equal((JSON.parse(worker.stdout) as { completed: number }).completed, 1);
  for (const s of [SECRET, PAYLOAD])
    assert.ok(!worker.stderr.includes(s), `${s.slice(0, 8)}… in the worker logs`);
});
