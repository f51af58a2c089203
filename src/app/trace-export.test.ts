/**
 * Trace export against a real OTLP/HTTP receiver (node:http on 127.0.0.1, port 0) started here:
 * a run started over HTTP with a `traceparent` arrives as spans in the caller's trace (its run
 * span the caller's child), the same spans a rebuild from the ledger gives, and with no secret or
 * payload value in the bytes sent. A collector that is down fails no run. Configuration from the
 * OTEL_* variables, and nothing installed without an endpoint.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { PayloadOf } from '../core/ledger/index.ts';
import { createServerApp } from '../server/app.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
import { createKeel } from './keel.ts';
import { runSpans, traceExportFromEnv } from './trace-export.ts';

const SPEC = `
id: refund
version: 1
status: AUTONOMOUS
env: [API_TOKEN]
triggers: [{event: refund}]
steps:
  - {name: charge, tool: call, args: {token: "{{env.API_TOKEN}}", card: "{{event.payload.card}}"}}
  - {name: after, tool: core.noop}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
const SECRET = 'tok-Zr9-never-in-a-span';
const PAYLOAD = 'card-4242-4242-payload';
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  text: string;
}
const received: Received[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({
      path: req.url ?? '',
      headers: req.headers,
      text: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let url = '';
before(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => receiver.close(() => r())));

type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
};
const spansOf = (r: Received): OtlpSpan[] =>
  JSON.parse(r.text).resourceSpans.flatMap((rs: { scopeSpans: { spans: OtlpSpan[] }[] }) =>
    rs.scopeSpans.flatMap((s) => s.spans),
  );
const attr = (s: OtlpSpan, k: string) => Object.values(s.attributes.find((a) => a.key === k)?.value ?? {})[0];

function keelWith(traces: Parameters<typeof createKeel>[0]['traces']) {
  return createKeel({
    store: ':memory:',
    tools: [spyTool('call')],
    sources: fakeSources({ env: { API_TOKEN: SECRET } }),
    exposeEnv: { '*': ['API_TOKEN'] },
    ...(traces ? { traces } : {}),
  });
}

test('a run started over HTTP with a traceparent is exported as spans in the caller trace, parent from traceparent, no secret or payload value', async () => {
  const keel = keelWith({
    url: `${url}/v1/traces`,
    headers: { authorization: 'Bearer collector-token' },
    serviceName: 'keel-test',
  });
  const server = createServerApp(keel, { log: () => {} });
  try {
    await deploy(keel, 'acme', SPEC);
    const key = (await keel.keys.create('acme', 'dana')).key;
    const res = await server.app.request('/api/events', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        traceparent: TRACEPARENT,
      },
      body: JSON.stringify({
        id: 'e1',
        type: 'refund',
        time: '2026-01-31T12:00:00Z',
        payload: { card: PAYLOAD },
      }),
    });
    assert.equal(res.status, 201);
    const runId = ((await res.json()) as { runs: { runId: string }[] }).runs[0]!.runId;
    await server.host.drain();
    await keel.telemetry.traces!.flush();
    assert.equal((await keel.runs.get('acme', runId)).status, 'completed');
    // The traceparent is in the run's root, as received.
    const root = (await keel.runs.entries('acme', runId))[0]!.payload as PayloadOf<'run.started'>;
    assert.equal(root.traceparent, TRACEPARENT);

    assert.equal(received.length, 1);
    const r = received[0]!;
    assert.equal(r.path, '/v1/traces');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers.authorization, 'Bearer collector-token');
    const spans = spansOf(r);
    assert.deepEqual(
      spans.map((s) => s.name),
      ['run refund', 'step charge', 'step after'],
    );
    const [run, charge] = spans as [OtlpSpan, OtlpSpan];
    assert.equal(run.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.equal(run.parentSpanId, '00f067aa0ba902b7');
    assert.equal(attr(run, 'keel.run.id'), runId);
    assert.equal(attr(run, 'keel.run.status'), 'completed');
    assert.equal(charge.parentSpanId, run.spanId);
    assert.equal(charge.traceId, run.traceId);
    assert.equal(attr(charge, 'keel.tool'), 'call');
    assert.equal(attr(charge, 'keel.decision'), 'allow');
    assert.equal(attr(charge, 'keel.attempt'), '1');
    const resource = JSON.parse(r.text).resourceSpans[0].resource.attributes;
    assert.deepEqual(resource[0], { key: 'service.name', value: { stringValue: 'keel-test' } });
    assert.ok(!r.text.includes(SECRET), 'the secret is in no span');
    assert.ok(!r.text.includes(PAYLOAD), 'no payload value is in a span');
    // Spans are a projection: rebuilt from the ledger, they are the ones sent.
    const rebuilt = await runSpans(keel.store.ledger, 'acme', runId);
    assert.deepEqual(
      rebuilt.map((s) => [s.traceId, s.spanId, s.parentSpanId ?? null]),
      spans.map((s) => [s.traceId, s.spanId, s.parentSpanId ?? null]),
    );
  } finally {
    await server.host.drain();
    await keel.close();
    received.length = 0;
  }
});

test('a run that waited for a person is exported once it finishes, read back from its ledger, approval on its step span', async () => {
  const keel = keelWith({ url: `${url}/v1/traces`, lingerMs: 10 });
  try {
    await deploy(
      keel,
      'acme',
      `id: gated
version: 1
status: LIVE
triggers: [{event: ship}]
steps:
  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`,
    );
    const [run] = (
      await keel.events.emit('acme', { id: 'g1', type: 'ship', time: '2026-01-31T12:00:00Z', payload: {} })
    ).runs;
    assert.equal(run!.status, 'waiting_approval');
    await keel.telemetry.traces!.flush();
    assert.equal(received.length, 0, 'nothing is sent for a run that has not finished');
    await keel.approvals.approve('acme', run!.runId, 'ana');
    await keel.telemetry.traces!.flush();
    assert.equal(received.length, 1);
    const spans = spansOf(received[0]!);
    const gate = spans.find((s) => s.name === 'step gate')!;
    assert.equal(attr(gate, 'keel.approval.decision'), 'approved');
    assert.equal(attr(gate, 'keel.approval.by'), 'ana');
    const rebuilt = await runSpans(keel.store.ledger, 'acme', run!.runId);
    assert.deepEqual(
      rebuilt.map((s) => s.spanId),
      spans.map((s) => s.spanId),
    );
  } finally {
    await keel.close();
    received.length = 0;
  }
});

test('a malformed traceparent is ignored (W3C): the run starts its own trace and its root has none', async () => {
  const keel = keelWith({ url: `${url}/v1/traces` });
  try {
    await deploy(keel, 'acme', SPEC);
    const run = await keel.runs.start(
      'acme',
      'refund',
      { id: 'e2', type: 'refund', time: '2026-01-31T12:00:00Z', payload: { card: 'x' } },
      { traceparent: '00-NOT-A-TRACE' },
    );
    const entries = await keel.runs.entries('acme', run.runId);
    assert.equal((entries[0]!.payload as PayloadOf<'run.started'>).traceparent, undefined);
    await keel.telemetry.traces!.flush();
    const spans = spansOf(received.at(-1)!);
    assert.equal(spans[0]!.parentSpanId, undefined);
    assert.notEqual(spans[0]!.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  } finally {
    await keel.close();
    received.length = 0;
  }
});

test('a collector that is down fails no run; the failure is counted and reported without headers', async () => {
  const dead = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const port = (dead.address() as AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  const errors: string[] = [];
  const keel = keelWith({
    url: `http://127.0.0.1:${port}/v1/traces`,
    headers: { authorization: 'Bearer hdr-secret-value' },
    timeoutMs: 2000,
    onError: (m) => errors.push(m),
  });
  try {
    await deploy(keel, 'acme', SPEC);
    const [run] = (
      await keel.events.emit('acme', {
        id: 'e3',
        type: 'refund',
        time: '2026-01-31T12:00:00Z',
        payload: { card: 'x' },
      })
    ).runs;
    assert.equal(run!.status, 'completed');
    await keel.telemetry.traces!.flush();
    assert.equal(keel.telemetry.traces!.stats.failedRequests, 1);
    assert.equal(keel.telemetry.traces!.stats.exportedRuns, 0);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /could not reach the collector/);
    assert.ok(!errors[0]!.includes('hdr-secret-value'));
  } finally {
    await keel.close();
  }
});

test('without an endpoint nothing is installed: the store is the one given, no exporter exists', async () => {
  const { openSqliteStore } = await import('./open-store.ts');
  const store = openSqliteStore(':memory:');
  const keel = createKeel({ store });
  assert.equal(keel.store, store);
  assert.equal(keel.telemetry.traces, undefined);
  assert.equal(keel.telemetry.metrics, undefined);
  await keel.close();
});

test('traceExportFromEnv reads the OTEL_* variables and names the one that is wrong', () => {
  assert.equal(traceExportFromEnv({}), undefined);
  assert.deepEqual(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }), {
    url: 'http://127.0.0.1:4318/v1/traces',
  });
  assert.deepEqual(
    traceExportFromEnv({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/custom',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x,x-team=obs',
      OTEL_SERVICE_NAME: 'desk',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
    }),
    {
      url: 'http://127.0.0.1:4318/custom',
      headers: { authorization: 'Bearer x', 'x-team': 'obs' },
      serviceName: 'desk',
      timeoutMs: 3000,
    },
  );
  assert.equal(
    traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' }),
    undefined,
  );
  assert.equal(
    traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_TRACES_EXPORTER: 'none' }),
    undefined,
  );
  assert.throws(
    () =>
      traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL: Keel exports OTLP\/HTTP with JSON/,
  );
  assert.throws(
    () => traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }),
    /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http/,
  );
  assert.throws(
    () =>
      traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_HEADERS: 'nokey' }),
    /OTEL_EXPORTER_OTLP_HEADERS/,
  );
});
