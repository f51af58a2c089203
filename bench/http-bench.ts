/**
 * The HTTP section of `npm run bench`: a real `keel serve` process (its own process, so its CPU is
 * measured apart from the load generator's) on a throwaway SQLite file store (WAL,
 * synchronous=FULL), driven over loopback through the OpenWOP surface:
 *
 *   POST /v1/runs {workflowId: 'conformance-noop'} (Bearer key), then wait until it completes.
 *
 * Figures per round, at 1 client and at 8 concurrent clients (each looping create -> wait):
 * created+completed runs/s, p50/p99 latency of the create request alone and of create->completed,
 * and the CPU milliseconds per run spent by the server and by this (client) process.
 *
 * Completion is observed by polling `GET /v1/runs/{id}` every 5 ms (default, `--wait poll`) or by
 * reading `GET /v1/runs/{id}/events` as text/event-stream until the server closes it after
 * run.completed (`--wait sse`; the server's feed of the run is woken by the store's append
 * notifications). Polling is the default, as the figure of record. The client uses node:http
 * with a keep-alive agent (cheaper than fetch).
 *
 * Everything is bounded: a fixed count of runs per round, a deadline per round (the round stops
 * there and reports what it completed), a timeout per request; the server is stopped by its PID
 * at the end, even on error. Loopback only; nothing is downloaded.
 *
 *   node --import tsx bench/http-bench.ts [--rounds 3] [--runs 300] [--wait poll|sse] [--quick]
 *     [--cpu-prof <dir>]   (the server writes a CPU profile there when it stops)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KEEL_COMMAND } from '../src/testing/keel-command.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORKFLOW = 'conformance-noop';
const POLL_MS = 5;
/** Per timed round (6 of them by default), so the timed part of the section stays within ~60 s. */
const ROUND_DEADLINE_MS = 10_000;
const WARMUP_DEADLINE_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const WARMUP_RUNS = 20;

export type WaitMode = 'poll' | 'sse';

export interface HttpBenchOptions {
  readonly quick?: boolean;
  readonly rounds?: number;
  /** Runs per round, for each concurrency. */
  readonly runs?: number;
  readonly wait?: WaitMode;
  /** The in-process sequential runs/s `bench/run.ts` measured in the same run, if any. */
  readonly inProcessSequential?: number;
  /** A directory the server writes its CPU profile to (node --cpu-prof) when it stops. */
  readonly cpuProfDir?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of [
    'KEEL_STORE',
    'KEEL_TENANT',
    'KEEL_USER',
    'KEEL_WORKERS',
    'FORCE_COLOR',
    'NODE_TEST_CONTEXT',
  ])
    delete env[k];
  return env;
}

/** CPU milliseconds (user + system) a process has used so far, from /proc; NaN where there is none. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

const clientCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A `keel serve` child on loopback and a fresh store; `stop` ends it by its PID. */
export class Server {
  private constructor(
    readonly child: ChildProcess,
    readonly url: URL,
    private readonly stderr: () => string,
  ) {}

  /**
   * `nodeArgs` go to node before the command (`--cpu-prof`, to profile the server); `command` is
   * the `keel` to run (another build's bin/keel.js, to compare two builds side by side).
   */
  static async start(
    store: string,
    nodeArgs: readonly string[] = [],
    command: readonly string[] = KEEL_COMMAND,
  ): Promise<Server> {
    const child = spawn(
      process.execPath,
      [...nodeArgs, ...command, '--store', store, '--json', 'serve', '--port', '0', '--host', '127.0.0.1'],
      { cwd: REPO, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.length > 20_000) err = err.slice(-10_000);
    });
    const server = new Server(child, new URL('http://127.0.0.1'), () => err);
    try {
      const url = await new Promise<string>((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`keel serve did not start in 30 s\n${err}`)), 30_000);
        child.stdout!.on('data', (d) => {
          out += d;
          let info: { url?: string };
          try {
            info = JSON.parse(out) as { url?: string };
          } catch {
            return; // not a whole document yet
          }
          clearTimeout(timer);
          if (info.url) res(info.url);
          else rej(new Error(`keel serve printed ${out}`));
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          rej(new Error(`keel serve exited ${code}\n${err}`));
        });
      });
      const u = new URL(url);
      if (u.hostname !== '127.0.0.1') throw new Error(`keel serve listens on ${url}, not loopback`);
      return new Server(child, u, () => err);
    } catch (e) {
      await server.stop();
      throw e;
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.stderr();
  }

  /** SIGTERM by PID, then SIGKILL after 10 s; resolves once the process has exited. */
  stop(): Promise<void> {
    return stopChild(this.child);
  }
}

/** A child stopped by its PID: SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null || c.pid === undefined) return;
  const exited = new Promise((r) => c.once('exit', r));
  process.kill(c.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (c.exitCode === null && c.signalCode === null) process.kill(c.pid!, 'SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** A minimal keep-alive HTTP client for one server and one bearer key. */
export class Client {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(
    private readonly base: URL,
    private readonly key: string,
  ) {}

