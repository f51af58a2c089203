/**
 * The HTTP path users wait on, beside the engine path, in the same run: durable 3-step runs (3
 * `core.noop` tool steps of a LIVE workflow, SQLite file, synchronous=FULL) started by an event.
 *
 * - HTTP: a real `keel serve` process (bench/http-bench.ts `Server`, loopback) and `POST /api/events`
 *   with a bearer key, then waiting for `completed` as a client would: polling `GET /api/runs/{runId}`
 *   every 5 ms (`poll`), one long poll `GET /api/runs/{runId}?waitMs=10000` (`long`), or OpenWOP's
 *   event stream `GET /v1/runs/{id}/events` (SSE, closed after the terminal event: `sse`), or no
 *   second request: `POST /api/events?waitMs=10000` answers once the run stopped (`post`);
 *   `concurrency` clients each looping event -> completed.
 * - engine: the same workflow on a store of its own in this process, `keel.events.emit` (walked
 *   inline), `concurrency` callers each looping.
 *
 * Rounds alternate the paths at concurrency 1 and 16; figures are medians of the rounds, and the
 * ratio engine/HTTP at 16 is what the HTTP path costs over the engine's (goal <= 1.5). Bounded:
 * a fixed count of runs per round and a deadline per round; the server is stopped by its PID.
 * With `--compare <bin/keel.js>` a second server, run from another build (a copy of an earlier
 * one), is measured the same way in the same rounds on a store of its own (rows `HTTP compare`):
 * before and after a change, side by side.
 *
 *   node --import tsx bench/http-events-bench.ts [--rounds 3] [--runs 1000] [--cpu-prof <dir>]
 *     [--compare <bin/keel.js>] [--waits poll,long,sse,post] [--clients 1,16] [--restate <dir>]
 *
 * With `--restate <dir>` (a folder where Restate is installed; bench/restate-ingress.ts) Restate's
 * ingress is measured in the same rounds, 3 durable `ctx.run` steps per call, and each Keel HTTP
 * path's runs/s is given as a ratio to it (the goal: at least 3 at equal concurrency).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKeel, type Keel } from '../src/app/index.ts';
import { deploy } from '../src/testing/index.ts';
import { Client, makeKey, procCpuMs, Server } from './http-bench.ts';
import { RESTATE_INGRESS, RestatePeer } from './restate-ingress.ts';

const TENANT = 'bench';
const SPEC =
  'id: three\nversion: 1\nstatus: LIVE\ntriggers: [{event: bench.tick}]\nsteps:\n  - {name: a, tool: core.noop}\n  - {name: b, tool: core.noop}\n  - {name: c, tool: core.noop}\nlimits: {maxSteps: 3, maxCostUsd: 0}\n';
const POLL_MS = 5;
const ROUND_DEADLINE_MS = 15_000;
const CONCURRENCY: readonly number[] = [1, 16];
/** Runs each path makes before anything is measured. */
const WARM_RUNS = 1_000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
const event = (path: string) => ({
  id: `${path}-${process.pid}-${seq++}`,
  type: 'bench.tick',
  time: '2026-12-05T00:00:00Z',
  payload: { n: seq },
});

export type EventWait = 'poll' | 'long' | 'sse' | 'post';
const WAITS: readonly EventWait[] = ['poll', 'long', 'sse', 'post'];

