/**
 * The event-stream section of `npm run bench`: what open OpenWOP event streams (SSE) cost a quiet
 * `keel serve` process, on SQLite and on PostgreSQL.
 *
 * A real `keel serve` child (its own process, so its CPU is measured apart from this one's) on a
 * throwaway store: RUNS runs of `conformance-approval`, each waiting for a person (so its stream
 * stays open and quiet), STREAMS streams spread over them, half from each of two tenants. After a
 * settling second, the server's CPU is read from /proc over a WINDOW_MS window in which nothing
 * happens but the open streams; on PostgreSQL also the transactions committed in its database and
 * the CPU of its backends over the same window (the bench gives the server a database of its own,
 * so nothing else is counted). Then one run is approved and the time until its stream delivers
 * `run.completed` is measured (how quickly a quiet stream wakes).
 *
 * Bounded in count and time (STREAMS streams, a deadline on every step), loopback only; the server
 * is stopped by its PID and the store (file or database) removed, even on error.
 *
 *   node --import tsx bench/stream-bench.ts [--streams 500] [--runs 500] [--window-ms 5000] [--sqlite-only]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { testDatabaseUrl } from '../src/adapters/postgres/index.ts';
import { makeKey, procCpuMs, Server } from './http-bench.ts';

const STEP_DEADLINE_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export interface StreamBenchOptions {
  readonly streams?: number;
  readonly runs?: number;
  readonly windowMs?: number;
  readonly sqliteOnly?: boolean;
  readonly quick?: boolean;
}

interface Figures {
  readonly serverCpuPct: number;
  readonly pgXactPerSec?: number;
  readonly pgCpuPct?: number;
  readonly wakeMs: number;
  readonly opened: number;
}

/** A JSON request with a bearer key (one connection each: streams hold theirs open). */
function request(
  base: URL,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((res, rej) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent: false,
        headers: {
          Authorization: `Bearer ${key}`,
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
    req.setTimeout(STEP_DEADLINE_MS, () => req.destroy(new Error(`${method} ${path}: no reply`)));
    req.on('error', rej);
    req.end(data);
  });
}

/** An open SSE stream: its text so far, and whether the server closed it. */
interface OpenStream {
  text: string;
  ended: boolean;
  readonly req: http.ClientRequest;
}

function openStream(base: URL, key: string, path: string): Promise<OpenStream> {
  return new Promise((res, rej) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: 'GET',
        path,
        agent: false,
        headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
      },
      (r) => {
        if (r.statusCode !== 200) {
          r.resume();
          rej(new Error(`GET ${path}: ${r.statusCode}`));
          return;
        }
        const s: OpenStream = { text: '', ended: false, req };
        r.setEncoding('utf8');
        r.on('data', (d) => {
          s.text += d;
        });
        r.on('end', () => {
          s.ended = true;
        });
        r.on('error', () => {
          s.ended = true;
        });
        res(s);
      },
    );
    req.on('error', rej);
    req.end();
  });
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = STEP_DEADLINE_MS) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`stream bench: ${what} did not happen within ${ms} ms`);
    await sleep(20);
  }
}

/** Commits and backend CPU of one PostgreSQL database, read through a short-lived connection. */
async function pgCounters(adminUrl: string, db: string): Promise<{ xact: number; cpuMs: number }> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const x = await c.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
      [db],
    );
    const pids = await c.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [db],
    );
    const cpuMs = pids.rows.map((r) => procCpuMs(r.pid)).reduce((a, b) => a + (Number.isNaN(b) ? 0 : b), 0);
    return { xact: Number(x.rows[0]?.n ?? 0), cpuMs };
  } finally {
    await c.end();
  }
}

