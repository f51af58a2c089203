/**
 * The worker-scaling figures alone, for tuning: 1, 2 and 4 `keel worker` processes draining the
 * bench workload, interleaved round by round (so machine noise hits every figure alike), with
 * CPU per run of the workers and of the PostgreSQL server. Prints every round, then medians. Each
 * round also prints the CPU that other processes on this machine (neither this bench, its workers
 * nor PostgreSQL) took while the figure was taken, enqueue and warm-up included: on a shared 2-core
 * machine a round with more than a few tenths of a second of it measured someone else's load too.
 *
 *   node --import tsx bench/worker-scaling.ts [--rounds 5] [--runs 4000] [--workers 1,2,4]
 *        [--warmup N]       # N runs per worker drained first, untimed (JIT, lazy compilation)
 *        [--cpu-prof dir]   # profiles every worker process (node --cpu-prof) into dir
 */
import { readdirSync, readFileSync } from 'node:fs';
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

/** CPU ticks of every process other than this one, its children and PostgreSQL's, by pid. */
function othersTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (comm === 'postgres' || Number(d) === process.pid || Number(f[1]) === process.pid) continue;
      ticks.set(Number(d), Number(f[11]) + Number(f[12]));
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}
/** CPU seconds other processes spent between two snapshots (new processes count in full). */
const othersCpu = (a: Map<number, number>, b: Map<number, number>) => {
  let t = 0;
  for (const [pid, v] of b) t += v - (a.get(pid) ?? 0);
  return t / 100;
};

const url = testDatabaseUrl();
const rows = new Map<number, { rps: number[]; wcpu: number[]; pcpu: number[]; cpr: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const k of counts) {
    const before = othersTicks();
    const d = await drainWithWorkers(url, k, runs, { warmup: warmup * k, ...(nodeArgs ? { nodeArgs } : {}) });
    const others = othersCpu(before, othersTicks());
    const row = rows.get(k) ?? { rps: [], wcpu: [], pcpu: [], cpr: [] };
    row.rps.push(d.runsPerSec);
    row.wcpu.push(d.workerCpuMsPerRun);
    row.pcpu.push(d.postgresCpuMsPerRun);
    row.cpr.push(d.commitsPerRun);
    rows.set(k, row);
    console.log(
      `round ${r + 1} workers ${k}: ${f(d.runsPerSec)} runs/s  worker CPU ${f(d.workerCpuMsPerRun, 3)} ms/run  PG CPU ${f(d.postgresCpuMsPerRun, 3)} ms/run  commits/run ${f(d.commitsPerRun, 2)} (workers ${f(d.workerCommitsPerRun, 2)}, claims ${f(d.claimsPerRun, 2)})  other processes ${others.toFixed(2)} s CPU`,
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
