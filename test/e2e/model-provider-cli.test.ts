/**
 * The real `keel` command with a model provider chosen by environment (KEEL_MODEL_PROVIDER,
 * KEEL_MODEL, KEEL_MODEL_BASE_URL, the key in OPENAI_API_KEY) against a fake OpenAI-compatible
 * endpoint started here: the composition root wires it, the run ledgers the usage, replay calls
 * nothing, and the key appears in no output and not in the store file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runKeelAsync } from '../helpers/keel-cli.ts';

const KEY = 'sk-cli-test-4b1e8d0c9a7f';

const keel = (args: string[], env: Record<string, string>, cwd: string) =>
  runKeelAsync(args, { env, cwd, timeoutMs: 30_000 });

test('keel run with KEEL_MODEL_PROVIDER=openai fills a slot from the server at KEEL_MODEL_BASE_URL', async () => {
  const seen: { auth?: string; model?: unknown }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, model: JSON.parse(body).model });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            { message: { role: 'assistant', content: JSON.stringify({ value: 'Refund approved.' }) } },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 5 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'keel-model-cli-'));
  try {
    const store = join(dir, 'keel.db');
    writeFileSync(
      join(dir, 'spec.yaml'),
      `id: reply
version: 1
status: DRAFT
triggers: [{event: ticket}]
steps:
  - name: answer
    tool: core.identity
    args:
      text:
        $model: {prompt: "Answer {{event.payload.note}}", schema: {type: string}}
limits: {maxSteps: 1, maxCostUsd: 1}
`,
    );
    writeFileSync(
      join(dir, 'event.json'),
      JSON.stringify({
        id: 'e1',
        type: 'ticket',
        subject: 'T-1',
        time: '2026-01-01T00:00:00Z',
        payload: { note: 'hi' },
      }),
    );
    const env = {
      KEEL_MODEL_PROVIDER: 'openai',
      KEEL_MODEL: 'gpt-4o-mini',
      KEEL_MODEL_BASE_URL: base,
      OPENAI_API_KEY: KEY,
    };
    const outputs: string[] = [];
    const step = async (args: string[], e: Record<string, string> = env) => {
      const r = await keel(['--store', store, ...args], e, dir);
      outputs.push(r.stdout, r.stderr);
      return r;
    };
    const bad = await step(['publish', 'spec.yaml'], { ...env, KEEL_MODEL_PRICE: 'free' });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /KEEL_MODEL_PRICE/);

    const pub = await step(['publish', 'spec.yaml']);
    assert.equal(pub.code, 0, pub.stderr);
    // The flags do what the variables do; the key still comes from the environment only.
    const run = await step(
      [
        '--json',
        '--model-provider',
        'openai',
        '--model',
        'gpt-4o-mini',
        '--model-base-url',
        base,
        'run',
        'reply',
        'event.json',
        '--live',
        '--yes',
      ],
      { OPENAI_API_KEY: KEY },
    );
    assert.equal(run.code, 0, run.stderr);
    const { runId, status } = JSON.parse(run.stdout) as { runId: string; status: string };
    assert.equal(status, 'completed');
    assert.deepEqual(seen, [{ auth: `Bearer ${KEY}`, model: 'gpt-4o-mini' }]);

    const history = await step(['history', runId]);
    assert.match(history.stdout, /openai gpt-4o-mini, 50 tokens in, 5 out, \$0\.000011/);
    // Replay needs no provider at all, and asks none.
    const replay = await step(['replay', runId], {});
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(seen.length, 1, 'replay never calls the provider');

    for (const o of outputs) assert.ok(!o.includes(KEY), 'the key is in no output');
    for (const f of [store, `${store}-wal`]) {
      try {
        assert.ok(!readFileSync(f).toString('latin1').includes(KEY), `the key is not in ${f}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('a provider outage: keel run exits 6 with the run held, keel resume finishes it once the provider is back (issue 26)', async () => {
  // The port is first closed (connection refused), then the server answers 503, then it answers.
  let phase: 'down' | '503' | 'up' = 'down';
  let asked = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      asked++;
      if (phase === '503') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"error": "overloaded"}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: JSON.stringify({ value: 'Back again.' }) } }],
          usage: { prompt_tokens: 50, completion_tokens: 5 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  const dir = mkdtempSync(join(tmpdir(), 'keel-model-outage-'));
  try {
    const store = join(dir, 'keel.db');
    writeFileSync(
      join(dir, 'spec.yaml'),
      'id: reply\nversion: 1\nstatus: DRAFT\ntriggers: [{event: ticket}]\nsteps:\n  - name: answer\n    tool: core.identity\n    args:\n      text:\n        $model: {prompt: "Answer {{event.payload.note}}", schema: {type: string}}\nlimits: {maxSteps: 1, maxCostUsd: 1}\n',
    );
    writeFileSync(
      join(dir, 'event.json'),
      JSON.stringify({
        id: 'e1',
        type: 'ticket',
        subject: 'T-1',
        time: '2026-01-01T00:00:00Z',
        payload: { note: 'hi' },
      }),
    );
    const env = {
      KEEL_MODEL_PROVIDER: 'openai',
      KEEL_MODEL: 'gpt-4o-mini',
      KEEL_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`,
      OPENAI_API_KEY: KEY,
      KEEL_MODEL_OUTAGE_RETRIES: '1',
      KEEL_MODEL_BACKOFF_MS: '5',
    };
    const run = (args: string[]) => keel(['--store', store, ...args], env, dir);
    assert.equal((await run(['publish', 'spec.yaml'])).code, 0);

    const started = await run(['--json', 'run', 'reply', 'event.json']);
    assert.equal(started.code, 6, started.stderr);
    const held = JSON.parse(started.stdout) as { runId: string; status: string; code: string };
    assert.deepEqual([held.status, held.code], ['paused', 'model_unavailable']);
    const err = JSON.parse(started.stderr) as { error: string; message: string };
    assert.equal(err.error, 'model_unavailable');
    assert.match(err.message, /is paused: .*cannot be reached.*resume it with `keel resume /);

    // Still down: resume exits 6 again and the run stays held.
    const still = await run(['resume', held.runId, '--as', 'dana']);
    assert.equal(still.code, 6, still.stderr);
    assert.match(still.stderr, /cannot be reached/);
    // Up but overloaded (503): held again.
    phase = '503';
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    const busy = await run(['resume', held.runId, '--as', 'dana']);
    assert.equal(busy.code, 6, busy.stderr);
    assert.match(busy.stderr, /answered 503/);
    // Back: resume finishes the run.
    phase = 'up';
    const done = await run(['--json', 'resume', held.runId, '--as', 'dana']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal((JSON.parse(done.stdout) as { status: string }).status, 'completed');

    const history = await run(['history', held.runId]);
    assert.match(history.stdout, /Paused at step answer: the model provider could not answer/);
    const asked0 = asked;
    const replay = await keel(['--store', store, 'replay', held.runId], {}, dir);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal((await run(['verify', held.runId])).code, 0);
    assert.equal(asked, asked0, 'replay never calls the provider');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
