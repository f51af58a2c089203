/**
 * Runs that wait, under a real `keel serve` (issue 28's bar):
 *
 *   node --import tsx bench/waiting-serve-bench.ts [--runs 10000] [--seconds 10]
 *
 * One SQLite store gets N runs (10,000 by default) waiting: half on a one-hour timer, half on an
 * event (`wait: {event, match, timeout: 48h}`) that never comes. Then `keel serve` (the built CLI,
 * loopback, stopped by its PID) is started on it, and on an empty store of the same schema, and
 * each is measured after 3 s of settling, over `--seconds`:
 *
 * - idle CPU of the process, % of one core (user + system from /proc/<pid>/stat; bar: < 2%);
 * - memory: resident set (RSS) with the waiting runs minus without, per waiting run;
 * - that the runs are still waiting afterwards (nothing woke early, nothing was lost).
 *
 * Bounded: the runs are made at most 8 at a time, each server lives for settling + the window.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeel } from '../src/app/index.ts';
import { deploy } from '../src/testing/index.ts';
import { KEEL_COMMAND } from '../src/testing/keel-command.ts';

const TIMER_SPEC = `id: cool-off
version: 1
status: AUTONOMOUS
triggers: [{ event: go.timer }]
steps:
  - name: cool_off
    wait: { for: 1h }
  - { name: done, tool: core.noop, args: {} }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
const EVENT_SPEC = `id: await-reply
version: 1
status: AUTONOMOUS
triggers: [{ event: go.event }]
steps:
  - name: await_reply
    wait: { event: customer.replied, match: "event.subject == run.event.subject", timeout: 48h }
  - { name: done, tool: core.noop, args: {} }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
const TENANT = 'bench';
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Makes `runs` waiting runs (half timer, half event) in the store at `path`; resolves to ms taken. */
async function makeWaiting(path: string, runs: number): Promise<number> {
  const keel = createKeel({ store: path });
  try {
    await deploy(keel, TENANT, TIMER_SPEC);
    await deploy(keel, TENANT, EVENT_SPEC);
    if (runs === 0) return 0;
    const t0 = Date.now();
    let next = 0;
    const one = async () => {
      for (let i = next++; i < runs; i = next++) {
        const type = i % 2 === 0 ? 'go.timer' : 'go.event';
        const r = await keel.events.emit(TENANT, {
          id: `w-${i}`,
          type,
          subject: `S-${i}`,
          time: '2026-12-01T00:00:00Z',
          payload: {},
        });
        if (r.runs[0]?.status !== 'waiting') throw new Error(`run ${i}: ${r.runs[0]?.status}, not waiting`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, one));
    return Date.now() - t0;
  } finally {
    await keel.close();
  }
}

/** utime + stime (ticks) and RSS (bytes) of a process, from /proc. */
function usage(pid: number): { ticks: number; rss: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name: state is [0], utime [11], stime [12]; status has VmRSS.
  const ticks = Number(f[11]) + Number(f[12]);
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  return { ticks, rss };
}

async function startServe(store: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...KEEL_COMMAND, '--store', store, '--json', 'serve', '--port', '0', '--host', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('keel serve did not start in 30 s')), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('"url"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`keel serve exited ${code}`));
    });
  });
  return child;
}

/** Idle CPU (% of a core) and RSS (bytes, the window's end) of `keel serve` on `store`. */
async function measureServe(store: string, seconds: number): Promise<{ cpuPct: number; rss: number }> {
  const child = await startServe(store);
  try {
    await sleep(3000);
    const a = usage(child.pid!);
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const b = usage(child.pid!);
    const ms = performance.now() - t0;
    return { cpuPct: ((b.ticks - a.ticks) / TICKS / (ms / 1000)) * 100, rss: b.rss };
  } finally {
    const gone = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}

export async function waitingServeFigures(
  dir: string,
  o: { runs?: number; seconds?: number } = {},
): Promise<Record<string, number | string>> {
  const runs = o.runs ?? 10_000;
  const seconds = o.seconds ?? 10;
  const full = join(dir, 'waiting.db');
  const empty = join(dir, 'empty.db');
  const madeMs = await makeWaiting(full, runs);
  await makeWaiting(empty, 0);
  const none = await measureServe(empty, seconds);
  const some = await measureServe(full, seconds);
  // Afterwards: every run still waiting (none woke early, none lost).
  const keel = createKeel({ store: full });
  let waiting = 0;
  try {
    for (let cursor: string | undefined; ; ) {
      const page = await keel.runs.list(TENANT, {
        status: 'waiting',
        limit: 500,
        ...(cursor ? { cursor } : {}),
      });
      waiting += page.runs.length;
      if (!page.next) break;
      cursor = page.next;
    }
  } finally {
    await keel.close();
  }
  return {
    'waiting: runs (half timer 1h, half event 48h)': runs,
    'waiting: ms to make them (8 at a time)': madeMs,
    [`waiting: keel serve idle CPU, empty store, % of a core (${seconds} s)`]: none.cpuPct,
    [`waiting: keel serve idle CPU with ${runs} waiting, % of a core (${seconds} s)`]: some.cpuPct,
    'waiting: keel serve RSS, empty store, MiB': none.rss / 2 ** 20,
    [`waiting: keel serve RSS with ${runs} waiting, MiB`]: some.rss / 2 ** 20,
    'waiting: RSS bytes per waiting run': Math.max(0, (some.rss - none.rss) / runs),
    'waiting: still waiting afterwards': waiting,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const dir = mkdtempSync(join(tmpdir(), 'keel-waiting-bench-'));
  try {
    const f = await waitingServeFigures(dir, { runs: opt('runs', 10_000), seconds: opt('seconds', 10) });
    for (const [k, v] of Object.entries(f))
      console.log(
        `${k.padEnd(64)} ${typeof v === 'number' ? v.toFixed(k.includes('%') ? 2 : 0).padStart(10) : v}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
