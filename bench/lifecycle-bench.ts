/**
 * What the lifecycle costs, on SQLite (synchronous=FULL):
 *
 * - a live run with one SHADOW version present against none, as a paired comparison: two Keels on
 *   their own files, warmed alike, then run in batches of PAIR_BATCH sequential live runs, one batch
 *   of each back to back (ABBA, so neither always goes first); a pair's ratio is the plain batch's
 *   time over the shadowed batch's, until each `emit` returns (the live path: the shadows' work is
 *   queued with the live run's root and worked off it). The shadowed Keel's queue is then drained
 *   (timed apart, never during the other Keel's batch), so the all-in ratio — live runs and their
 *   comparisons — and the queue's lag at the end of a batch (items waiting, the oldest's age) are
 *   read too; commits per live run, live alone and all of them;
 * - the replay gate's throughput: a candidate re-planned on the last N finished runs of the LIVE
 *   version, runs per second, end to end (reading and verifying each ledger, then re-planning it
 *   calling nothing) and re-planning alone.
 *
 * Alone: `node --import tsx bench/lifecycle-bench.ts [--quick]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKeel, type Keel } from '../src/app/index.ts';
import { setStatus } from '../src/testing/index.ts';
import { SPEC, tool } from './bench-tools.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Sequential live runs per batch of a pair. */
const PAIR_BATCH = 50;

async function benchKeel(store: string, shadow: boolean): Promise<Keel> {
  const keel = createKeel({ store, tools: [tool('step_a'), tool('step_b'), tool('step_c')] });
  await keel.workflows.publish('bench', SPEC, 'bench.yaml', 'bench');
  // The bench measures runs, not promotion: versions are put at their status directly (a fixture).
  await setStatus(keel, 'bench', 'bench', 1, 'AUTONOMOUS', 'bench');
  if (shadow) {
    // v2: the same workflow with one argument changed, so every comparison finds a difference.
    await keel.workflows.publish(
      'bench',
      SPEC.replace('version: 1', 'version: 2').replace('n: 3', 'n: 4'),
      'v2.yaml',
      'bench',
    );
    await setStatus(keel, 'bench', 'bench', 2, 'SHADOW', 'bench');
  }
  return keel;
}

