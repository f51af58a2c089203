/**
 * HTTP tools through the whole engine against a real node:http server on 127.0.0.1 started here:
 * the request the tool sends (templates, secret header, idempotency key), safe retries, failures
 * (status and excerpt, size limit, result schema), cost from a result field, outcome_unknown on a
 * lost non-idempotent call settled by reconcile with the effect counted once on the server, and
 * replay / replay forks that call nothing (counted on the server). The secret is never in the
 * store file, the ledger, history or an error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createKeel, type Keel } from '../../app/index.ts';
import { parseHttpTool } from '../../core/tools/index.ts';
import type { ToolDefinition } from '../../ports/index.ts';
import { deploy } from '../../testing/index.ts';
import { httpTool } from './http-tool.ts';

const SECRET = 'tok-9f3a61c2e4b87d05aa';
const env = (name: string) => (name === 'SHOP_TOKEN' ? SECRET : undefined);

interface Seen {
  method: string;
  url: string;
  auth?: string;
  key?: string;
  body: string;
}
const seen: Seen[] = [];
const count = (path: string) => seen.filter((s) => s.url.split('?')[0] === path).length;
const charges = new Map<string, { id: string }>();
let flaky = 0;
const paid = new Map<string, { id: string }>();

function route(req: IncomingMessage, res: ServerResponse): unknown {
  const path = (req.url ?? '').split('?')[0];
  const json = (status: number, v: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };
  if (path?.startsWith('/orders/'))
    return json(200, { id: path.slice(8), total: 42, usage: { cost_usd: 0.07 } });
  if (path === '/flaky')
    return ++flaky <= 2 ? json(503, { error: 'busy' }) : json(200, { ok: true, after: flaky });
  if (path === '/charges') {
    // Deduplicated by the idempotency key, as a payment API does.
    const key = String(req.headers['idempotency-key']);
    if (!charges.has(key)) charges.set(key, { id: `ch_${charges.size + 1}` });
    return json(201, charges.get(key));
  }
  if (path === '/slow-charge') return void setTimeout(() => json(201, { id: 'ch_slow' }), 400);
  if (path === '/pay-once') {
    const key = String(req.headers['idempotency-key'] ?? req.headers['x-request-key']);
    paid.set(key, { id: `pay_${paid.size + 1}` });
    return void setTimeout(() => json(201, paid.get(key)), 400);
  }
  if (path?.startsWith('/payments/')) {
    const found = paid.get(decodeURIComponent(path.slice('/payments/'.length)));
    return found ? json(200, found) : json(404, { error: 'no such payment' });
  }
  if (path === '/lost-pay') return; // never answers
  if (path?.startsWith('/never/')) return json(404, { error: 'never seen' });
  if (path === '/hangup') return void req.socket.destroy();
  if (path === '/reject') return json(422, { error: `bad request, you sent ${req.headers.authorization}` });
  if (path === '/big') return json(200, { blob: 'x'.repeat(5000) });
  if (path === '/shape') return json(200, { nope: true });
  json(404, { error: 'no route' });
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      body,
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
      ...(req.headers['idempotency-key'] ? { key: String(req.headers['idempotency-key']) } : {}),
    });
    route(req, res);
  });
});
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'keel-http-tools-'));
let n = 0;

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const idArgs = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

function tool(decl: Record<string, unknown>): ToolDefinition {
  return httpTool(
    parseHttpTool({ args: idArgs, backoffMs: 5, ...decl, url: `${base}${decl.url}` }, 'tools.yaml'),
    {
      env,
    },
  );
}

/** A Keel on a fresh SQLite file with `tools`, and a one-step AUTONOMOUS workflow calling `name`. */
async function oneStep(tools: ToolDefinition[], name: string, maxCostUsd = 1) {
  const path = join(dir, `s${n++}.db`);
  const keel = createKeel({ store: path, tools });
  await deploy(
    keel,
    'acme',
    `id: w${n}
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: call, tool: ${name}, args: { id: "{{event.payload.id}}" } }
limits: { maxSteps: 3, maxCostUsd: ${maxCostUsd} }
`,
  );
  const run = await keel.runs.start('acme', `w${n}`, {
    id: `e${n}`,
    type: 'go',
    time: '2026-01-01T00:00:00Z',
    payload: { id: 'A-1' },
  });
  return { keel, path, run };
}