  request(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Reply> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<Reply>((res, rej) => {
      const req = http.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.key}`,
            Accept: accept,
            ...(data === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) }),
          },
        },
        (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (d) => {
            text += d;
          });
          r.on('end', () => res({ status: r.statusCode ?? 0, body: text }));
          r.on('error', rej);
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new Error(`${method} ${path}: no reply in ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', rej);
      req.end(data);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

interface Sample {
  readonly createMs: number;
  readonly completeMs: number;
  /** GET requests it took to see `completed` (status polls, or 1 event stream). */
  readonly reads: number;
}

/** One run: create, then wait for `completed`; the two latencies in ms from the create's start. */
async function oneRun(client: Client, wait: WaitMode, deadline: number): Promise<Sample> {
  const t0 = performance.now();
  const created = await client.request('POST', '/v1/runs', { workflowId: WORKFLOW });
  const createMs = performance.now() - t0;
  if (created.status !== 201) throw new Error(`POST /v1/runs: ${created.status} ${created.body}`);
  const { statusUrl, eventsUrl } = JSON.parse(created.body) as { statusUrl: string; eventsUrl: string };
  let reads = 0;
  if (wait === 'sse') {
    reads++;
    const r = await client.request('GET', eventsUrl, undefined, 'text/event-stream');
    if (r.status !== 200) throw new Error(`GET ${eventsUrl}: ${r.status} ${r.body}`);
    if (!/^event: run\.completed$/m.test(r.body))
      throw new Error(`GET ${eventsUrl}: the stream closed without run.completed\n${r.body.slice(-500)}`);
  } else {
    for (;;) {
      reads++;
      const r = await client.request('GET', statusUrl);
      if (r.status !== 200) throw new Error(`GET ${statusUrl}: ${r.status} ${r.body}`);
      const status = (JSON.parse(r.body) as { status: string }).status;
      if (status === 'completed') break;
      if (status === 'failed' || status === 'cancelled') throw new Error(`run ${statusUrl} ${status}`);
      if (performance.now() > deadline) throw new Error(`run ${statusUrl} still ${status} at the deadline`);
      await sleep(POLL_MS);
    }
  }
  return { createMs, completeMs: performance.now() - t0, reads };
}

interface RoundResult {
  readonly done: number;
  readonly runsPerSec: number;
  readonly samples: Sample[];
  readonly serverCpuMsPerRun: number;
  readonly clientCpuMsPerRun: number;
  readonly hitDeadline: boolean;
}

/** `runs` runs through `concurrency` looping clients, stopping early at the round deadline. */
async function round(
  server: Server,
  client: Client,
  concurrency: number,
  runs: number,
  wait: WaitMode,
): Promise<RoundResult> {
  const samples: Sample[] = [];
  let next = 0;
  let hitDeadline = false;
  const s0 = procCpuMs(server.pid);
  const c0 = clientCpuMs();
  const t0 = performance.now();
  const deadline = t0 + ROUND_DEADLINE_MS;
  const lane = async () => {
    while (next < runs) {
      if (performance.now() > deadline) {
        hitDeadline = true;
        return;
      }
      next++;
      samples.push(await oneRun(client, wait, deadline + REQUEST_TIMEOUT_MS));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const secs = (performance.now() - t0) / 1000;
  const done = samples.length;
  return {
    done,
    runsPerSec: done / secs,
    samples,
    serverCpuMsPerRun: (procCpuMs(server.pid) - s0) / done,
    clientCpuMsPerRun: (clientCpuMs() - c0) / done,
    hitDeadline,
  };
}

export function makeKey(store: string, tenant = 'bench'): string {
  const made = spawnSync(
    process.execPath,
    [...KEEL_COMMAND, '--store', store, '--json', 'keys', 'create', '--tenant', tenant],
    { cwd: REPO, env: childEnv(), encoding: 'utf8', timeout: 30_000 },
  );
  if (made.status !== 0)
    throw new Error(`keel keys create failed (${made.status ?? made.signal}): ${made.stderr}`);
  return (JSON.parse(made.stdout) as { key: string }).key;
}

/** Runs the HTTP section and prints it; the server is always stopped and the temp dir removed. */
export async function httpFigures(o: HttpBenchOptions = {}): Promise<void> {
  const rounds = o.rounds ?? 3;
  const runs = o.runs ?? (o.quick ? 100 : 300);
  const wait = o.wait ?? 'poll';
  const dir = mkdtempSync(join(tmpdir(), 'keel-http-bench-'));
  const store = join(dir, 'keel.db');
  let server: Server | undefined;
  let client: Client | undefined;
  const kill = () => {
    const pid = server?.child.pid;
    if (pid !== undefined && server?.child.exitCode === null && server.child.signalCode === null)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
  };
  process.once('exit', kill);
  try {
    const key = makeKey(store);
    server = await Server.start(
      store,
      o.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(o.cpuProfDir)] : [],
    );
    client = new Client(server.url, key);
    // Warm-up: the first request installs the conformance fixtures in the tenant; JIT both sides.
    const warm = performance.now() + WARMUP_DEADLINE_MS;
    for (let i = 0; i < WARMUP_RUNS; i++) await oneRun(client, wait, warm);
    await Promise.all(Array.from({ length: 8 }, () => oneRun(client!, wait, warm)));

    const rows: Record<string, number[]> = {};
    const add = (k: string, v: number) => {
      rows[k] ??= [];
      rows[k].push(v);
    };
    const notes: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const c of [1, 8]) {
        const res = await round(server, client, c, runs, wait);
        const who = c === 1 ? '1 client' : `${c} clients`;
        add(`HTTP runs/s created+completed, ${who}`, res.runsPerSec);
        add(
          `HTTP create p50 ms, ${who}`,
          percentile(
            res.samples.map((s) => s.createMs),
            50,
          ),
        );
        add(
          `HTTP create p99 ms, ${who}`,
          percentile(
            res.samples.map((s) => s.createMs),
            99,
          ),
        );
        add(
          `HTTP create->completed p50 ms, ${who}`,
          percentile(
            res.samples.map((s) => s.completeMs),
            50,
          ),
        );
        add(
          `HTTP create->completed p99 ms, ${who}`,
          percentile(
            res.samples.map((s) => s.completeMs),
            99,
          ),
        );
        add(
          `HTTP GETs per run to see completed, ${who}`,
          res.samples.reduce((n, s) => n + s.reads, 0) / res.done,
        );
        add(`HTTP server CPU ms per run, ${who}`, res.serverCpuMsPerRun);
        add(`HTTP client CPU ms per run, ${who}`, res.clientCpuMsPerRun);
        if (res.hitDeadline)
          notes.push(
            `round ${r + 1}, ${who}: stopped at the ${ROUND_DEADLINE_MS / 1000} s deadline after ${res.done} of ${runs} runs`,
          );
      }
      process.stderr.write(`HTTP round ${r + 1}/${rounds} done\n`);
    }

    console.log(
      `\nHTTP (keel serve, SQLite synchronous=FULL, separate process, loopback): ${rounds} rounds x ${runs} runs per concurrency, ` +
        `POST /v1/runs {workflowId: '${WORKFLOW}'} then ${wait === 'poll' ? `poll GET /v1/runs/{id} every ${POLL_MS} ms` : 'read GET /v1/runs/{id}/events (SSE) to its close'} until completed`,
    );
    const width = Math.max(...Object.keys(rows).map((k) => k.length));
    console.log(
      `${'figure'.padEnd(width)}  ${'median'.padStart(10)}  ${'min'.padStart(10)}  ${'max'.padStart(10)}`,
    );
    for (const [k, xs] of Object.entries(rows)) {
      const d = k.includes(' ms') || k.includes('per run') ? 1 : 0;
      console.log(
        `${k.padEnd(width)}  ${fmt(median(xs), d).padStart(10)}  ${fmt(Math.min(...xs), d).padStart(10)}  ${fmt(Math.max(...xs), d).padStart(10)}`,
      );
    }
    for (const n of notes) console.log(`note: ${n}`);
    const m = (k: string) => median(rows[k]!);
    const line = (c: number) => {
      const who = c === 1 ? '1 client' : `${c} clients`;
      return `${c === 1 ? 'seq 1 client' : `${c} clients`} ${fmt(m(`HTTP runs/s created+completed, ${who}`))} runs/s created+completed, p50 create ${fmt(m(`HTTP create p50 ms, ${who}`), 1)} ms p99 ${fmt(m(`HTTP create p99 ms, ${who}`), 1)} ms, p50 create->completed ${fmt(m(`HTTP create->completed p50 ms, ${who}`), 1)} ms p99 ${fmt(m(`HTTP create->completed p99 ms, ${who}`), 1)} ms`;
    };
    console.log(`HTTP (keel serve, SQLite): ${line(1)}; ${line(8)}`);
    if (o.inProcessSequential !== undefined) {
      const seq = m('HTTP runs/s created+completed, 1 client');
      console.log(
        `ratio: HTTP 1 client / in-process sequential (3-step bench workflow, above) = ${fmt(seq / o.inProcessSequential, 2)}x ` +
          `(${fmt(seq)} vs ${fmt(o.inProcessSequential)} runs/s; not the same workflow: the HTTP runs are one core.noop node)`,
      );
    }
  } finally {
    client?.close();
    await server?.stop();
    process.removeListener('exit', kill);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const wait = opt('wait') ?? 'poll';
  if (wait !== 'poll' && wait !== 'sse') throw new Error(`--wait: expected poll or sse, got ${wait}`);
  await httpFigures({
    quick: args.includes('--quick'),
    ...(opt('rounds') ? { rounds: Number(opt('rounds')) } : {}),
    ...(opt('runs') ? { runs: Number(opt('runs')) } : {}),
    wait,
    ...(opt('cpu-prof') ? { cpuProfDir: opt('cpu-prof') } : {}),
  });
}