/** One run over HTTP: the event, then polls (or long-polls) until the run it started is completed. */
async function httpRun(client: Client, wait: EventWait, deadline: number): Promise<void> {
  const r = await client.request(
    'POST',
    `/api/events${wait === 'post' ? '?waitMs=10000' : ''}`,
    event('http'),
  );
  if (r.status !== 201) throw new Error(`POST /api/events: ${r.status} ${r.body}`);
  const run = (JSON.parse(r.body) as { runs: { runId: string; status: string }[] }).runs[0]!;
  if (wait === 'post') {
    if (run.status !== 'completed') throw new Error(`run ${run.runId} ${run.status} after the POST's wait`);
    return;
  }
  const runId = run.runId;
  if (wait === 'sse') {
    // OpenWOP's run event stream: it sends the backlog, then live events, and closes after the
    // terminal event, so the whole answer is the wait.
    const hex = runId.slice('sha256:'.length);
    const g = await client.request('GET', `/v1/runs/${hex}/events`, undefined, 'text/event-stream');
    if (g.status !== 200) throw new Error(`GET /v1/runs/${hex}/events: ${g.status} ${g.body}`);
    if (!g.body.includes('event: run.completed'))
      throw new Error(`run ${runId}: stream ended without run.completed`);
    return;
  }
  const path = `/api/runs/${runId}${wait === 'long' ? '?waitMs=10000' : ''}`;
  for (;;) {
    const g = await client.request('GET', path);
    if (g.status !== 200) throw new Error(`GET /api/runs/${runId}: ${g.status} ${g.body}`);
    const status = (JSON.parse(g.body) as { status: string }).status;
    if (status === 'completed') return;
    if (status !== 'running') throw new Error(`run ${runId} ${status}`);
    if (performance.now() > deadline) throw new Error(`run ${runId} still running at the deadline`);
    if (wait === 'poll') await sleep(POLL_MS);
  }
}

/** One run on Restate's ingress: the call answers with the 3-step handler's result. */
async function restateRun(client: Client): Promise<void> {
  const r = await client.request('POST', '/Bench/run', { n: seq++ });
  if (r.status !== 200) throw new Error(`Restate POST /Bench/run: ${r.status} ${r.body}`);
}

async function engineRun(keel: Keel): Promise<void> {
  const r = await keel.events.emit(TENANT, event('engine'));
  if (r.runs[0]?.status !== 'completed') throw new Error(`engine run: ${JSON.stringify(r.runs[0])}`);
}

/** Runs/s of `runs` runs through `concurrency` lanes (stopping at the round's deadline). */
async function rate(concurrency: number, runs: number, one: (deadline: number) => Promise<void>) {
  let left = runs;
  let done = 0;
  const t0 = performance.now();
  const deadline = t0 + ROUND_DEADLINE_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0 && performance.now() < deadline) {
        await one(deadline + 10_000);
        done++;
      }
    }),
  );
  return { perSec: done / ((performance.now() - t0) / 1000), done };
}

