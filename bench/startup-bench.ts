/**
 * Start-up of `keel`, one or more builds side by side (docs/performance.md, "Start-up"): in a
 * project made by `keel init --template invoice-approval` with `pay-invoice` published and
 * TESTING, each round runs, for each build in turn, `keel --help`, `keel test pay-invoice` and
 * `keel --json serve --port 0` (until it prints its `url`, on the project's existing store), and
 * prints the medians of wall time and CPU time (user + system, every thread).
 *
 *   node --import tsx bench/startup-bench.ts [--runs 7] [--serve] <bin/keel.js> [<other bin/keel.js> ...]
 *
 * With --serve, only `keel serve` is measured.
 *
 * Linux only: CPU time is read with /usr/bin/time (GNU time) and, for serve, /proc/<pid>/stat at
 * the moment it listens.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Sample {
  wall: number;
  cpu: number;
}

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 7;
const serveAt = args.indexOf('--serve');
const serveOnly = serveAt >= 0 && args.splice(serveAt, 1).length === 1;
const bins = args.map((b) => resolve(b));
if (bins.length === 0 || !Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: startup-bench.ts [--runs 7] [--serve] <bin/keel.js> [<bin/keel.js> ...]\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'keel-startup-'));
const project = join(dir, 'proj');
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
for (const k of Object.keys(env)) if (k.startsWith('KEEL_') || k === 'NODE_OPTIONS') delete env[k];

function must(cwd: string, ...a: string[]): void {
  const r = spawnSync(process.execPath, [bins[0]!, ...a], { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`keel ${a.join(' ')}: exit ${r.status}\n${r.stderr}`);
}

/** A command to its end, under GNU time: wall and user + system seconds. */
function timed(bin: string, ...a: string[]): Sample {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', process.execPath, bin, ...a], {
    cwd: project,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`keel ${a.join(' ')}: exit ${r.status}\n${r.stderr}`);
  const [wall, user, sys] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall: wall!, cpu: user! + sys! };
}

/** `keel serve` from spawn to its JSON line with `url`: wall, and its CPU by then; then SIGTERM. */
function serve(bin: string): Promise<Sample> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [bin, '--json', 'serve', '--port', '0'], { cwd: project, env });
    let out = '';
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('"url"')) return;
      const wall = (performance.now() - t0) / 1000;
      const f = readFileSync(`/proc/${c.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const ticks = Number(f[11]) + Number(f[12]); // utime, stime (fields 14, 15)
      c.kill('SIGTERM');
      c.on('exit', () => done({ wall, cpu: ticks / 100 }));
    });
    c.on('exit', (code) => {
      if (!out.includes('"url"')) fail(new Error(`keel serve exited ${code} before listening\n${err}`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  must(dir, 'init', '--template', 'invoice-approval', 'proj');
  must(project, 'publish', 'workflows/pay-invoice.yaml');
  must(project, 'promote', 'pay-invoice', 'TESTING');
  const names = ['keel --help', 'keel test pay-invoice', 'keel serve, listening'];
  const samples = bins.map(() => names.map((): Sample[] => []));
  for (let round = 0; round < runs; round++)
    for (const [i, bin] of bins.entries()) {
      if (!serveOnly) {
        samples[i]![0]!.push(timed(bin, '--help'));
        samples[i]![1]!.push(timed(bin, 'test', 'pay-invoice'));
      }
      samples[i]![2]!.push(await serve(bin));
    }
  const s = (x: number) => `${x.toFixed(2)} s`;
  for (const [i, bin] of bins.entries()) {
    process.stdout.write(`${bin}\n`);
    for (const [j, name] of names.entries()) {
      const xs = samples[i]![j]!;
      if (xs.length === 0) continue;
      const wall = median(xs.map((x) => x.wall));
      const cpu = median(xs.map((x) => x.cpu));
      process.stdout.write(`  ${name.padEnd(24)} wall ${s(wall)}  CPU ${s(cpu)}  (median of ${runs})\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
