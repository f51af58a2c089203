/**
 * The HTTP surface fuzzed (issue 13 §5): fast-check drives the `keel serve` app, on a real SQLite
 * file, with specs, events, run requests and raw requests from test/helpers/input-grammars.ts.
 * Every answer is a success or a named refusal — never a 5xx, a hang or an echo of a large input;
 * every refusal of bad input (400, 413, 415) names `details.field` — and a refusal changes nothing
 * in the store. Afterwards no run is left `running`: whatever an event's payload holds, each run it
 * started ends or waits for a person. A real socket shows a body past the limit answered 413, never
 * a reset connection.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { createKeel, type Keel } from '../../src/app/index.ts';
import { createServerApp } from '../../src/server/app.ts';
import { httpStatusFor } from '../../src/server/errors.ts';
import { startServer } from '../../src/server/serve.ts';
import { setStatus } from '../../src/testing/index.ts';
import { eventValue, nested, oddString, specText, specValue } from '../helpers/input-grammars.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-http-fuzz-'));
const storePath = join(dir, 'keel.db');
let keel: Keel;
let server: ReturnType<typeof createServerApp>;
let key: string;
let runId: string;
let db: Database.Database;

/** A LIVE workflow whose one step reads the payload every way a template can. */
const LIVE = {
  id: 'fz-live',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'ping' }],
  env: ['GREETING'],
  steps: [
    {
      name: 'echo',
      tool: 'core.identity',
      args: {
        a: '{{event.payload.a}}',
        b: 'b={{event.payload.b}}',
        all: '{{event.payload}}',
        t: '{{clock.now}}',
      },
    },
    { name: 'gate', tool: 'core.approvalGate', args: { title: '{{event.subject}}' } },
  ],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};

before(async () => {
  keel = createKeel({ store: storePath, exposeEnv: { acme: ['GREETING'] } });
  server = createServerApp(keel, {
    log: (e) => assert.fail(`the server logged an unexpected error: ${String(e)}`),
  });
  key = (await keel.keys.create('acme', 'dana')).key;
  await keel.workflows.publishObject('acme', LIVE, 'dana');
  // Not a test of promotion: put at LIVE directly (a recorded fixture, past the gates).
  await setStatus(keel, 'acme', 'fz-live', 1, 'LIVE', 'dana');
  await server.host.ensureFixtures('acme');
  const { runs } = await keel.events.emit('acme', { id: 'seed', type: 'ping', time: '2026-01-31T12:00:00Z' });
  runId = runs[0]!.runId;
  db = new Database(storePath, { readonly: true });
});
after(async () => {
  await server.host.drain();
  db.close();
  await keel.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A digest of everything stored but the idempotency records and event conflicts (a cached refusal
 * and a recorded conflicting redelivery are by design: docs/http.md, "Events").
 */
function storeDigest(): string {
  const h = createHash('sha256');
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('idempotency', 'event_conflicts', 'workers') ORDER BY name",
    )
    .all() as { name: string }[];
  for (const { name } of tables) {
    const rows = db
      .prepare(`SELECT * FROM "${name}"`)
      .all()
      .map((r) => JSON.stringify(r));
    h.update(`${name}\n${rows.sort().join('\n')}\n`);
  }
  return h.digest('hex');
}

/** A request; `{run}`, `{wire}` and `{hex}` in its path are the seeded run's ids, filled in when sent. */
interface Req {
  readonly method: string;
  readonly path: string;
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

const json = (v: unknown) => JSON.stringify(v) ?? 'null';

function pathOf(r: Req): string {
  return r.path
    .replace('{run}', encodeURIComponent(runId))
    .replace('{wire}', `acme~2F${runId.slice(7)}`)
    .replace('{hex}', runId.slice(7));
}

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 8 },
  fc.constantFrom(
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
    'application/json-seq',
    'application/json, text/html',
    'application/merge-patch+json',
    'APPLICATION/JSON; CHARSET="UTF-8"',
  ),
);

/** Bodies that are not what a route wants: not JSON, not an object, not UTF-8, too deep, keys twice. */
const oddBody = fc.oneof(
  fc.constantFrom('', 'null', '[]', '1', '"x"', '{', '{"a":1,"a":2}', '{"__proto__": {"x": 1}}', ' \n '),
  fc.constant(json(nested(100))),
  fc.uint8Array({ maxLength: 20 }),
  fc.jsonValue({ maxDepth: 3 }).map(json),
  fc.string({ maxLength: 30 }),
);

