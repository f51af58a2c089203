/**
 * Durable timers in `npm run bench` (and alone: `node --import tsx bench/timers-bench.ts --runs
 * 10000`): N runs (2,000 by default) waiting on a one-hour timer in one SQLite file, with a worker
 * (the loop `keel serve` and `keel worker` run) over them —
 *
 * - the process's CPU while they wait, over 3 s, in % of one core (bar: < 2%): a waiting run holds
 *   no process, thread, timer or connection; the worker sleeps until the next due timer;
 * - memory per waiting run (heap after GC, over the same process before the runs were made);
 * - timer lateness when 1,000 timers fire in the same second (all `until` one instant): from each
 *   wait's fire time to its `wait.ended` (the recorded clock when the walk found it due), and to
 *   its run's completion, p50 and p99 (bar: p99 < 1 s). `--concurrency` (default 32; `keel serve`
 *   walks 8) and `--fire-batch` (the worker's, default 256; 0: fire one run per walk slot).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createKeel } from '../src/app/index.ts';
import { payloadOf } from '../src/core/ledger/index.ts';
import { deploy } from '../src/testing/index.ts';

const SPEC = `id: timer
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - name: cool_off
    wait: { until: "{{ event.payload.at }}" }
  - { name: done, tool: core.identity, args: { n: "{{ event.payload.n }}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A full GC before reading the heap, with or without --expose-gc. */
const gc = (): void => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    return;
  }
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

export async function timerFigures(
  dir: string,
  o: { runs?: number; firing?: number; concurrency?: number; fireBatch?: number } = {},
): Promise<Record<string, number>> {
  const runs = o.runs ?? 2000;
  const firing = o.firing ?? 1000;
  const keel = createKeel({ store: join(dir, `timers-${Date.now()}.db`) });
  try {
    await deploy(keel, 'bench', SPEC);
    const emit = (id: string, at: number, n: number) =>
      keel.events.emit('bench', {
        id,
        type: 'go',
        time: '2026-12-01T00:00:00Z',
        payload: { at: new Date(at).toISOString(), n },
      });
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const later = Date.now() + 3_600_000;
    const w0 = Date.now();
    for (let i = 0; i < runs; i++) await emit(`w-${i}`, later, i);
    const perRun = (Date.now() - w0) / runs;
    const worker = keel.worker({
      concurrency: o.concurrency ?? 32,
      ...(o.fireBatch !== undefined ? { fireBatch: o.fireBatch } : {}),
    });
    await worker.start();
    await sleep(1000);
    gc();
    const heap1 = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(3000);
    const cpu = process.cpuUsage(cpu0);
    const idlePct = ((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100;
    // 1,000 timers due at one instant, a little after they are all made.
    const made0 = Date.now();
    // Far enough ahead that every run waits before the instant: twice the time making them took above.
    const at = made0 + 1000 + Math.ceil(2 * perRun * firing);
    const ids: string[] = [];
    for (let i = 0; i < firing; i++) ids.push((await emit(`f-${i}`, at, i)).runs[0]!.runId);
    const madeMs = Date.now() - made0;
    const waitingAtFire = Date.now() < at;
    const deadline = Date.now() + 120_000;
    let done = 0;
    while (Date.now() < deadline) {
      done = (await keel.runs.list('bench', { status: 'completed', limit: 1000 })).runs.length;
      if (done >= firing) break;
      await sleep(200);
    }
    await worker.stop();
    const ended: number[] = [];
    const finished: number[] = [];
    for (const id of ids) {
      const es = await keel.runs.entries('bench', id);
      const started = es.find((e) => e.kind === 'wait.started');
      const end = es.find((e) => e.kind === 'wait.ended');
      if (!started || !end) continue;
      const fire = Date.parse(payloadOf(started, 'wait.started').fireAt!);
      ended.push(Date.parse(end.at) - fire);
      finished.push(Date.parse(es.at(-1)!.at) - fire);
    }
    return {
      'timers: waiting runs': runs,
      [`timers: idle CPU with ${runs} waiting, % of a core`]: idlePct,
      'timers: heap bytes per waiting run': Math.max(0, (heap1 - heap0) / runs),
      [`timers: ${firing} due at one instant, fired`]: ended.length,
      [`timers: ms to make the ${firing} (all waiting before the instant: ${waitingAtFire})`]: madeMs,
      'timers: lateness to wait.ended p50 ms': pct(ended, 50),
      'timers: lateness to wait.ended p99 ms': pct(ended, 99),
      'timers: lateness to completion p99 ms': pct(finished, 99),
    };
  } finally {
    await keel.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const dir = mkdtempSync(join(tmpdir(), 'keel-timers-bench-'));
  try {
    const f = await timerFigures(dir, {
      runs: opt('runs', 2000),
      firing: opt('firing', 1000),
      concurrency: opt('concurrency', 32),
      ...(args.includes('--fire-batch') ? { fireBatch: opt('fire-batch', 256) } : {}),
    });
    for (const [k, v] of Object.entries(f))
      console.log(`${k.padEnd(56)} ${v.toFixed(k.includes('%') ? 2 : 0).padStart(10)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