async function measure(
  store: string,
  keyStore: string,
  o: Required<Omit<StreamBenchOptions, 'sqliteOnly' | 'quick'>>,
  pgDb?: { adminUrl: string; name: string },
): Promise<Figures> {
  const keys = [makeKey(keyStore, 'bench-a'), makeKey(keyStore, 'bench-b')];
  const server = await Server.start(store);
  const streams: OpenStream[] = [];
  try {
    const runs: { key: string; eventsUrl: string; statusUrl: string }[] = [];
    for (let i = 0; i < o.runs; i++) {
      const key = keys[i % 2]!;
      const r = await request(server.url, key, 'POST', '/v1/runs', { workflowId: 'conformance-approval' });
      if (r.status !== 201) throw new Error(`POST /v1/runs: ${r.status} ${r.body}`);
      const b = JSON.parse(r.body) as { eventsUrl: string; statusUrl: string };
      runs.push({ key, eventsUrl: b.eventsUrl, statusUrl: b.statusUrl });
    }
    // Every run waits for a person before the streams open, so none of them is busy.
    for (const run of runs)
      await until(`${run.statusUrl} waiting`, async () => {
        const r = await request(server.url, run.key, 'GET', run.statusUrl);
        return (JSON.parse(r.body) as { status: string }).status === 'waiting-approval';
      });
    for (let i = 0; i < o.streams; i++) {
      const run = runs[i % runs.length]!;
      streams.push(await openStream(server.url, run.key, run.eventsUrl));
    }
    await until('every stream to deliver its backlog', () =>
      streams.every((s) => s.text.includes('event: approval.requested')),
    );
    await sleep(1000);
    const cpu0 = procCpuMs(server.pid);
    const pg0 = pgDb ? await pgCounters(pgDb.adminUrl, pgDb.name) : undefined;
    const t0 = performance.now();
    await sleep(o.windowMs);
    const secs = (performance.now() - t0) / 1000;
    const cpu = procCpuMs(server.pid) - cpu0;
    const pg1 = pgDb ? await pgCounters(pgDb.adminUrl, pgDb.name) : undefined;
    if (streams.some((s) => s.ended)) throw new Error('a quiet stream was closed by the server');

    // How soon a quiet stream sees its run finish: approve run 0 and time run.completed on its stream.
    const first = runs[0]!;
    const watched = streams[0]!;
    const w0 = performance.now();
    const a = await request(server.url, first.key, 'POST', `${first.statusUrl}/approvals/gate`, {
      action: 'accept',
    });
    if (a.status !== 200 && a.status !== 202) throw new Error(`approve: ${a.status} ${a.body}`);
    await until('run.completed on the approved run’s stream', () =>
      watched.text.includes('event: run.completed'),
    );
    const wakeMs = performance.now() - w0;
    return {
      opened: streams.length,
      serverCpuPct: cpu / 10 / secs,
      wakeMs,
      ...(pg0 && pg1
        ? { pgXactPerSec: (pg1.xact - pg0.xact) / secs, pgCpuPct: (pg1.cpuMs - pg0.cpuMs) / 10 / secs }
        : {}),
    };
  } finally {
    for (const s of streams) s.req.destroy();
    await server.stop();
  }
}

/** Runs the section and prints it; every server is stopped and every store removed. */
export async function streamFigures(o: StreamBenchOptions = {}): Promise<void> {
  const opts = {
    streams: o.streams ?? (o.quick ? 200 : 500),
    runs: o.runs ?? (o.quick ? 200 : 500),
    windowMs: o.windowMs ?? 5000,
  };
  const rows: [string, Figures][] = [];
  const dir = mkdtempSync(join(tmpdir(), 'keel-stream-bench-'));
  try {
    const file = join(dir, 'keel.db');
    rows.push(['SQLite', await measure(file, file, opts)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!o.sqliteOnly) {
    const adminUrl = testDatabaseUrl();
    const name = `keel_stream_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    let created = false;
    try {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      created = true;
      const u = new URL(adminUrl);
      u.pathname = `/${name}`;
      rows.push(['PostgreSQL', await measure(u.toString(), u.toString(), opts, { adminUrl, name })]);
    } catch (e) {
      if (!created) console.log(`\nevent streams on PostgreSQL: skipped (${(e as Error).message})`);
      else throw e;
    } finally {
      if (created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end().catch(() => {});
    }
  }
  console.log(
    `\nEvent streams (keel serve, separate process, loopback): ${opts.streams} open SSE streams over ${opts.runs} runs waiting for approval, two tenants, server idle otherwise; ${opts.windowMs / 1000} s window`,
  );
  for (const [store, f] of rows) {
    const pgPart =
      f.pgXactPerSec === undefined
        ? ''
        : `, PostgreSQL ${fmt(f.pgXactPerSec)} transactions/s and ${fmt(f.pgCpuPct ?? 0, 1)}% of a core`;
    console.log(
      `${store}: ${f.opened} streams cost the server ${fmt(f.serverCpuPct, 1)}% of a core${pgPart}; an approval reached its stream's run.completed in ${fmt(f.wakeMs)} ms`,
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  await streamFigures({
    quick: args.includes('--quick'),
    sqliteOnly: args.includes('--sqlite-only'),
    ...(opt('streams') ? { streams: opt('streams')! } : {}),
    ...(opt('runs') ? { runs: opt('runs')! } : {}),
    ...(opt('window-ms') ? { windowMs: opt('window-ms')! } : {}),
  });
}