const post = (path: string, body: string | Uint8Array): Req => ({ method: 'POST', path, body });

const request: fc.Arbitrary<Req> = fc
  .tuple(
    fc.oneof(
      // Publish a spec: a value, its text (YAML or JSON), or JSON text with format json.
      specValue.map((v) => post('/api/workflows', json(v))),
      specText.map((text) => post('/api/workflows', json({ text, file: 'fz.yaml' }))),
      specValue.map((v) => post('/api/workflows', json({ text: json(v), format: 'json' }))),
      // Events: routed, started explicitly, and OpenWOP run creation.
      eventValue.map((e) => post('/api/events', json(e))),
      fc
        .tuple(eventValue, fc.constantFrom('fz-live', 'fz-a', '..%2Fx', '__proto__'))
        .map(([event, id]) => post(`/api/workflows/${id}/runs`, json({ event }))),
      fc
        .tuple(
          fc.constantFrom('/runs', '/v1/runs'),
          fc.record(
            {
              workflowId: fc.oneof(
                fc.constantFrom('fz-live', 'conformance-noop', 'conformance-identity'),
                oddString,
              ),
              inputs: fc.jsonValue({ maxDepth: 3 }),
              tags: fc.jsonValue({ maxDepth: 1 }),
            },
            { requiredKeys: ['workflowId'] },
          ),
        )
        .map(([path, b]) => post(path, json(b))),
      // A run's operations, with odd bodies.
      fc
        .tuple(
          fc.constantFrom(
            '/api/runs/{run}/fork',
            '/api/runs/{run}/cancel',
            '/api/runs/{run}/approve',
            '/api/runs/{run}/deny',
            '/runs/{wire}/cancel',
            '/runs/{wire}:fork',
            '/runs/{wire}:pause',
            '/runs/{wire}/interrupts/gate',
            '/runs/{wire}/interrupts/%ZZ',
            '/v1/runs/{hex}/approvals/gate',
            '/runs:bulk-cancel',
          ),
          oddBody,
        )
        .map(([path, body]) => post(path, body)),
      // Reads with odd ids and queries.
      fc
        .tuple(
          fc.constantFrom('/api/runs/', '/api/workflows/', '/runs/', '/v1/runs/', '/workflows/'),
          fc.oneof(
            fc.constantFrom('{run}', '{wire}', '%ZZ', '..%2F..%2Fetc', '~2F'),
            // A lone surrogate has no UTF-8 form, so no %-escape: it cannot be in a URL at all.
            oddString.map((x) => encodeURIComponent(x.replace(/[\ud800-\udfff]/g, '?'))),
          ),
          fc.constantFrom(
            '',
            '/history',
            '/entries',
            '/events?streamMode=%ZZ',
            '/events/poll?timeout=0',
            '/effects',
            '/versions',
            '?version=0',
          ),
        )
        .map(([a, b, c]): Req => ({ method: 'GET', path: `${a}${b}${c}` })),
      fc
        .constantFrom(
          '/api/runs?limit=1e3',
          '/api/runs?cursor=%ZZ',
          '/runs?limit=0',
          '/runs?status=%ZZ',
          '/api/approvals?runId=x',
        )
        .map((path): Req => ({ method: 'GET', path })),
    ),
    contentType,
    fc.option(fc.constantFrom('a'.repeat(30), 'short', 'é'.repeat(30)), { nil: undefined }),
  )
  .map(
    ([r, type, idem]): Req => ({
      ...r,
      headers: {
        ...(r.body !== undefined ? { 'Content-Type': type } : {}),
        ...(idem !== undefined ? { 'Idempotency-Key': encodeURIComponent(idem) } : {}),
      },
    }),
  );

const TIMEOUT_MS = 15_000;

