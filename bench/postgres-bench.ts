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
 * with a NOTIFY, exactly as an enqueue would wake the workers.
 */
import { join } from 'node:path';
import pg from 'pg';
import {
  type BenchStore,
  openBenchStore,
  postgresCommitBaseline,
  testDatabaseUrl,
} from '../src/adapters/postgres/index.ts';
import { createKeel } from '../src/app/index.ts';
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
    await keel.workflows.promote('bench', 'bench', 'AUTONOMOUS', 'bench');
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

async function drainWithWorkers(url: string, workers: number, runs: number) {
  return withKeel(url, 'enqueue', async (b, keel) => {
    const c0 = b.store.stats().commits;
    const t0 = performance.now();
    await emitAll(keel, runs, 16, 'running');
    const enqueuePerSec = runs / ((performance.now() - t0) / 1000);
    const enqueueCommits = b.store.stats().commits - c0;
    const db = new pg.Client({ connectionString: url, options: `-c search_path=${b.schema}` });
    await db.connect();
    try {
      await db.query(
        `UPDATE runs SET lease_owner = 'bench-gate', lease_until = 9e15 WHERE status = 'running'`,
      );
      const u = new URL(url);
      u.searchParams.set('schema', b.schema);
      const ws = await startWorkers(workers, { store: u.toString(), tools: TOOLS, concurrency: 8 });
      try {
        const t1 = performance.now();
        await db.query(`WITH open AS (
            UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = 'bench-gate' RETURNING 1)
          SELECT pg_notify('keel_runs', current_schema()), (SELECT count(*) FROM open)`);
        const deadline = Date.now() + 120_000;
        // Counting running runs reads the small partial index, not the whole table.
        const count = async (status: string) =>
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE status = $1', [status]))
            .rows[0]!.n;
        while ((await count('running')) > 0) {
          if (Date.now() > deadline) throw new Error(`workers did not drain ${runs} runs in 120 s`);
          await new Promise((r) => setTimeout(r, 10));
        }
        const runsPerSec = runs / ((performance.now() - t1) / 1000);
        if ((await count('completed')) !== runs) throw new Error(`not every one of ${runs} runs completed`);
        await Promise.all(ws.map((w) => w.terminate()));
        const workerCommits = ws.reduce((n, w) => n + (w.summary()?.commits ?? Number.NaN), 0);
        return { runsPerSec, enqueuePerSec, commitsPerRun: (workerCommits + enqueueCommits) / runs };
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
  const rounds = o.quick ? 1 : 3;
  const seqRuns = o.quick ? 200 : 1000;
  const concRuns = o.quick ? 400 : 2000;
  const drainRuns = o.quick ? 600 : 4000;
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
      const w = await drainWithWorkers(url, k, drainRuns);
      add(`PG 3-step runs/s, ${k} worker process${k > 1 ? 'es' : ''}`, w.runsPerSec);
      add(`PG commits per run, ${k} worker process${k > 1 ? 'es' : ''} (incl. enqueue)`, w.commitsPerRun);
      if (k === 1) add('PG runs enqueued/s (16 at once)', w.enqueuePerSec);
    }
    process.stderr.write(`PostgreSQL round ${r + 1}/${rounds} done\n`);
  }
  console.log(
    `\nPostgreSQL (${shown}, a fresh schema per figure; ${rounds} rounds; workers run --concurrency 8)`,
  );
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  for (const [k, xs] of Object.entries(rows)) {
    const d = k.includes('commits per run') ? 2 : 0;
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
