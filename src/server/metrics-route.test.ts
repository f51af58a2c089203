/**
 * GET /metrics and the request logs over the real server app (`createServerApp`) on a real
 * in-memory SQLite store: runs started and finished by status, refusals by code, approval wait
 * from the recorded times, queue depth from the store, the HTTP latency histogram; its guard (a
 * token compared in constant time, or loopback only, else 403); and pino request lines with the
 * request id, tenant and run id and never a key, a secret or a payload value.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { cliLogger } from '../cli/cli-logger.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
import { createServerApp } from './app.ts';
import { isLoopback } from './serve.ts';

const GATED = `id: gated
version: 1
status: LIVE
triggers: [{event: ship}]
steps:
  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}
  - {name: after, tool: core.noop}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
const CHARGE = `id: charge
version: 1
status: LIVE
env: [API_TOKEN]
triggers: [{event: charge}]
steps:
  - {name: pay, tool: call, args: {token: "{{env.API_TOKEN}}", card: "{{event.payload.card}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;
const MISSING = `id: missing
version: 1
status: LIVE
triggers: [{event: bad}]
steps:
  - {name: pay, tool: call, args: {card: "{{event.payload.card}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;
const SECRET = 'tok-Zr9-never-in-a-log';
const PAYLOAD = 'card-4242-payload-value';

async function setUp(o: Parameters<typeof createServerApp>[1] = {}) {
  const keel = createKeel({
    store: ':memory:',
    tools: [
      spyTool('call', {
        args: { type: 'object', required: ['card'], properties: { card: { type: 'string' }, token: {} } },
      }),
    ],
    sources: fakeSources({ env: { API_TOKEN: SECRET } }),
    exposeEnv: { '*': ['API_TOKEN'] },
    metrics: true,
  });
  const server = createServerApp(keel, { log: () => {}, ...o });
  const key = (await keel.keys.create('acme', 'dana')).key;
  const req = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await server.app.request(path, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return { keel, server, key, req };
}

let n = 0;
const event = (type: string, payload: Record<string, unknown> = {}) => ({
  id: `e-${++n}`,
  type,
  time: '2026-01-31T12:00:00Z',
  payload,
});

/** The value of one sample line, e.g. `keel_runs_started_total{mode="live"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('GET /metrics: runs by status, refusals by code, approval wait, queue depth, HTTP latency', async () => {
  const { keel, server, req } = await setUp({ metricsAccess: { loopback: true } });
  try {
    await deploy(keel, 'acme', GATED);
    await deploy(keel, 'acme', CHARGE);
    await deploy(keel, 'acme', MISSING);
    assert.equal((await req('POST', '/api/events', event('charge', { card: PAYLOAD }))).status, 201);
    assert.equal((await req('POST', '/api/events', event('bad'))).status, 201);
    const gated = JSON.parse((await req('POST', '/api/events', event('ship'))).text).runs[0].runId as string;
    await server.host.drain();
    assert.equal((await keel.runs.get('acme', gated)).status, 'waiting_approval');
    assert.equal((await req('POST', `/api/runs/${gated}/approve`, {})).status, 200);
    await server.host.drain();
    // One run left runnable in the store, walked by nobody: the queue depth is the store's.
    await keel.runs.start('acme', 'charge', event('charge', { card: 'x' }), { walk: 'enqueue' });

    const res = await req('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.equal(sample(text, 'keel_runs_started_total{mode="live"}'), 4);
    assert.equal(sample(text, 'keel_runs_finished_total{status="completed"}'), 2);
    assert.equal(sample(text, 'keel_runs_finished_total{status="refused"}'), 1);
    assert.equal(sample(text, 'keel_refusals_total{check="validate",code="invalid_arguments"}'), 1);
    assert.equal(sample(text, 'keel_approval_wait_seconds_count{decision="approved"}'), 1);
    assert.equal(sample(text, 'keel_queue_depth'), 1);
    assert.equal(sample(text, 'keel_runs_suspended'), 0);
    assert.ok(
      (sample(
        text,
        'keel_http_request_duration_seconds_count{method="POST",route="/api/events",status="2xx"}',
      ) ?? 0) >= 3,
      text,
    );
    assert.ok(
      sample(
        text,
        'keel_http_request_duration_seconds_bucket{method="POST",route="/api/events",status="2xx",le="+Inf"}',
      ),
    );
    assert.match(text, /# TYPE keel_lease_takeovers_total counter/);
    // Labels carry route shapes, never ids or values.
    assert.ok(!text.includes(gated));
    assert.ok(!text.includes(PAYLOAD));
    assert.ok(!text.includes(SECRET));
  } finally {
    await server.host.drain();
    await keel.close();
  }
});

test('GET /metrics is guarded: its own token (constant-time), or loopback only, else 403', async () => {
  const token = 'metrics-token-0123456789';
  const t = await setUp({ metricsAccess: { token, loopback: false } });
  try {
    const none = await t.req('GET', '/metrics', undefined, { Authorization: '' });
    assert.equal(none.status, 401);
    // A tenant's API key is not the metrics token.
    assert.equal((await t.req('GET', '/metrics')).status, 401);
    assert.equal(
      (await t.req('GET', '/metrics', undefined, { Authorization: `Bearer ${token}x` })).status,
      401,
    );
    const ok = await t.req('GET', '/metrics', undefined, { Authorization: `Bearer ${token}` });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /keel_queue_depth 0/);
  } finally {
    await t.keel.close();
  }
  const open = await setUp({ metricsAccess: { loopback: false } });
  try {
    const r = await open.req('GET', '/metrics', undefined, { Authorization: '' });
    assert.equal(r.status, 403);
    assert.match(r.text, /--metrics-token/);
  } finally {
    await open.keel.close();
  }
  assert.ok(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost') && isLoopback('[::1]'));
  assert.ok(!isLoopback('0.0.0.0') && !isLoopback('192.168.1.4') && !isLoopback('::'));
});

test('request logs: one pino JSON line per request with request id, tenant, run id; no key, secret or payload value', async () => {
  const out = new PassThrough();
  let captured = '';
  out.on('data', (d) => {
    captured += d;
  });
  const { keel, server, key, req } = await setUp({
    logger: cliLogger('serve', out),
    metricsAccess: { loopback: true },
  });
  try {
    await deploy(keel, 'acme', CHARGE);
    const r = await req('POST', '/api/events', event('charge', { card: PAYLOAD }), {
      'X-Request-Id': 'req-abc.123',
    });
    assert.equal(r.status, 201);
    assert.equal(r.headers.get('x-request-id'), 'req-abc.123');
    const runId = JSON.parse(r.text).runs[0].runId as string;
    await server.host.drain();
    assert.equal((await keel.runs.get('acme', runId)).status, 'completed');
    const bad = await req('GET', `/api/runs/sha256:${'0'.repeat(64)}`, undefined, {
      Authorization: 'Bearer not-a-key',
      'X-Request-Id': 'bad id with spaces',
    });
    assert.equal(bad.status, 401);
    assert.match(
      bad.headers.get('x-request-id') ?? '',
      /^[0-9a-f-]{36}$/,
      'an unusable request id is replaced',
    );

    const lines = captured
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const first = lines.find((l) => l.reqId === 'req-abc.123');
    assert.ok(first, captured);
    assert.equal(first.level, 'info');
    assert.equal(first.component, 'serve');
    assert.equal(first.msg, 'request');
    assert.equal(first.method, 'POST');
    assert.equal(first.route, '/api/events');
    assert.equal(first.status, 201);
    assert.equal(first.tenant, 'acme');
    assert.deepEqual(first.runIds, [runId]);
    assert.match(String(first.time), /^\d{4}-\d{2}-\d{2}T/);
    const second = lines.find((l) => l.status === 401);
    assert.equal(second?.route, '/api/runs/:id');
    assert.equal(second?.tenant, undefined);
    for (const s of [SECRET, PAYLOAD, key, 'not-a-key']) assert.ok(!captured.includes(s), `${s} in the logs`);
  } finally {
    await server.host.drain();
    await keel.close();
  }
});
