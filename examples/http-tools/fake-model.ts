/**
 * A fake OpenAI-compatible model endpoint for the HTTP tools example, on loopback:
 * `POST /v1/chat/completions` answers the slot's JSON-Schema response format with a fixed sentence
 * built from the prompt, and reports token usage, as a real provider does. It counts its calls, so the
 * example can show that replay asks the model nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeModel {
  /** `http://127.0.0.1:<port>/v1`, the base URL Keel is given. */
  readonly baseUrl: string;
  /** Completions answered. */
  readonly calls: number;
  close(): Promise<void>;
}

export async function startFakeModel(key: string): Promise<FakeModel> {
  let calls = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return send(404, { error: 'no such route' });
      if (req.headers.authorization !== `Bearer ${key}`) return send(401, { error: 'bad key' });
      calls++;
      const prompt = String(
        (JSON.parse(body) as { messages: { content: string }[] }).messages.at(-1)?.content ?? '',
      );
      const order = /order (\S+)/.exec(prompt)?.[1] ?? 'your order';
      const value = `Good news: the refund for ${order} is on its way to you.`;
      send(200, {
        choices: [{ message: { role: 'assistant', content: JSON.stringify({ value }) } }],
        usage: { prompt_tokens: 60, completion_tokens: 14 },
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get calls() {
      return calls;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