async function send(r: Req): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${TIMEOUT_MS} ms: ${r.method} ${r.path}`)),
      TIMEOUT_MS,
    );
  });
  try {
    const res = await Promise.race([
      server.app.request(pathOf(r), {
        method: r.method,
        headers: { ...r.headers, Authorization: `Bearer ${key}` },
        ...(r.body !== undefined ? { body: r.body } : {}),
      }),
      hang,
    ]);
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      // SSE and other non-JSON successes are checked by status only.
    }
    return { status: res.status, body, text };
  } finally {
    clearTimeout(timer);
  }
}

function show(r: Req): string {
  const body = typeof r.body === 'string' ? r.body.slice(0, 300) : r.body;
  return JSON.stringify({ ...r, path: r.path.slice(0, 300), body });
}

describe('the HTTP surface, fuzzed', () => {
  test('a success or a named refusal; never a 5xx, a hang or an echo; a refusal changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        await server.host.drain();
        const before = storeDigest();
        const res = await send(r);
        assert.ok(res.status < 500, `${res.status} ${res.text.slice(0, 300)} for ${show(r)}`);
        if (res.status < 400) return;
        const { error, message, details } = res.body as {
          error?: unknown;
          message?: unknown;
          details?: Record<string, unknown>;
        };
        assert.equal(typeof error, 'string', `no error code: ${res.text.slice(0, 300)} for ${show(r)}`);
        assert.equal(typeof message, 'string');
        assert.equal(httpStatusFor(error as string), res.status, `${String(error)} answered ${res.status}`);
        // Every refusal of bad input names where it is.
        if (res.status === 400 || res.status === 413 || res.status === 415)
          assert.equal(
            typeof details?.field,
            'string',
            `${String(error)} names no details.field: ${res.text}`,
          );
        assert.ok(res.text.length < 20_000, `a refusal of ${res.text.length} characters echoes its input`);
        await server.host.drain();
        assert.equal(
          storeDigest(),
          before,
          `the refusal ${res.status} ${String(error)} changed the store: ${show(r)}`,
        );
      }),
      { numRuns: 250, includeErrorInReport: true },
    );
    await server.host.drain();
    const running = db.prepare("SELECT run_id, workflow_id FROM runs WHERE status = 'running'").all();
    assert.deepEqual(running, [], 'every run a fuzzed event started ended or waits for a person');
  });
});

describe('the classes of bad input the fuzzer found, one of each', () => {
  const spec = (args: unknown) =>
    json({ ...LIVE, id: 'fz-known', steps: [{ name: 's', tool: 'core.noop', args }], triggers: [] });
  const event = { id: 'k-1', type: 'ping', time: '2026-01-31T12:00:00Z' };
  const cases: [string, Req, number, string, Record<string, unknown>?][] = [
    [
      'a JSON null body (was a 500)',
      post('/runs/{wire}/cancel', 'null'),
      400,
      'validation_error',
      { field: '(body)' },
    ],
    [
      'a malformed %-escape in a node id (was a 500)',
      post('/runs/{wire}/interrupts/%ZZ', '{}'),
      400,
      'validation_error',
      { field: 'nodeId' },
    ],
    [
      'a body nested 100 deep (was a 500: stack overflow)',
      post('/v1/runs', json(nested(100))),
      413,
      'payload_too_large',
      { limit: 'maxDepth' },
    ],
    [
      'an event with a key given twice (was accepted)',
      post('/api/events', '{"id": "a", "id": "b", "type": "ping", "time": "2026-01-31T12:00:00Z"}'),
      400,
      'validation_error',
      { field: 'id' },
    ],
    [
      'a spec whose YAML gives 1 and "1" (was accepted)',
      post(
        '/api/workflows',
        json({
          text: 'id: fz-known\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {1: x, "1": y}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
        }),
      ),
      400,
      'spec_invalid',
      { field: 'steps[0].args["1"]' },
    ],
    [
      'a JSON spec text with a key given twice (was accepted)',
      post('/api/workflows', json({ text: '{"id": "fz-known", "id": "fz-other"}', format: 'json' })),
      400,
      'validation_error',
      { field: 'text' },
    ],
    [
      'a {{toString}} template (was published, then wedged every run)',
      post('/api/workflows', spec({ a: '{{toString}}' })),
      400,
      'spec_invalid',
      { field: 'steps[0].args.a' },
    ],
    [
      'a spec text past 256 KiB (blocked the server for seconds)',
      post('/api/workflows', json({ text: `id: fz-known\n${'k: 1\n'.repeat(60_000)}` })),
      413,
      'payload_too_large',
      { limit: 'maxBytes' },
    ],
    [
      'a path-traversing workflow id (was a 404 echoing it)',
      { method: 'GET', path: '/api/workflows/..%2F..%2Fetc' },
      400,
      'validation_error',
      { field: 'workflowId' },
    ],
    [
      'bytes that are not UTF-8',
      post('/api/events', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])),
      400,
      'validation_error',
      { field: '(body)' },
    ],
    [
      'JSON in another charset (was read as UTF-8)',
      {
        ...post('/api/events', json(event)),
        headers: { 'Content-Type': 'application/json; charset=utf-16' },
      },
      415,
      'unsupported_media_type',
      { field: 'Content-Type' },
    ],
    [
      'another JSON media type (was accepted)',
      { ...post('/api/events', json(event)), headers: { 'Content-Type': 'application/json-seq' } },
      415,
      'unsupported_media_type',
      { field: 'Content-Type' },
    ],
    [
      'an unsafe integer under an Idempotency-Key (was canonical_invalid naming $.request.body…)',
      {
        ...post(
          '/api/events',
          '{"id": "k-2", "type": "ping", "time": "2026-01-31T12:00:00Z", "payload": {"a": 9007199254740993}}',
        ),
        headers: { 'Idempotency-Key': 'k'.repeat(30) },
      },
      400,
      'validation_error',
      { field: 'payload.a' },
    ],
    [
      'an event tenant of 100,000 characters (was echoed whole)',
      post('/api/events', json({ ...event, tenant: 'x'.repeat(100_000) })),
      400,
      'event_invalid',
      { field: 'tenant' },
    ],
  ];
  for (const [name, r, status, code, details] of cases) {
    test(name, async () => {
      await server.host.drain();
      const before = storeDigest();
      const res = await send({ ...r, headers: { 'Content-Type': 'application/json', ...r.headers } });
      assert.equal(res.status, status, res.text.slice(0, 500));
      assert.equal(res.body.error, code);
      for (const [k, v] of Object.entries(details ?? {}))
        assert.equal((res.body.details as Record<string, unknown>)[k], v, res.text.slice(0, 500));
      assert.ok(res.text.length < 2_000, `the refusal is ${res.text.length} characters`);
      assert.equal(storeDigest(), before, 'a refusal changes nothing');
    });
  }
});

describe('over a socket', () => {
  test('a body past the limit is a 413 even to a client that sends it all before reading', async () => {
    const small = createKeel({ store: ':memory:' });
    const s = await startServer(small, { port: 0, maxBodyBytes: 64 * 1024 });
    try {
      for (const size of [24 * 1024 * 1024, 64 * 1024 + 1]) {
        const answer = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
          const req = httpRequest(`${s.url}/api/workflows`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Content-Length': String(size) },
          });
          req.on('error', reject);
          // Write the whole body first, as many clients do, and only then read the answer.
          req.end(Buffer.alloc(size, 0x20), () => {
            req.on('response', (res) => {
              let text = '';
              res.on('data', (d) => {
                text += d;
              });
              res.on('end', () => resolve({ status: res.statusCode, text }));
            });
          });
        });
        assert.equal(answer.status, 413, answer.text);
        assert.equal(JSON.parse(answer.text).details.limit, 'maxBodyBytes');
      }
    } finally {
      await s.close();
      await small.close();
    }
  });

  test('a chunked body (no Content-Length) is bounded as it is read: past the limit it is a 413', async () => {
    const small = createKeel({ store: ':memory:' });
    const s = await startServer(small, { port: 0, maxBodyBytes: 64 * 1024 });
    try {
      const send = (chunks: readonly Buffer[]) =>
        new Promise<{ status?: number; text: string }>((resolve, reject) => {
          const req = httpRequest(`${s.url}/api/workflows`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
          });
          req.on('error', reject);
          req.on('response', (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () => resolve({ status: res.statusCode, text }));
          });
          for (const c of chunks) req.write(c);
          req.end();
        });
      const over = await send([Buffer.alloc(40 * 1024, 0x20), Buffer.alloc(40 * 1024, 0x20)]);
      assert.equal(over.status, 413, over.text);
      assert.equal(JSON.parse(over.text).details.limit, 'maxBodyBytes');
      // Within the limit it passes the bound and goes on to the key check (no key: 401, not 413).
      const within = await send([Buffer.from('{'), Buffer.from('}')]);
      assert.equal(within.status, 401, within.text);
    } finally {
      await s.close();
      await small.close();
    }
  });
});
