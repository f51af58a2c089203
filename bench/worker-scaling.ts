/**
 * The worker-scaling figures alone, for tuning: 1, 2 and 4 `keel worker` processes draining the
 * bench workload, interleaved round by round (so machine noise hits every figure alike), with
 * CPU per run of the workers and of the PostgreSQL server. Prints every round, then medians.
 *
 *   node --import tsx bench/worker-scaling.ts [--rounds 5] [--runs 4000] [--workers 1,2,4]
 *        [--warmup N]       # N runs per worker drained first, untimed (JIT, lazy compilation)
 *        [--cpu-prof dir]   # profiles every worker process (node --cpu-prof) into dir
 */
import { resolve } from 'node:path';
import { testDatabaseUrl } from '../src/adapters/postgres/index.ts';
import { drainWithWorkers } from './postgres-bench.ts';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const rounds = Number(opt('rounds') ?? 5);
const runs = Number(opt('runs') ?? 4000);
const counts = (opt('workers') ?? '1,2,4').split(',').map(Number);
const prof = opt('cpu-prof');
/** Runs per worker drained before the timed drain (JIT and lazy compilation warmed up). */
const warmup = Number(opt('warmup') ?? 0);
const nodeArgs = prof ? ['--cpu-prof', '--cpu-prof-dir', resolve(prof)] : undefined;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f = (x: number, d = 0) => x.toFixed(d).padStart(d ? 6 : 6);

const url = testDatabaseUrl();
const rows = new Map<number, { rps: number[]; wcpu: number[]; pcpu: number[]; cpr: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const k of counts) {
    const d = await drainWithWorkers(url, k, runs, { warmup: warmup * k, ...(nodeArgs ? { nodeArgs } : {}) });
    const row = rows.get(k) ?? { rps: [], wcpu: [], pcpu: [], cpr: [] };
    row.rps.push(d.runsPerSec);
    row.wcpu.push(d.workerCpuMsPerRun);
    row.pcpu.push(d.postgresCpuMsPerRun);
    row.cpr.push(d.commitsPerRun);
    rows.set(k, row);
    console.log(
      `round ${r + 1} workers ${k}: ${f(d.runsPerSec)} runs/s  worker CPU ${f(d.workerCpuMsPerRun, 3)} ms/run  PG CPU ${f(d.postgresCpuMsPerRun, 3)} ms/run  commits/run ${f(d.commitsPerRun, 2)} (workers ${f(d.workerCommitsPerRun, 2)}, claims ${f(d.claimsPerRun, 2)})`,
    );
  }
}
console.log('\nmedians (min-max runs/s):');
const one = median(rows.get(counts[0]!)!.rps);
for (const [k, row] of rows) {
  console.log(
    `workers ${k}: ${f(median(row.rps))} runs/s (${f(Math.min(...row.rps))}-${f(Math.max(...row.rps))})  ratio ${f(median(row.rps) / one, 2)}x  worker CPU ${f(median(row.wcpu), 3)} ms/run  PG CPU ${f(median(row.pcpu), 3)} ms/run  commits/run ${f(median(row.cpr), 2)}`,
  );
}
