/**
 * What the lifecycle costs, on SQLite (synchronous=FULL):
 *
 * - a live run with one SHADOW version present against none: sequential live runs/s until each
 *   `emit` returns (the live path: shadow runs start beside it, never awaited by it), the time
 *   until every shadow has also finished, and commits per live run (live alone, and all of them);
 *   measured in alternating rounds on two Keels on their own files;
 * - the replay gate's throughput: a candidate re-planned on the last N finished runs of the LIVE
 *   version, runs per second, end to end (reading and verifying each ledger, then re-planning it
 *   calling nothing) and re-planning alone.
 */
import { join } from 'node:path';
import { createKeel, type Keel } from '../src/app/index.ts';
import { setStatus } from '../src/testing/index.ts';
import { SPEC, tool } from './bench-tools.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
async function liveRuns(
  keel: Keel,
  n: number,
): Promise<{ liveSec: number; settledSec: number; commits: number }> {
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
  const liveSec = (performance.now() - t0) / 1000;
  await keel.lifecycle.settled();
  return { liveSec, settledSec: (performance.now() - t0) / 1000, commits: keel.store.stats().commits - c0 };
}

export async function lifecycleFigures(dir: string, o: { quick: boolean }): Promise<Record<string, number>> {
  const n = o.quick ? 150 : 400;
  const rounds = o.quick ? 3 : 5;
  const plain = await benchKeel(join(dir, 'lifecycle-plain.db'), false);
  const shadowed = await benchKeel(join(dir, 'lifecycle-shadow.db'), true);
  const out = {
    plain: [] as number[],
    shadow: [] as number[],
    settled: [] as number[],
    cPlain: [] as number[],
    cShadow: [] as number[],
  };
  try {
    await liveRuns(plain, 100); // warm-up
    await liveRuns(shadowed, 100);
    for (let r = 0; r < rounds; r++) {
      // Alternating which goes first, so neither always runs on a warmer (or busier) disk.
      const order = r % 2 === 0 ? ([plain, shadowed] as const) : ([shadowed, plain] as const);
      for (const k of order) {
        const x = await liveRuns(k, n);
        if (k === plain) {
          out.plain.push(n / x.liveSec);
          out.cPlain.push(x.commits / n);
        } else {
          out.shadow.push(n / x.liveSec);
          out.settled.push(n / x.settledSec);
          out.cShadow.push(x.commits / n);
        }
      }
    }
    const comparisons = (await shadowed.lifecycle.shadowReport('bench', 'bench', { version: 2 })).comparisons;
    if (comparisons < rounds * n) throw new Error(`only ${comparisons} shadow comparisons were kept`);
  } finally {
    await plain.close();
    await shadowed.close();
  }

  // The replay gate: v2 re-planned on the last `runs` runs of the LIVE v1.
  const runs = o.quick ? 500 : 2000;
  const gate = await benchKeel(join(dir, 'lifecycle-gate.db'), false);
  const endToEnd: number[] = [];
  const replanOnly: number[] = [];
  try {
    await liveRuns(gate, runs);
    await gate.workflows.publish(
      'bench',
      SPEC.replace('version: 1', 'version: 2').replace('n: 3', 'n: 4'),
      'v2.yaml',
      'bench',
    );
    await setStatus(gate, 'bench', 'bench', 2, 'SHADOW', 'bench');
    await gate.lifecycle.replayGate('bench', 'bench', { version: 2, runs }); // warm-up (JIT)
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const report = await gate.lifecycle.replayGate('bench', 'bench', { version: 2, runs });
      const sec = (performance.now() - t0) / 1000;
      if (report.runs !== runs || report.diverged.length !== runs)
        throw new Error('the replay gate missed runs');
      endToEnd.push(runs / sec);
      replanOnly.push(runs / (report.ms / 1000));
    }
  } finally {
    await gate.close();
  }
  return {
    'lifecycle: live runs/s, sequential, no SHADOW version': median(out.plain),
    'lifecycle: live runs/s, sequential, one SHADOW version (until each emit returns)': median(out.shadow),
    'lifecycle: ratio, live runs/s with a shadow / without': median(out.shadow) / median(out.plain),
    'lifecycle: runs/s until every shadow also finished': median(out.settled),
    'lifecycle: commits per live run, no SHADOW version': median(out.cPlain),
    'lifecycle: commits per live run, one SHADOW version (its shadow included)': median(out.cShadow),
    [`lifecycle: replay gate, runs re-planned/s end to end (read, verify, re-plan; ${runs} runs)`]:
      median(endToEnd),
    'lifecycle: replay gate, runs re-planned/s, re-planning alone': median(replanOnly),
  };
}
