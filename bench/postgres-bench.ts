/**
 * The PostgreSQL figures of `npm run bench`: the same durable 3-step workload as the SQLite rows,
 * through one in-process engine (sequential and 8 concurrent) and through 1, 2 and 4 real `keel
 * worker` processes draining a queue of enqueued runs; write transactions (commits) per run from
 * the stores' own counters. Each figure runs in a fresh schema of KEEL_TEST_DATABASE_URL (or the
 * local server), dropped afterwards. The bench is not a test: without PostgreSQL it says why it
 * skipped these figures and stops there.
 *
 * Worker drains are timed from the moment the queue opens: runs are enqueued first and held by a
 * gate lease while the workers start (so process start-up is not timed), then released at once
 * with a NOTIFY, exactly as an enqueue would wake the workers. Before that, each worker drains a
 * few hundred untimed warm-up runs (its JIT and lazily compiled tool schemas warm), so the figure
 * is a steady-state rate; the drain also reports the workers' and PostgreSQL's CPU per run.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  type BenchStore,
  openBenchStore,
  postgresCommitBaseline,
  testDatabaseUrl,
} from '../src/adapters/postgres/index.ts';
import { createKeel } from '../src/app/index.ts';
import { setStatus } from '../src/testing/index.ts';
import { startWorkers } from '../src/testing/worker-process.ts';
import { benchTools, SPEC } from './bench-tools.ts';

const TOOLS = join(import.meta.dirname, 'bench-tools.ts');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const event = (i: number) => ({
  id: `e${i}`,
  type: 'bench.go',
  subject: `T-${i}`,
  time: '2026-01-01T00:00:00Z',
  payload: {},
});

async function withKeel<T>(
  url: string,
  walk: 'inline' | 'enqueue',
  body: (b: BenchStore, keel: ReturnType<typeof createKeel>) => Promise<T>,
) {
  const b = await openBenchStore(url);
  try {
    const keel = createKeel({ store: b.store, tools: benchTools(), walk });
    await keel.workflows.publish('bench', SPEC, 'bench.yaml', 'bench');
    // The bench measures runs, not promotion: the version is put at AUTONOMOUS directly (a fixture).
    await setStatus(keel, 'bench', 'bench', 1, 'AUTONOMOUS', 'bench');
    return await body(b, keel);
  } finally {
    await b.drop();
  }
}

/** Emits `runs` events, `concurrency` at a time; throws unless every run ends as `want`. */
async function emitAll(keel: ReturnType<typeof createKeel>, runs: number, concurrency: number, want: string) {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < runs; i = next++) {
      const r = await keel.events.emit('bench', event(i));
      if (r.runs[0]?.status !== want) throw new Error(`run ${i} is ${r.runs[0]?.status}, expected ${want}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

async function inProcess(url: string, concurrency: number, runs: number) {
  return withKeel(url, 'inline', async (b, keel) => {
    const c0 = b.store.stats().commits;
    const t0 = performance.now();
    await emitAll(keel, runs, concurrency, 'completed');
    const secs = (performance.now() - t0) / 1000;
    return { runsPerSec: runs / secs, commitsPerRun: (b.store.stats().commits - c0) / runs };
  });
}

/**
 * CPU seconds (user + system) of a process from /proc, with its reaped children when `children`
 * (the postmaster's include every backend that has exited). NaN where /proc is not readable.
 */
function procCpu(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14-17 of stat(5) (utime, stime, cutime, cstime), counted from field 3 here.
    const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
    return ticks / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds spent so far by the PostgreSQL server on this machine (every process named
 * `postgres`, with exited backends through the postmaster); NaN when it runs elsewhere.
 */
export function postgresCpu(): number {
  let total = 0;
  let found = false;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${d}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'postgres') continue;
    found = true;
    total += procCpu(Number(d), true);
  }
  return found ? total : Number.NaN;
}

export interface DrainFigures {
  readonly runsPerSec: number;
  readonly enqueuePerSec: number;
  readonly commitsPerRun: number;
  /** Write transactions of the workers alone per run (claims, group commits, renewals). */
  readonly workerCommitsPerRun: number;
  /** Claim statements per run. */
  readonly claimsPerRun: number;
  /** CPU ms per run of the worker processes, during the drain (NaN without /proc). */
  readonly workerCpuMsPerRun: number;
  /** CPU ms per run of the whole PostgreSQL server, during the drain (NaN if not local). */
  readonly postgresCpuMsPerRun: number;
}

export async function drainWithWorkers(
  url: string,
  workers: number,
  runs: number,
  o: { nodeArgs?: readonly string[]; concurrency?: number; warmup?: number } = {},
): Promise<DrainFigures> {
  const warm = o.warmup ?? 0;
  return withKeel(url, 'enqueue', async (b, keel) => {
    const c0 = b.store.stats().commits;
    const t0 = performance.now();
    await emitAll(keel, runs + warm, 16, 'running');
    const enqueuePerSec = (runs + warm) / ((performance.now() - t0) / 1000);
    const enqueueCommits = b.store.stats().commits - c0;
    const db = new pg.Client({ connectionString: url, options: `-c search_path=${b.schema}` });
    await db.connect();
    try {
      await db.query(
        `UPDATE runs SET lease_owner = 'bench-gate', lease_until = 9e15 WHERE status = 'running'`,
      );
      // The warm-up runs (the oldest) wait behind a gate of their own, opened first.
      await db.query(
        `UPDATE runs SET lease_owner = 'bench-warm' WHERE run_key IN (
           SELECT run_key FROM runs WHERE status = 'running' ORDER BY created_at, run_key LIMIT $1)`,
        [warm],
      );
      const u = new URL(url);
      u.searchParams.set('schema', b.schema);
      const ws = await startWorkers(workers, {
        store: u.toString(),
        tools: TOOLS,
        concurrency: o.concurrency ?? 8,
        ...(o.nodeArgs ? { nodeArgs: o.nodeArgs } : {}),
      });
      try {
        if (warm > 0) {
          await db.query(`WITH open AS (
              UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = 'bench-warm' RETURNING 1)
            SELECT pg_notify('keel_runs', current_schema()), (SELECT count(*) FROM open)`);
          const until = Date.now() + 60_000;
          const warming = `SELECT 1 FROM runs WHERE status = 'running' AND lease_owner IS DISTINCT FROM 'bench-gate' LIMIT 1`;
          while (((await db.query(warming)).rowCount ?? 0) > 0) {
            if (Date.now() > until) throw new Error(`workers did not drain ${warm} warm-up runs in 60 s`);
            await new Promise((r) => setTimeout(r, 10));
          }
        }
        const workersCpu = () => ws.reduce((n, w) => n + procCpu(w.pid), 0);
        const w0 = workersCpu();
        const p0 = postgresCpu();
        const t1 = performance.now();
        await db.query(`WITH open AS (
            UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = 'bench-gate' RETURNING 1)
          SELECT pg_notify('keel_runs', current_schema()), (SELECT count(*) FROM open)`);
        const deadline = Date.now() + 120_000;
        const count = async (status: string) =>
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE status = $1', [status]))
            .rows[0]!.n;
        // Polled every 10 ms, so it must cost PostgreSQL next to nothing (the CPU it takes is taken
        // from the workers): the oldest running run, from the front of the partial index, ~20 us;
        // a count(*) here was a ~1 ms scan of the table, ~10% of a core at 100 polls a second.
        const anyRunning = async () =>
          (await db.query(`SELECT 1 FROM runs WHERE status = 'running' ORDER BY created_at, run_key LIMIT 1`))
            .rowCount! > 0;
        while (await anyRunning()) {
          if (Date.now() > deadline) throw new Error(`workers did not drain ${runs} runs in 120 s`);
          await new Promise((r) => setTimeout(r, 10));
        }
        const runsPerSec = runs / ((performance.now() - t1) / 1000);
        const workerCpuMsPerRun = ((workersCpu() - w0) * 1000) / runs;
        const postgresCpuMsPerRun = ((postgresCpu() - p0) * 1000) / runs;
        if ((await count('completed')) !== runs + warm)
          throw new Error(`not every one of ${runs + warm} runs completed`);
        await Promise.all(ws.map((w) => w.terminate()));
        const workerCommits = ws.reduce((n, w) => n + (w.summary()?.commits ?? Number.NaN), 0);
        const claims = ws.reduce(
          (n, w) => n + ((w.summary() as { claims?: number })?.claims ?? Number.NaN),
          0,
        );
        return {
          claimsPerRun: claims / (runs + warm),
          workerCommitsPerRun: workerCommits / (runs + warm),
          runsPerSec,
          enqueuePerSec,
          commitsPerRun: (workerCommits + enqueueCommits) / (runs + warm),
          workerCpuMsPerRun,
          postgresCpuMsPerRun,
        };
      } finally {
        for (const w of ws) if (w.alive) await w.kill9();
      }
    } finally {
      await db.end();
    }
  });
}

/** Prints the PostgreSQL section of the bench (or why it was skipped). */
export async function postgresFigures(o: { quick: boolean; sqliteSequential: number }): Promise<void> {
  const url = testDatabaseUrl();
  const shown = url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  try {
    await postgresCommitBaseline(url, 10);
  } catch (e) {
    console.log(`\nPostgreSQL figures skipped: ${shown} is not usable (${(e as Error).message || e})`);
    return;
  }
  // Five rounds: a single drain moves by ±20% on a shared 2-core machine, so a median of three is loose.
  const rounds = o.quick ? 1 : 5;
  const seqRuns = o.quick ? 200 : 1000;
  const concRuns = o.quick ? 400 : 2000;
  const drainRuns = o.quick ? 600 : 4000;
  // Untimed runs per worker first, so the timed drain measures the steady state long-lived workers
  // run at: V8 keeps compiling hot functions (TurboFan, on a background thread counted in the
  // process's CPU) for a few thousand runs. After 250 warm-up runs two workers still spent 0.53 ms
  // of CPU per run, after 1,500 0.36 (docs/scale-out.md); fewer would charge every extra process
  // its own compile time, spread over fewer timed runs.
  const warmupPerWorker = o.quick ? 200 : 1500;
  const rows: Record<string, number[]> = {};
  const add = (k: string, v: number) => {
    rows[k] ??= [];
    rows[k].push(v);
  };
  for (let r = 0; r < rounds; r++) {
    add(
      'PG baseline: raw 1-row commits/s, one connection',
      await postgresCommitBaseline(url, o.quick ? 500 : 2000),
    );
    const seq = await inProcess(url, 1, seqRuns);
    add('PG 3-step runs/s, in-process, sequential', seq.runsPerSec);
    add('PG commits per run, in-process, sequential', seq.commitsPerRun);
    const conc = await inProcess(url, 8, concRuns);
    add('PG 3-step runs/s, in-process, 8 concurrent', conc.runsPerSec);
    add('PG commits per run, in-process, 8 concurrent', conc.commitsPerRun);
    for (const k of [1, 2, 4]) {
      const w = await drainWithWorkers(url, k, drainRuns, { warmup: k * warmupPerWorker });
      add(`PG 3-step runs/s, ${k} worker process${k > 1 ? 'es' : ''}`, w.runsPerSec);
      add(`PG commits per run, ${k} worker process${k > 1 ? 'es' : ''} (incl. enqueue)`, w.commitsPerRun);
      add(`PG worker CPU ms per run, ${k} worker process${k > 1 ? 'es' : ''}`, w.workerCpuMsPerRun);
      add(`PG server CPU ms per run, ${k} worker process${k > 1 ? 'es' : ''}`, w.postgresCpuMsPerRun);
      if (k === 1) add('PG runs enqueued/s (16 at once)', w.enqueuePerSec);
    }
    process.stderr.write(`PostgreSQL round ${r + 1}/${rounds} done\n`);
  }
  console.log(
    `\nPostgreSQL (${shown}, a fresh schema per figure; ${rounds} rounds; workers run --concurrency 8)`,
  );
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  for (const [k, xs] of Object.entries(rows)) {
    const d = k.includes('commits per run') ? 2 : k.includes('CPU ms') ? 3 : 0;
    console.log(
      `${k.padEnd(width)}  ${fmt(median(xs), d).padStart(10)}  ${fmt(Math.min(...xs), d).padStart(10)}  ${fmt(Math.max(...xs), d).padStart(10)}`,
    );
  }
  const m = (k: string) => median(rows[k]!);
  const one = m('PG 3-step runs/s, 1 worker process');
  console.log(
    `ratio: 2 workers / 1 worker = ${fmt(m('PG 3-step runs/s, 2 worker processes') / one, 2)}x; 4 workers / 1 worker = ${fmt(m('PG 3-step runs/s, 4 worker processes') / one, 2)}x`,
  );
  console.log(
    `ratio: PG in-process sequential / SQLite in-process sequential = ${fmt(m('PG 3-step runs/s, in-process, sequential') / o.sqliteSequential, 2)}x; against the issue's DBOS Transact reference on this machine (~150 runs/s sequential, ~300 concurrent): ${fmt(m('PG 3-step runs/s, in-process, sequential') / 150, 1)}x and ${fmt(m('PG 3-step runs/s, in-process, 8 concurrent') / 300, 1)}x`,
  );
}
