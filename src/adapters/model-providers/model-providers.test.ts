/**
 * The OpenAI-compatible and Anthropic adapters against fake endpoints started here on 127.0.0.1,
 * speaking each wire format; Keel runs on a real SQLite file. The fakes check what they receive
 * (path, model, schema, auth header) and count calls, so replay and replay forks are seen to make none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel } from '../../app/index.ts';
import { isKeelError } from '../../core/errors.ts';
import type { Entry, PayloadOf } from '../../core/ledger/index.ts';
import type { ModelProvider } from '../../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../../testing/index.ts';
import { anthropicProvider, modelProviderFromEnv, openAiCompatibleProvider } from './index.ts';

const KEY = 'sk-test-7f3a9c1d2e4b5a6f';

interface Seen {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** A local HTTP server that records each request and answers with `answer(seen, n)`. */
async function fakeEndpoint(answer: (seen: Seen, n: number) => { status?: number; body: unknown }) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      };
      seen.push(s);
      const a = answer(s, seen.length);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const openAiAnswer = (content: string, usage = { prompt_tokens: 1200, completion_tokens: 80 }) => ({
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  },
});

const anthropicAnswer = (input: unknown, usage = { input_tokens: 900, output_tokens: 40 }) => ({
  body: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-3-5-haiku-latest',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'slot_value', input }],
    stop_reason: 'tool_use',
    usage,
  },
});

const SLOT_SCHEMA = { type: 'string', minLength: 1, maxLength: 200 };
const spec = (maxCostUsd = 5) => `
id: reply
version: 1
status: LIVE
triggers: [{event: ticket}]
steps:
  - name: draft
    tool: send_reply
    args:
      ticket: "{{event.subject}}"
      body:
        $model:
          prompt: "Write a short reply to: {{event.payload.note}}"
          schema: ${JSON.stringify(SLOT_SCHEMA)}
limits: {maxSteps: 3, maxCostUsd: ${maxCostUsd}}
`;
const ticket = (id: string) => ({
  id,
  type: 'ticket',
  subject: 'T-1',
  time: '2026-01-01T00:00:00Z',
  payload: { note: 'my parcel is late' },
});

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup(modelProvider: ModelProvider, modelRetries?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'keel-models-'));
  dirs.push(dir);
  const file = join(dir, 'keel.db');
  const send = spyTool('send_reply', {
    args: {
      type: 'object',
      required: ['ticket', 'body'],
      additionalProperties: false,
      properties: { ticket: { type: 'string' }, body: { type: 'string' } },
    },
  });
  const keel = createKeel({
    store: file,
    tools: [send],
    sources: fakeSources(),
    modelProvider,
    ...(modelRetries !== undefined ? { modelRetries } : {}),
  });
  return { keel, send, file };
}

const drawOf = (entries: readonly Entry[]) =>
  entries.find((e) => e.kind === 'source.drawn')?.payload as PayloadOf<'source.drawn'>;
const storeText = (file: string) =>
  ['', '-wal'].map((x) => {
    try {
      return readFileSync(file + x).toString('latin1');
    } catch {
      return '';
    }
  });

