/**
 * HTTP tools in `npm run bench`: what a step calling an HTTP tool (a GET to a node:http server on
 * loopback in this process, one fresh connection per call, JSON answer checked against its result
 * schema) costs against the same step calling a plain TypeScript tool returning the same JSON.
 * Two Keels on fresh SQLite files run 1-step workflows in alternating batches (ABBA); each pair of
 * batches gives one overhead figure, µs per step. Also: µs per call of the HTTP tool's handler
 * alone, without the engine. Bounded: `rounds` × `runs` runs per Keel. Medians over all pairs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { httpTool } from '../src/adapters/http-tools/index.ts';
import { createKeel, type Keel } from '../src/app/index.ts';
import { parseHttpTool } from '../src/core/tools/index.ts';
import type { ToolDefinition } from '../src/ports/index.ts';
import { deploy } from '../src/testing/index.ts';

const ANSWER = JSON.stringify({ id: 'O-7', total: 30, status: 'paid' });
const RESULT = { type: 'object', required: ['id', 'total'] };
const ARGS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

/** Each measurement on its own fresh files (a second one in the same directory would replay none). */
let measurement = 0;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const spec = (tool: string) => `id: lookup
version: 1
status: LIVE
triggers: [{event: ticket}]
steps:
  - {name: lookup, tool: ${tool}, args: {id: "{{event.payload.order}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;

async function bench(path: string, tool: ToolDefinition) {
  const keel: Keel = createKeel({ store: path, tools: [tool] });
  await deploy(keel, 'bench', spec(tool.name));
  let i = 0;
  /** Seconds for `n` sequential runs. */
  const runs = async (n: number) => {
    const t0 = performance.now();
    for (let k = 0; k < n; k++) {
      const r = await keel.events.emit('bench', {
        id: `e-${i++}`,
        type: 'ticket',
        time: '2026-12-01T00:00:00Z',
        payload: { order: 'O-7' },
      });
      if (r.runs[0]?.status !== 'completed') throw new Error(`bench run ${r.runs[0]?.status}`);
    }
    return (performance.now() - t0) / 1000;
  };
  return { runs, close: () => keel.close() };
}

export async function httpToolFigures(
  dir: string,
  o: { rounds?: number; runs?: number } = {},
): Promise<Record<string, number>> {
  const rounds = o.rounds ?? 5;
  const perRound = o.runs ?? 200;
  const batch = 25;
  let calls = 0;
  const server = createServer((req, res) => {
    calls++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ANSWER);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const http = httpTool(
      parseHttpTool(
        { name: 'get_order', url: `${base}/orders/{{args.id}}`, args: ARGS, result: RESULT },
        'bench-tools.yaml',
      ),
    );
    const plain: ToolDefinition = {
      name: 'get_order_ts',
      description: 'the same answer, in process',
      args: ARGS,
      result: RESULT,
      effect: 'read',
      destructive: false,
      idempotent: true,
      scopes: [],
      handler: () => JSON.parse(ANSWER) as unknown,
    };
    // The handler alone: one loopback request and its JSON answer, no engine, no store.
    const ctx = { tenant: 'bench', runId: 'r', step: 'lookup', idempotencyKey: 'k', attempt: 1 };
    for (let k = 0; k < 50; k++) await http.handler({ id: 'O-7' }, ctx);
    const alone: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      for (let k = 0; k < perRound; k++) await http.handler({ id: 'O-7' }, ctx);
      alone.push(((performance.now() - t0) * 1000) / perRound);
    }

    const m = measurement++;
    const a = await bench(join(dir, `http-tools-plain-${m}.db`), plain);
    const b = await bench(join(dir, `http-tools-http-${m}.db`), http);
    await a.runs(2 * batch);
    await b.runs(2 * batch);
    const before = calls;
    const plainUs: number[] = [];
    const httpUs: number[] = [];
    const overUs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      for (let k = 0, done = 0; done < perRound; k++, done += batch) {
        const first = k % 2 === 0 ? a : b;
        const x = await first.runs(batch);
        const y = await (first === a ? b : a).runs(batch);
        const [p, h] = first === a ? [x, y] : [y, x];
        plainUs.push((p * 1e6) / batch);
        httpUs.push((h * 1e6) / batch);
        overUs.push(((h - p) * 1e6) / batch);
      }
    }
    const measured = calls - before;
    await a.close();
    await b.close();
    if (measured !== httpUs.length * batch)
      throw new Error(`expected one call per HTTP step, got ${measured}`);
    return {
      'HTTP tools: µs per 1-step run, plain TS tool': median(plainUs),
      'HTTP tools: µs per 1-step run, HTTP tool over loopback': median(httpUs),
      'HTTP tools: µs per step, HTTP over plain (paired)': median(overUs),
      'HTTP tools: µs per call, HTTP tool handler alone': median(alone),
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