async function stepError(keel: Keel, runId: string) {
  const failed = (await keel.runs.entries('acme', runId)).find((e) => e.kind === 'step.failed');
  return (failed?.payload as { error: { code: string; message: string } } | undefined)?.error;
}

/** Nothing Keel keeps holds the secret: the store file's bytes (and WAL), the ledger, history. */
async function assertNoSecret(keel: Keel, path: string, runId: string) {
  const ledger = JSON.stringify(await keel.runs.storedEntries('acme', runId));
  const history = JSON.stringify(await keel.runs.history('acme', runId));
  assert.ok(!ledger.includes(SECRET) && !history.includes(SECRET), 'not in the ledger or history');
  await keel.close();
  for (const f of [path, `${path}-wal`]) {
    try {
      assert.ok(!readFileSync(f).toString('latin1').includes(SECRET), `the secret is not in ${f}`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

describe('an HTTP tool in a run', () => {
  test('a read sends the rendered request with the secret, records the JSON answer and its cost; replay and a replay fork call nothing', async () => {
    const get = tool({
      name: 'get_order',
      url: '/orders/{{args.id}}?token_check=1',
      headers: { Authorization: 'Bearer {{secret.SHOP_TOKEN}}' },
      result: { type: 'object', required: ['id', 'total'] },
      cost: { fixedUsd: 0.01, fromResult: 'usage.cost_usd' },
    });
    const before = count('/orders/A-1');
    const { keel, path, run } = await oneStep([get], 'get_order');
    assert.equal(run.status, 'completed', run.reason);
    assert.equal(count('/orders/A-1') - before, 1);
    const call = seen.filter((s) => s.url.startsWith('/orders/A-1')).at(-1)!;
    assert.deepEqual([call.method, call.auth], ['GET', `Bearer ${SECRET}`]);
    const entries = await keel.runs.entries('acme', run.runId);
    const done = entries.find((e) => e.kind === 'step.completed')!.payload as {
      output: unknown;
      costCents: number;
    };
    assert.deepEqual(done.output, { id: 'A-1', total: 42, usage: { cost_usd: 0.07 } });
    assert.equal(done.costCents, 8, 'fixed 1 cent plus 7 from the result');

    assert.equal((await keel.runs.replay('acme', run.runId)).identical, true);
    const fork = await keel.runs.fork('acme', run.runId, { fromSeq: 1, mode: 'replay' });
    assert.equal(fork.status, 'completed');
    assert.equal(count('/orders/A-1') - before, 1, 'replay and the replay fork made no call');
    await assertNoSecret(keel, path, run.runId);
  });

  test('a read retries 503 with backoff and completes', async () => {
    flaky = 0;
    const { keel, run } = await oneStep([tool({ name: 'flaky', url: '/flaky', retries: 3 })], 'flaky');
    assert.equal(run.status, 'completed', run.reason);
    assert.equal(count('/flaky'), 3, 'two 503s, then the answer');
    await keel.close();
  });

  test('a non-2xx answer fails the step with the status and a bounded excerpt, the secret masked', async () => {
    const { keel, path, run } = await oneStep(
      [
        tool({
          name: 'reject',
          method: 'POST',
          effect: 'write',
          url: '/reject',
          headers: { Authorization: 'Bearer {{secret.SHOP_TOKEN}}' },
          body: { id: '{{args.id}}' },
        }),
      ],
      'reject',
    );
    assert.equal(run.status, 'failed');
    const error = await stepError(keel, run.runId);
    assert.equal(error?.code, 'http_status');
    assert.match(error!.message, /^POST http:\/\/127\.0\.0\.1:\d+\/reject answered HTTP 422: /);
    assert.match(error!.message, /you sent Bearer \[secret SHOP_TOKEN\]/);
    assert.equal(count('/reject'), 1, 'a write without an idempotency header is not retried');
    await assertNoSecret(keel, path, run.runId);
  });

  test('an answer above maxResponseBytes, or off its result schema, fails the step clearly', async () => {
    const big = await oneStep(
      [tool({ name: 'big', url: '/big', maxResponseBytes: 1000, retries: 0 })],
      'big',
    );
    assert.equal(big.run.status, 'failed');
    assert.match(
      (await stepError(big.keel, big.run.runId))!.message,
      /more than 1000 bytes \(maxResponseBytes\)/,
    );
    await big.keel.close();
    const shape = await oneStep(
      [tool({ name: 'shape', url: '/shape', result: { type: 'object', required: ['id'] } })],
      'shape',
    );
    assert.equal(shape.run.status, 'failed');
    const e = await stepError(shape.keel, shape.run.runId);
    assert.equal(e?.code, 'postcondition_failed');
    assert.match(e!.message, /id/);
    await shape.keel.close();
  });

  test('a write with an idempotency header sends the step key in it, and the server deduplicates', async () => {
    const { keel, run } = await oneStep(
      [
        tool({
          name: 'charge',
          method: 'POST',
          effect: 'external',
          url: '/charges',
          idempotencyHeader: 'Idempotency-Key',
          body: { order: '{{args.id}}' },
        }),
      ],
      'charge',
    );
    assert.equal(run.status, 'completed', run.reason);
    const allowed = (await keel.runs.entries('acme', run.runId)).find((e) => e.kind === 'step.allowed')!
      .payload as { idempotencyKey: string };
    const call = seen.filter((s) => s.url === '/charges').at(-1)!;
    assert.equal(call.key, allowed.idempotencyKey);
    assert.deepEqual(JSON.parse(call.body), { order: 'A-1' });
    await keel.close();
  });

  for (const [what, url] of [
    ['a timeout', '/slow-charge'],
    ['a dropped connection', '/hangup'],
  ] as const) {
    test(`${what} on a non-idempotent write suspends the run as outcome_unknown; reconcile completes it, the effect counted once`, async () => {
      const before = count(url);
      const { keel, path, run } = await oneStep(
        [
          tool({
            name: 'pay',
            method: 'POST',
            effect: 'external',
            url,
            timeoutMs: 150,
            headers: { Authorization: 'Bearer {{secret.SHOP_TOKEN}}' },
            body: { order: '{{args.id}}' },
          }),
        ],
        'pay',
      );
      assert.equal(run.status, 'outcome_unknown');
      assert.equal(count(url) - before, 1, 'called once, never retried');
      const kinds = (await keel.runs.entries('acme', run.runId)).map((e) => e.kind);
      assert.deepEqual(kinds, ['run.started', 'step.allowed', 'run.suspended']);
      // Recovering does not call it again either.
      assert.equal((await keel.runs.recover('acme', run.runId)).status, 'outcome_unknown');
      const done = await keel.runs.reconcile('acme', run.runId, {
        happened: true,
        output: { id: 'ch_slow' },
        by: 'dana',
      });
      assert.equal(done.status, 'completed');
      await new Promise((r) => setTimeout(r, 450)); // the slow answer lands on the server's side
      assert.equal(count(url) - before, 1, 'the effect counted once on the server');
      assert.equal((await keel.runs.replay('acme', run.runId)).identical, true);
      assert.equal(count(url) - before, 1);
      await assertNoSecret(keel, path, run.runId);
    });
  }

  test('in a simulated run (keel test) a write answers its declared simulate and sends nothing', async () => {
    const before = count('/charges');
    const pay = tool({
      name: 'sim_charge',
      method: 'POST',
      effect: 'external',
      url: '/charges',
      idempotencyHeader: 'Idempotency-Key',
      simulate: { id: 'sim-{{args.id}}', simulated: true },
    });
    const keel = createKeel({ store: join(dir, `s${n++}.db`), tools: [pay] });
    await deploy(
      keel,
      'acme',
      `id: simulated
version: 1
status: TESTING
triggers: [{ event: go }]
steps:
  - { name: call, tool: sim_charge, args: { id: "{{event.payload.id}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
tests:
  - name: charges
    event: { type: go, subject: s, payload: { id: B-2 } }
    expect: { status: completed, steps: [call] }
`,
    );
    const report = await keel.lifecycle.test('acme', 'simulated');
    assert.equal(report.passed, true, JSON.stringify(report));
    assert.equal(count('/charges'), before, 'a simulated run never calls a write');
    const entries = await keel.runs.entries('acme', report.tests[0]!.runId!);
    const done = entries.find((e) => e.kind === 'step.completed')!.payload as { output: unknown };
    assert.deepEqual(done.output, { id: 'sim-B-2', simulated: true });
    await keel.close();
  });

  test('a declared reconcile check settles a timed-out write by its idempotency key, without a person', async () => {
    const before = count('/pay-once');
    const { keel, run } = await oneStep(
      [
        tool({
          name: 'pay_once',
          method: 'POST',
          effect: 'external',
          url: '/pay-once',
          headers: { 'X-Request-Key': '{{idempotencyKey}}', Authorization: 'Bearer {{secret.SHOP_TOKEN}}' },
          timeoutMs: 150,
          reconcile: {
            url: `${base}/payments/{{idempotencyKey}}`,
            headers: { Authorization: 'Bearer {{secret.SHOP_TOKEN}}' },
          },
        }),
      ],
      'pay_once',
    );
    assert.equal(run.status, 'completed', run.reason);
    assert.equal(count('/pay-once') - before, 1, 'the payment was made once');
    const entries = await keel.runs.entries('acme', run.runId);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['run.started', 'step.allowed', 'step.reconciled', 'run.finished'],
    );
    const r = entries[2]!.payload as { happened: boolean; via: string; output: unknown };
    const allowed = entries[1]!.payload as { idempotencyKey: string };
    assert.deepEqual([r.happened, r.via, r.output], [true, 'tool', paid.get(allowed.idempotencyKey)]);
    const lookups = count(`/payments/${encodeURIComponent(allowed.idempotencyKey)}`);
    assert.equal(lookups, 1);
    assert.equal((await keel.runs.replay('acme', run.runId)).identical, true);
    assert.equal(count('/pay-once') - before, 1);
    assert.equal(count(`/payments/${encodeURIComponent(allowed.idempotencyKey)}`), 1, 'replay asks nothing');
    await new Promise((res) => setTimeout(res, 300));
    await keel.close();
  });

  test('a reconcile check that never finds the call is bounded: after 3 attempts the run is suspended', async () => {
    const { keel, run } = await oneStep(
      [
        tool({
          name: 'lost_pay',
          method: 'POST',
          effect: 'external',
          url: '/lost-pay',
          // Long enough for the reconcile check's own answer on a loaded machine (it shares timeoutMs):
          // a check that times out cannot tell, and suspends the run after attempt 1.
          timeoutMs: 400,
          reconcile: { url: `${base}/never/{{idempotencyKey}}` },
        }),
      ],
      'lost_pay',
    );
    assert.equal(run.status, 'outcome_unknown');
    assert.equal(count('/lost-pay'), 3, 'three attempts, then a person decides');
    const suspended = (await keel.runs.entries('acme', run.runId)).find((e) => e.kind === 'run.suspended')!
      .payload as { message: string };
    assert.match(
      suspended.message,
      /lost_pay found no call for attempt 3 either; after 3 attempts a person decides/,
    );
    await keel.close();
  });

  test('a read that times out fails after its retries instead of suspending', async () => {
    const before = count('/slow-charge');
    const { keel, run } = await oneStep(
      [tool({ name: 'slow_read', url: '/slow-charge', timeoutMs: 50, retries: 1 })],
      'slow_read',
    );
    assert.equal(run.status, 'failed');
    const e = await stepError(keel, run.runId);
    assert.equal(e?.code, 'http_timeout');
    assert.match(e!.message, /no answer within 50 ms \(timeoutMs\)/);
    assert.equal(count('/slow-charge') - before, 2);
    await keel.close();
  });

  test('a missing secret fails the step naming the variable, and sends nothing', async () => {
    const before = seen.length;
    const t = httpTool(
      parseHttpTool(
        {
          name: 'nosecret',
          args: idArgs,
          url: `${base}/orders/x`,
          headers: { 'X-Key': '{{secret.ABSENT_TOKEN}}' },
        },
        'tools.yaml',
      ),
      { env },
    );
    const { keel, run } = await oneStep([t], 'nosecret');
    assert.equal(run.status, 'failed');
    assert.deepEqual(await stepError(keel, run.runId), {
      code: 'secret_missing',
      message: 'secret ABSENT_TOKEN is not set in the environment',
    });
    assert.equal(seen.length, before);
    await keel.close();
  });

  test('nothing listening: a read fails as http_unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const t = httpTool(
      parseHttpTool(
        { name: 'down', args: idArgs, url: `http://127.0.0.1:${port}/x`, retries: 1, backoffMs: 1 },
        'f.yaml',
      ),
    );
    const { keel, run } = await oneStep([t], 'down');
    assert.equal(run.status, 'failed');
    assert.match((await stepError(keel, run.runId))!.message, /cannot connect \(ECONNREFUSED\)/);
    await keel.close();
  });
});
