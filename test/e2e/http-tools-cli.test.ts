/**
 * The real `keel` command with `--tools tools.yaml` declaring HTTP tools against a loopback server
 * started here: publish, run (a read with a secret header, then a non-idempotent write that times
 * out and suspends as outcome_unknown), reconcile, history, replay and a replay fork — counted on
 * the server's side — and the secret in no output and not in the store file. A tools file with an
 * unknown section or a bad field is a usage error naming the file, the tool and the field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runKeelAsync } from '../helpers/keel-cli.ts';

const SECRET = 'shop-tok-71c0de5a9b2f44e8';

const keel = (args: string[], env: Record<string, string>, cwd: string) =>
  runKeelAsync(args, { env, cwd, timeoutMs: 30_000 });

const toolsYaml = (base: string) => `tools:
  - name: get_order
    description: Reads an order
    method: GET
    url: ${base}/orders/{{args.id}}
    headers:
      Authorization: Bearer {{secret.SHOP_TOKEN}}
    args:
      type: object
      properties: { id: { type: string } }
      required: [id]
    result:
      type: object
      properties: { id: { type: string }, total: { type: number } }
      required: [id, total]
  - name: issue_refund
    description: Refunds an order
    method: POST
    url: ${base}/refunds
    headers:
      Authorization: Bearer {{secret.SHOP_TOKEN}}
    body: { order: "{{args.order}}", amount: "{{args.amount}}" }
    args:
      type: object
      properties: { order: { type: string }, amount: { type: number } }
      required: [order, amount]
    effect: external
    timeoutMs: 300
`;

const SPEC = `id: refund
version: 1
status: DRAFT
triggers: [{event: ticket}]
steps:
  - name: lookup
    tool: get_order
    args: { id: "{{event.payload.order}}" }
  - name: refund
    tool: issue_refund
    args: { order: "{{steps.lookup.output.id}}", amount: "{{steps.lookup.output.total}}" }
limits: {maxSteps: 3, maxCostUsd: 0}
`;

test('keel with --tools tools.yaml: HTTP tools run, suspend on a lost write, reconcile, and replay without a call', async () => {
  const calls: Record<string, number> = {};
  const auth: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').startsWith('/orders/') ? '/orders' : (req.url ?? '');
      calls[path] = (calls[path] ?? 0) + 1;
      auth.push(String(req.headers.authorization));
      if (path === '/orders') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'O-7', total: 30 }));
      } else if (path === '/refunds') {
        // Acts, then answers too late for the tool's timeout.
        setTimeout(() => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ refund: 'rf_1' }));
        }, 1000);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'keel-http-tools-cli-'));
  try {
    const store = join(dir, 'keel.db');
    writeFileSync(join(dir, 'tools.yaml'), toolsYaml(base));
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    writeFileSync(
      join(dir, 'event.json'),
      JSON.stringify({
        id: 'e1',
        type: 'ticket',
        subject: 'T-1',
        time: '2026-01-01T00:00:00Z',
        payload: { order: 'O-7' },
      }),
    );
    const env = { SHOP_TOKEN: SECRET };
    const outputs: string[] = [];
    const step = async (args: string[], e: Record<string, string> = env) => {
      const r = await keel(['--store', store, '--tools', 'tools.yaml', ...args], e, dir);
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    const pub = await step(['publish', 'spec.yaml']);
    assert.equal(pub.code, 0, pub.stderr);
    const run = await step(['--json', 'run', 'refund', 'event.json', '--live', '--yes']);
    const { runId, status } = JSON.parse(run.stdout) as { runId: string; status: string };
    assert.equal(status, 'outcome_unknown', run.stdout + run.stderr);
    assert.deepEqual(calls, { '/orders': 1, '/refunds': 1 });
    assert.ok(
      auth.every((a) => a === `Bearer ${SECRET}`),
      'the secret went in the request',
    );

    const rec = await step([
      '--json',
      'reconcile',
      runId,
      '--happened',
      '--output',
      '{"refund":"rf_1"}',
      '--as',
      'dana',
    ]);
    assert.equal(rec.code, 0, rec.stderr);
    assert.equal((JSON.parse(rec.stdout) as { status: string }).status, 'completed');

    const history = await step(['history', runId]);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /get_order/);
    assert.match(history.stdout, /issue_refund/);
    assert.match(history.stdout, /dana/);

    const replay = await step(['replay', runId], {});
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    const fork = await step(['--json', 'fork', runId, '--from', '2'], {});
    assert.equal(fork.code, 0, fork.stdout + fork.stderr);
    assert.equal((JSON.parse(fork.stdout) as { status: string }).status, 'completed');
    await new Promise((r) => setTimeout(r, 1100)); // the slow answer has landed
    assert.deepEqual(
      calls,
      { '/orders': 1, '/refunds': 1 },
      'replay and the fork made no call; the refund happened once',
    );

    for (const o of outputs) assert.ok(!o.includes(SECRET), `the secret is in no output: ${o}`);
    for (const f of [store, `${store}-wal`]) {
      try {
        assert.ok(!readFileSync(f).toString('latin1').includes(SECRET), `the secret is not in ${f}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }

    // A tools file that is wrong is refused before anything runs, naming what is wrong.
    writeFileSync(join(dir, 'bad.yaml'), `${toolsYaml(base)}servers: []\n`);
    const unknown = await keel(['--store', store, '--tools', 'bad.yaml', 'runs', 'ls'], env, dir);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /bad\.yaml: servers: not a section of a tools file/);
    writeFileSync(join(dir, 'bad.yaml'), toolsYaml(base).replace('timeoutMs: 300', 'timeoutMs: soon'));
    const field = await keel(['--store', store, '--tools', 'bad.yaml', 'runs', 'ls'], env, dir);
    assert.equal(field.code, 2, field.stderr);
    assert.match(field.stderr, /bad\.yaml: tool issue_refund: timeoutMs: expected an integer/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