export async function httpEventFigures(
  o: {
    rounds?: number;
    runs?: number;
    cpuProfDir?: string;
    compare?: string;
    waits?: readonly EventWait[];
    clients?: readonly number[];
    /** A folder where Restate is installed (bench/restate-ingress.ts): its ingress is measured too. */
    restate?: string;
  } = {},
): Promise<Record<string, number>> {
  const waits = o.waits ?? WAITS;
  const rounds = o.rounds ?? 3;
  const runs = o.runs ?? 1_000;
  const dir = mkdtempSync(join(tmpdir(), 'keel-http-events-bench-'));
  const servers: { name: string; server: Server; key: string }[] = [];
  let client: Client | undefined;
  let engine: Keel | undefined;
  let restate: RestatePeer | undefined;
  let restateClient: Client | undefined;
  try {
    const serve = async (name: string, command?: string) => {
      const store = join(dir, `${name}.db`);
      const setup = createKeel({ store });
      await deploy(setup, TENANT, SPEC);
      await setup.close();
      const key = makeKey(store, TENANT);
      const server = await Server.start(
        store,
        o.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(o.cpuProfDir)] : [],
        ...(command ? [[resolve(command)]] : []),
      );
      servers.push({ name, server, key });
    };
    await serve('HTTP');
    if (o.compare) await serve('HTTP compare', o.compare);
    engine = createKeel({ store: join(dir, 'engine.db') });
    await deploy(engine, TENANT, SPEC);
    // A client (keep-alive agent) per HTTP round: sockets left idle through an engine round are
    // closed by the server, and reusing one would fail the next request.
    const fresh = (s: { server: Server; key: string }) => {
      client?.close();
      client = new Client(s.server.url, s.key);
      return client;
    };
    const k = engine;
    // Warm-up: JIT both paths, at the concurrency measured, long enough for V8 to optimise the
    // hot code (a few hundred runs measured the compiler: 300 runs of a cold server cost ~1.9 ms
    // of server CPU each, 2,000 ~1.0 ms).
    const warm = Math.max(...(o.clients ?? CONCURRENCY));
    for (const s of servers) {
      const c = fresh(s);
      for (const w of waits) await rate(warm, WARM_RUNS, (d) => httpRun(c, w, d));
    }
    await rate(warm, WARM_RUNS, () => engineRun(k));
    if (o.restate) {
      restate = await RestatePeer.start(o.restate);
      restateClient = new Client(RESTATE_INGRESS, '');
      const rc = restateClient;
      await rate(warm, WARM_RUNS, () => restateRun(rc));
      restate.pause();
    }
    const rows: Record<string, number[]> = {};
    const add = (name: string, v: number) => {
      rows[name] ??= [];
      rows[name].push(v);
    };
    for (let r = 0; r < rounds; r++) {
      for (const n of o.clients ?? CONCURRENCY) {
        const e = await rate(n, runs, () => engineRun(k));
        const perRound = new Map<string, number>();
        add(`engine emit -> completed, 3-step runs/s, ${n} concurrent`, e.perSec);
        // Two servers swap places from round to round, so neither always runs first.
        for (const s of r % 2 ? [...servers].reverse() : servers)
          for (const w of waits) {
            const c = fresh(s);
            const s0 = procCpuMs(s.server.pid);
            const h = await rate(n, runs, (d) => httpRun(c, w, d));
            add(`${s.name} POST /api/events + ${w} wait -> completed, runs/s, ${n} concurrent`, h.perSec);
            add(
              `${s.name} ${w}: server CPU ms per run, ${n} concurrent`,
              (procCpuMs(s.server.pid) - s0) / h.done,
            );
            add(`ratio engine / ${s.name} ${w} runs/s, ${n} concurrent`, e.perSec / h.perSec);
            perRound.set(`${s.name} ${w}`, h.perSec);
          }
        if (restate) {
          // A fresh client, as for Keel's servers: idle sockets may have been closed meanwhile.
          restateClient?.close();
          restateClient = new Client(RESTATE_INGRESS, '');
          const rc = restateClient;
          restate.resume();
          const cpu0 = procCpuMs(restate.serverPid) + procCpuMs(restate.servicePid);
          const h = await rate(n, runs, () => restateRun(rc));
          add(`Restate ingress POST /Bench/run -> result, runs/s, ${n} concurrent`, h.perSec);
          add(
            `Restate: server + service CPU ms per run, ${n} concurrent`,
            (procCpuMs(restate.serverPid) + procCpuMs(restate.servicePid) - cpu0) / h.done,
          );
          restate.pause();
          for (const [name, perSec] of perRound)
            add(`ratio ${name} / Restate ingress runs/s, ${n} concurrent`, perSec / h.perSec);
        }
      }
      process.stderr.write(`HTTP events round ${r + 1}/${rounds} done\n`);
    }
    return Object.fromEntries(Object.entries(rows).map(([name, xs]) => [name, median(xs)]));
  } finally {
    client?.close();
    restateClient?.close();
    await restate?.stop();
    for (const s of servers) await s.server.stop();
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function waitsOption(text: string): EventWait[] {
  const ws = text.split(',');
  for (const w of ws)
    if (!(WAITS as readonly string[]).includes(w))
      throw new Error(`--waits: expected some of ${WAITS.join(', ')}, got ${w}`);
  return ws as EventWait[];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const figures = await httpEventFigures({
    ...(opt('rounds') ? { rounds: Number(opt('rounds')) } : {}),
    ...(opt('runs') ? { runs: Number(opt('runs')) } : {}),
    ...(opt('cpu-prof') ? { cpuProfDir: opt('cpu-prof') } : {}),
    ...(opt('compare') ? { compare: opt('compare') } : {}),
    ...(opt('waits') ? { waits: waitsOption(opt('waits')!) } : {}),
    ...(opt('clients') ? { clients: opt('clients')!.split(',').map(Number) } : {}),
    ...(opt('restate') ? { restate: opt('restate') } : {}),
  });
  const width = Math.max(...Object.keys(figures).map((x) => x.length));
  for (const [name, v] of Object.entries(figures))
    console.log(
      `${name.padEnd(width)}  ${v.toFixed(name.includes('ratio') || name.includes('ms') ? 2 : 0).padStart(8)}`,
    );
}