let next = 0;
/** `n` sequential live runs until each emit returns: seconds, and commits in that time. */
async function liveRuns(keel: Keel, n: number): Promise<{ sec: number; commits: number }> {
  const c0 = keel.store.stats().commits;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const k = next++;
    const r = await keel.events.emit('bench', {
      id: `e${k}`,
      type: 'bench.go',
      subject: `T-${k}`,
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    if (r.runs[0]?.status !== 'completed') throw new Error(`live run ${k} ended ${r.runs[0]?.status}`);
  }
  return { sec: (performance.now() - t0) / 1000, commits: keel.store.stats().commits - c0 };
}

/** Drains what the Keel queued: seconds, and commits in that time. */
async function drain(keel: Keel): Promise<{ sec: number; commits: number }> {
  const c0 = keel.store.stats().commits;
  const t0 = performance.now();
  await keel.lifecycle.settled();
  return { sec: (performance.now() - t0) / 1000, commits: keel.store.stats().commits - c0 };
}

export async function lifecycleFigures(dir: string, o: { quick: boolean }): Promise<Record<string, number>> {
  const runs = o.quick ? 300 : 1000;
  const plain = await benchKeel(join(dir, 'lifecycle-plain.db'), false);
  const shadowed = await benchKeel(join(dir, 'lifecycle-shadow.db'), true);
  const out = {
    plain: [] as number[],
    shadow: [] as number[],
    ratio: [] as number[],
    allIn: [] as number[],
    waiting: [] as number[],
    oldestMs: [] as number[],
    cPlain: [] as number[],
    cShadow: [] as number[],
    cAll: [] as number[],
  };
  let kept = 0;
  try {
    // Warmed alike, the shadowed Keel's comparisons made too (its drain path compiled).
    await liveRuns(plain, 4 * PAIR_BATCH);
    await liveRuns(shadowed, 4 * PAIR_BATCH);
    await drain(shadowed);
    for (let k = 0, done = 0; done < runs; k++, done += PAIR_BATCH) {
      const batch = async (keel: Keel) => {
        const live = await liveRuns(keel, PAIR_BATCH);
        if (keel !== shadowed) return { live };
        const q = await keel.lifecycle.shadowQueue.status({ tenant: 'bench' });
        return { live, q, drained: await drain(keel) };
      };
      const first = k % 2 === 0 ? plain : shadowed;
      const a = await batch(first);
      const b = await batch(first === plain ? shadowed : plain);
      const [p, s] = first === plain ? [a, b] : [b, a];
      out.plain.push(PAIR_BATCH / p.live.sec);
      out.shadow.push(PAIR_BATCH / s.live.sec);
      out.ratio.push(p.live.sec / s.live.sec);
      out.allIn.push(p.live.sec / (s.live.sec + s.drained!.sec));
      out.waiting.push(s.q!.waiting + s.q!.running);
      out.oldestMs.push(s.q!.oldestAgeMs ?? 0);
      out.cPlain.push(p.live.commits / PAIR_BATCH);
      out.cShadow.push(s.live.commits / PAIR_BATCH);
      out.cAll.push((s.live.commits + s.drained!.commits) / PAIR_BATCH);
    }
    kept = (await shadowed.lifecycle.shadowReport('bench', 'bench', { version: 2 })).comparisons;
    const expected = 4 * PAIR_BATCH + out.ratio.length * PAIR_BATCH;
    if (kept !== expected) throw new Error(`${kept} shadow comparisons were kept, ${expected} expected`);
  } finally {
    await plain.close();
    await shadowed.close();
  }

  // The replay gate: v2 re-planned on the last `gateRuns` runs of the LIVE v1.
  const gateRuns = o.quick ? 500 : 2000;
  const gate = await benchKeel(join(dir, 'lifecycle-gate.db'), false);
  const endToEnd: number[] = [];
  const replanOnly: number[] = [];
  try {
    await liveRuns(gate, gateRuns);
    await gate.workflows.publish(
      'bench',
      SPEC.replace('version: 1', 'version: 2').replace('n: 3', 'n: 4'),
      'v2.yaml',
      'bench',
    );
    await setStatus(gate, 'bench', 'bench', 2, 'SHADOW', 'bench');
    await gate.lifecycle.replayGate('bench', 'bench', { version: 2, runs: gateRuns }); // warm-up (JIT)
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const report = await gate.lifecycle.replayGate('bench', 'bench', { version: 2, runs: gateRuns });
      const sec = (performance.now() - t0) / 1000;
      if (report.runs !== gateRuns || report.diverged.length !== gateRuns)
        throw new Error('the replay gate missed runs');
      endToEnd.push(gateRuns / sec);
      replanOnly.push(gateRuns / (report.ms / 1000));
    }
  } finally {
    await gate.close();
  }
  return {
    [`lifecycle: live runs/s, sequential, no SHADOW version (paired batches of ${PAIR_BATCH})`]: median(
      out.plain,
    ),
    'lifecycle: live runs/s, sequential, one SHADOW version (until each emit returns)': median(out.shadow),
    'lifecycle: ratio, live runs/s with a shadow / without, paired (median of pairs; bar >= 0.9)': median(
      out.ratio,
    ),
    'lifecycle: ratio, live runs and their comparisons / live runs alone, paired': median(out.allIn),
    [`lifecycle: shadow queue at the end of a batch of ${PAIR_BATCH}: comparisons waiting`]: median(
      out.waiting,
    ),
    'lifecycle: shadow queue at the end of a batch: oldest item waited, ms': median(out.oldestMs),
    'lifecycle: commits per live run, no SHADOW version': median(out.cPlain),
    'lifecycle: commits per live run, one SHADOW version, live path': median(out.cShadow),
    'lifecycle: commits per live run, one SHADOW version, its comparison included': median(out.cAll),
    [`lifecycle: replay gate, runs re-planned/s end to end (read, verify, re-plan; ${gateRuns} runs)`]:
      median(endToEnd),
    'lifecycle: replay gate, runs re-planned/s, re-planning alone': median(replanOnly),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const dir = mkdtempSync(join(tmpdir(), 'keel-lifecycle-bench-'));
  try {
    for (const [k, v] of Object.entries(await lifecycleFigures(dir, { quick })))
      console.log(
        `${k.padEnd(100)}  ${v.toFixed(k.includes('ratio') || k.includes('commits') ? 2 : 0).padStart(10)}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