describe('OpenAI-compatible provider', () => {
  test('asks chat completions with the slot schema and the key, ledgers usage and price; replay asks nothing', async () => {
    const fake = await fakeEndpoint(() => openAiAnswer(JSON.stringify({ value: 'Sorry! It ships today.' })));
    const provider = openAiCompatibleProvider({
      model: 'gpt-4o-mini',
      baseUrl: `${fake.url}/v1`,
      apiKey: KEY,
    });
    const { keel, send, file } = setup(provider);
    await deploy(keel, 't1', spec());
    const [run] = (await keel.events.emit('t1', ticket('e1'))).runs;
    assert.equal(run!.status, 'completed');
    assert.equal(send.calls[0]!.args.body, 'Sorry! It ships today.');

    assert.equal(fake.seen.length, 1);
    const req = fake.seen[0]!;
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.equal(req.body.model, 'gpt-4o-mini');
    const format = req.body.response_format as {
      type: string;
      json_schema: { schema: Record<string, unknown> };
    };
    assert.equal(format.type, 'json_schema');
    assert.deepEqual(format.json_schema.schema, {
      type: 'object',
      properties: { value: SLOT_SCHEMA },
      required: ['value'],
      additionalProperties: false,
    });
    const messages = req.body.messages as { role: string; content: string }[];
    assert.ok(messages.at(-1)!.content.includes('Write a short reply to: my parcel is late'));

    const entries = await keel.runs.entries('t1', run!.runId);
    // gpt-4o-mini: 1200 × $0.15/M + 80 × $0.60/M = 180 + 48 micro-dollars.
    assert.deepEqual(drawOf(entries), {
      source: 'x-model',
      name: 'body',
      value: 'Sorry! It ships today.',
      model: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputTokens: 1200,
        outputTokens: 80,
        costMicroUsd: 228,
        attempts: 1,
      },
    });
    const history = await keel.runs.history('t1', run!.runId);
    assert.ok(
      history.some((h) => h.text.includes('openai gpt-4o-mini, 1200 tokens in, 80 out, $0.000228')),
      history.map((h) => h.text).join('\n'),
    );

    assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    const fork = await keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'replay' });
    assert.equal(fork.status, 'completed');
    assert.deepEqual(drawOf(await keel.runs.entries('t1', fork.runId)), drawOf(entries));
    assert.equal(fake.seen.length, 1, 'replay and a replay fork never call the provider');

    await keel.close();
    for (const text of storeText(file))
      assert.ok(!text.includes(KEY), 'the API key is not in the store file');
    assert.ok(!JSON.stringify(history).includes(KEY));
    await fake.close();
  });

  test('a schema-invalid answer is asked again, telling the model why; tokens of every attempt add up', async () => {
    const answers = ['not json at all', JSON.stringify({ value: '' }), JSON.stringify({ value: 'Fixed.' })];
    const fake = await fakeEndpoint((_s, n) =>
      openAiAnswer(answers[n - 1]!, { prompt_tokens: 100, completion_tokens: 10 }),
    );
    const provider = openAiCompatibleProvider({ model: 'gpt-4o', baseUrl: fake.url, apiKey: KEY });
    const { keel } = setup(provider, 2);
    await deploy(keel, 't1', spec());
    const [run] = (await keel.events.emit('t1', ticket('e2'))).runs;
    assert.equal(run!.status, 'completed');
    assert.equal(fake.seen.length, 3);
    const second = (fake.seen[1]!.body.messages as { content: string }[]).at(-1)!.content;
    assert.ok(second.includes('Your previous answer was refused (the answer is not JSON)'), second);
    assert.ok(second.includes('not json at all'));
    const draw = drawOf(await keel.runs.entries('t1', run!.runId));
    assert.equal(draw.value, 'Fixed.');
    // gpt-4o: 300 × $2.50/M + 30 × $10/M = 750 + 300 micro-dollars.
    assert.deepEqual(draw.model, {
      provider: 'openai',
      model: 'gpt-4o',
      inputTokens: 300,
      outputTokens: 30,
      costMicroUsd: 1050,
      attempts: 3,
    });
    await keel.close();
    await fake.close();
  });

  test('after its retries an invalid answer is refused, its raw text (bounded) kept in the ledger', async () => {
    const long = 'x'.repeat(5000);
    const fake = await fakeEndpoint(() => openAiAnswer(long));
    const provider = openAiCompatibleProvider({ model: 'gpt-4o-mini', baseUrl: fake.url, apiKey: KEY });
    const { keel, send } = setup(provider, 1);
    await deploy(keel, 't1', spec());
    const [run] = (await keel.events.emit('t1', ticket('e3'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    assert.equal(fake.seen.length, 2, 'one call and one retry, never more');
    const entries = await keel.runs.entries('t1', run!.runId);
    const draw = drawOf(entries);
    assert.equal(draw.value, null);
    assert.equal(draw.model?.attempts, 2);
    assert.equal(draw.model?.invalid?.problem, 'the answer is not JSON');
    assert.equal(draw.model?.invalid?.raw, `${'x'.repeat(2000)}…`);
    const refused = entries.find((e) => e.kind === 'step.refused')!.payload as PayloadOf<'step.refused'>;
    assert.equal(refused.code, 'model_answer_invalid');
    assert.equal(refused.check, 'validate');
    assert.ok(refused.message.includes('body: the answer is not JSON'));
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    assert.equal(fake.seen.length, 2);
    await keel.close();
    await fake.close();
  });

  test("the model's price counts against maxCostUsd", async () => {
    // 1,000,000 input tokens of gpt-4o-mini: $0.15, over a $0.10 cap.
    const fake = await fakeEndpoint(() =>
      openAiAnswer(JSON.stringify({ value: 'ok' }), { prompt_tokens: 1_000_000, completion_tokens: 0 }),
    );
    const provider = openAiCompatibleProvider({ model: 'gpt-4o-mini', baseUrl: fake.url, apiKey: KEY });
    const { keel, send } = setup(provider);
    await deploy(keel, 't1', spec(0.1));
    const [run] = (await keel.events.emit('t1', ticket('e4'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    const refused = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.refused')!
      .payload as PayloadOf<'step.refused'>;
    assert.equal(refused.check, 'spend_cap');
    assert.ok(refused.message.includes('0.15 already spent'), refused.message);
    await keel.close();
    await fake.close();
  });

  test('a non-2xx answer is model_unavailable with the status and a bounded excerpt, the key masked; nothing is decided', async () => {
    const fake = await fakeEndpoint(() => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}. ${'y'.repeat(1000)}` } },
    }));
    const provider = openAiCompatibleProvider({ model: 'gpt-4o-mini', baseUrl: fake.url, apiKey: KEY });
    const { keel, send } = setup(provider);
    await deploy(keel, 't1', spec());
    await assert.rejects(provider.complete({ prompt: 'x', schema: {}, catalog: [] }), (e: unknown) => {
      assert.ok(isKeelError(e));
      assert.equal(e.code, 'model_unavailable');
      assert.ok(e.message.includes('answered 401'), e.message);
      assert.ok(!e.message.includes(KEY), 'the key is masked');
      assert.ok(e.message.length < 600, 'the excerpt is bounded');
      assert.ok(!JSON.stringify(e.details).includes(KEY));
      return true;
    });
    // Through a run: failed I/O leaves the step undecided (nothing ledgered for it), to be resumed.
    const emitted = await keel.events.emit('t1', ticket('e5')).then(
      (r) => r.runs[0],
      (e: unknown) => e,
    );
    if (emitted && typeof emitted === 'object' && 'runId' in emitted) {
      const kinds = (await keel.runs.entries('t1', emitted.runId as string)).map((e) => e.kind);
      assert.ok(!kinds.some((k) => k.startsWith('step.') || k === 'source.drawn'), kinds.join(', '));
    } else {
      assert.ok(isKeelError(emitted) && !emitted.message.includes(KEY), String(emitted));
    }
    assert.equal(send.calls.length, 0);
    await keel.close();
    await fake.close();
  });

  test('a server that is down or slower than the timeout is model_unavailable naming it', async () => {
    const slow = await fakeEndpoint(() => openAiAnswer('{}'));
    const down = slow.url;
    await slow.close();
    const p = openAiCompatibleProvider({ model: 'm', baseUrl: down, outageRetries: 0 });
    await assert.rejects(p.complete({ prompt: 'x', schema: {}, catalog: [] }), /cannot be reached/);

    const hang = createServer(() => {});
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const q = openAiCompatibleProvider({ model: 'm', baseUrl: url, timeoutMs: 100, outageRetries: 0 });
    await assert.rejects(q.complete({ prompt: 'x', schema: {}, catalog: [] }), /no answer within 100 ms/);
    hang.closeAllConnections();
    await new Promise<void>((r) => hang.close(() => r()));
  });
});

describe('a provider outage (issue 26)', () => {
  test('retries with backoff, then holds the run paused; resume finishes it once the provider is back; replay asks nothing', async () => {
    // A real server on 127.0.0.1 whose port is first closed (connection refused), then answers
    // 503 after one good answer, then answers: the provider's bounded retries, then the hold.
    let phase: 'one-then-503' | 'up' = 'one-then-503';
    let answered = 0;
    let asked = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        asked++;
        if (phase === 'one-then-503' && answered >= 1) {
          res.writeHead(503, { 'content-type': 'application/json' });
          return res.end('{"error": {"message": "overloaded"}}');
        }
        answered++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(openAiAnswer(JSON.stringify({ value: `answer ${answered}` })).body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const provider = openAiCompatibleProvider({
      model: 'gpt-4o-mini',
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: KEY,
      outageRetries: 2,
      backoffMs: 5,
    });
    const { keel, send } = setup(provider);
    await deploy(
      keel,
      't1',
      spec().replace(
        '      ticket: "{{event.subject}}"',
        `      ticket:
        $model: {prompt: "The ticket id of {{event.subject}}", schema: {type: string}}`,
      ),
    );
    try {
      // Down: nothing listens. The provider asks 3 times, then the run is held, nothing decided.
      const [held] = (await keel.events.emit('t1', ticket('e-outage'))).runs;
      assert.equal(held!.status, 'paused');
      assert.equal(held!.code, 'model_unavailable');
      assert.match(held!.reason!, /cannot be reached .*\(after 3 attempts\)/);
      const runId = held!.runId;
      const kinds = async () => (await keel.runs.entries('t1', runId)).map((e) => e.kind);
      assert.deepEqual(await kinds(), ['run.started', 'run.suspended']);
      const suspended = (await keel.runs.entries('t1', runId))[1]!.payload as PayloadOf<'run.suspended'>;
      assert.deepEqual(
        [suspended.reason, suspended.step, suspended.tool],
        ['model_unavailable', 'draft', 'send_reply'],
      );
      // Not failed: a person's reconcile does not apply, recover leaves it, and it is listed paused.
      assert.equal((await keel.runs.get('t1', runId)).status, 'paused');
      await assert.rejects(
        keel.runs.reconcile('t1', runId, { happened: false, by: 'dana' }),
        /run_state|outcome_unknown/,
      );

      // Up, answering one slot then 503: resume asks again; the first slot is answered and kept,
      // the second is held again.
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      const again = await keel.runs.resume('t1', runId, { by: 'dana' });
      assert.equal(again.status, 'paused');
      assert.match(again.reason!, /answered 503/);
      assert.deepEqual(await kinds(), [
        'run.started',
        'run.suspended',
        'run.resumed',
        'source.drawn',
        'run.suspended',
      ]);
      assert.equal(send.calls.length, 0, 'nothing acted while the model was down');

      // Back: resume finishes it, asking only for the slot still open.
      phase = 'up';
      const before = asked;
      const done = await keel.runs.resume('t1', runId, { by: 'dana' });
      assert.equal(done.status, 'completed', done.reason);
      assert.equal(asked - before, 1, 'the answered slot is not asked again');
      // Slots are asked in canonical order (body, then ticket): body was answered before the 503s.
      assert.deepEqual(send.calls[0]!.args, { ticket: 'answer 2', body: 'answer 1' });
      const history = (await keel.runs.history('t1', runId)).map((h) => h.text).join('\n');
      assert.match(history, /Paused at step draft: the model provider could not answer/);

      // The ledger verifies; replay is byte-identical and a replay fork completes, asking nobody.
      const asked0 = asked;
      assert.equal((await keel.runs.verify('t1', runId)).ok, true);
      assert.equal((await keel.runs.replay('t1', runId)).identical, true);
      const fork = await keel.runs.fork('t1', runId, { fromSeq: 1, mode: 'replay' });
      assert.equal(fork.status, 'completed');
      assert.equal(asked, asked0, 'replay and a replay fork never call the provider');
      assert.equal(send.calls.length, 1);
    } finally {
      await keel.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('Anthropic provider', () => {
  test('asks the Messages API with a forced tool over the slot schema and x-api-key; replay asks nothing', async () => {
    const fake = await fakeEndpoint(() => anthropicAnswer({ value: 'We are on it.' }));
    const provider = anthropicProvider({ model: 'claude-3-5-haiku-latest', baseUrl: fake.url, apiKey: KEY });
    const { keel, send, file } = setup(provider);
    await deploy(keel, 't1', spec());
    const [run] = (await keel.events.emit('t1', ticket('e6'))).runs;
    assert.equal(run!.status, 'completed');
    assert.equal(send.calls[0]!.args.body, 'We are on it.');
    const req = fake.seen[0]!;
    assert.equal(req.path, '/v1/messages');
    assert.equal(req.headers['x-api-key'], KEY);
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.headers.authorization, undefined);
    assert.equal(req.body.model, 'claude-3-5-haiku-latest');
    assert.equal(typeof req.body.max_tokens, 'number');
    assert.deepEqual(req.body.tool_choice, { type: 'tool', name: 'slot_value' });
    const tools = req.body.tools as { input_schema: { properties: { value: unknown } } }[];
    assert.deepEqual(tools[0]!.input_schema.properties.value, SLOT_SCHEMA);

    const entries = await keel.runs.entries('t1', run!.runId);
    // claude-3-5-haiku: 900 × $0.80/M + 40 × $4/M = 720 + 160 micro-dollars.
    assert.deepEqual(drawOf(entries).model, {
      provider: 'anthropic',
      model: 'claude-3-5-haiku-latest',
      inputTokens: 900,
      outputTokens: 40,
      costMicroUsd: 880,
      attempts: 1,
    });
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    await keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'replay' });
    assert.equal(fake.seen.length, 1, 'replay and a replay fork never call the provider');
    await keel.close();
    for (const text of storeText(file)) assert.ok(!text.includes(KEY));
    await fake.close();
  });

  test('an answer in text instead of a tool call is still read; one that does not fit is retried', async () => {
    const fake = await fakeEndpoint((_s, n) =>
      n === 1
        ? anthropicAnswer({ value: 42 })
        : {
            body: {
              content: [{ type: 'text', text: JSON.stringify({ value: 'Text answer.' }) }],
              usage: { input_tokens: 10, output_tokens: 5 },
            },
          },
    );
    const provider = anthropicProvider({ model: 'claude-x', baseUrl: fake.url, apiKey: KEY });
    const { keel } = setup(provider, 1);
    await deploy(keel, 't1', spec());
    const [run] = (await keel.events.emit('t1', ticket('e7'))).runs;
    assert.equal(run!.status, 'completed');
    const draw = drawOf(await keel.runs.entries('t1', run!.runId));
    assert.equal(draw.value, 'Text answer.');
    assert.equal(draw.model?.attempts, 2);
    assert.equal(draw.model?.costMicroUsd, 0, 'a model not in the price table and not priced is free');
    await keel.close();
    await fake.close();
  });
});

describe('choosing a provider from the environment', () => {
  test('KEEL_MODEL_PROVIDER picks the adapter; errors name the setting, never the key', async () => {
    assert.equal(modelProviderFromEnv({}), undefined);
    assert.throws(
      () => modelProviderFromEnv({ KEEL_MODEL_PROVIDER: 'gemini' }),
      /KEEL_MODEL_PROVIDER: expected one of/,
    );
    assert.throws(() => modelProviderFromEnv({ KEEL_MODEL_PROVIDER: 'openai' }), /KEEL_MODEL: /);
    assert.throws(
      () => modelProviderFromEnv({ KEEL_MODEL_PROVIDER: 'anthropic', KEEL_MODEL: 'claude' }),
      /ANTHROPIC_API_KEY: the anthropic provider needs an API key/,
    );
    assert.throws(
      () =>
        modelProviderFromEnv({
          KEEL_MODEL_PROVIDER: 'openai',
          KEEL_MODEL: 'gpt-4o',
          OPENAI_API_KEY: KEY,
          KEEL_MODEL_PRICE: 'cheap',
        }),
      (e: unknown) => e instanceof Error && /KEEL_MODEL_PRICE/.test(e.message) && !e.message.includes(KEY),
    );
    const fake = await fakeEndpoint(() =>
      openAiAnswer(JSON.stringify({ value: 'hi' }), { prompt_tokens: 1_000_000, completion_tokens: 0 }),
    );
    const p = modelProviderFromEnv({
      KEEL_MODEL_PROVIDER: 'openai',
      KEEL_MODEL: 'llama-3.1-8b',
      KEEL_MODEL_BASE_URL: fake.url,
      KEEL_MODEL_API_KEY_ENV: 'LOCAL_KEY',
      LOCAL_KEY: KEY,
      KEEL_MODEL_PRICE: '0.5,1',
    })!;
    const a = await p.answer!({ prompt: 'hello', schema: { type: 'string' }, catalog: [] });
    assert.equal(a.value, 'hi');
    assert.equal(a.usage.costMicroUsd, 500_000);
    assert.equal(fake.seen[0]!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(fake.seen[0]!.body.model, 'llama-3.1-8b');
    await fake.close();
  });
});
