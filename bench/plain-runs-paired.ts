/**
 * Whether the flow constructs (conditions, waits, parallel, forEach) cost a spec that uses none of
 * them anything: sequential 3-step runs/s of this checkout against another checkout of Keel (the
 * commit before the constructs), in alternating batches in one process, each on its own fresh
 * SQLite file, with each tree's own bench workflow (bench/bench-keel.ts). Bar: within ±5%.
 *
 *   node --import tsx bench/plain-runs-paired.ts --baseline <checkout> [--pairs 10] [--batch 100]
 *
 * The baseline checkout needs its node_modules (a link to this one's will do). Bounded: pairs ×
 * batch runs on each side, one at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchKeel } from './bench-keel.ts';

const HERE = resolve(fileURLToPath(new URL('..', import.meta.url)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Open = (store: string) => Promise<BenchKeel>;
async function opener(tree: string): Promise<Open> {
  const m = (await import(join(tree, 'bench', 'bench-keel.ts'))) as {
    openBenchKeel: (store: string) => Promise<BenchKeel>;
  };
  return (store) => m.openBenchKeel(store);
}

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const baseline = opt('baseline');
if (!baseline) {
  console.error('usage: bench/plain-runs-paired.ts --baseline <checkout of Keel> [--pairs 10] [--batch 100]');
  process.exit(2);
}
const pairs = Number(opt('pairs') ?? 10);
const batch = Number(opt('batch') ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'keel-plain-paired-'));
try {
  const [now, before] = await Promise.all([opener(HERE), opener(resolve(baseline))]);
  const a = await now(join(dir, 'now.db'));
  const b = await before(join(dir, 'before.db'));
  try {
    // Warm both (JIT, page cache) before measuring.
    await a.runs(batch);
    await b.runs(batch);
    const rateNow: number[] = [];
    const rateBefore: number[] = [];
    const diff: number[] = [];
    for (let i = 0; i < pairs; i++) {
      // Alternate which goes first, so a drift in the machine's load falls on both.
      const first = i % 2 === 0;
      const x = first ? batch / (await a.runs(batch)) : 0;
      const y = batch / (await b.runs(batch));
      const z = first ? x : batch / (await a.runs(batch));
      rateNow.push(z);
      rateBefore.push(y);
      diff.push((z / y - 1) * 100);
    }
    console.log(`3-step runs/s, sequential, this checkout:     ${median(rateNow).toFixed(0)}`);
    console.log(`3-step runs/s, sequential, baseline checkout: ${median(rateBefore).toFixed(0)}`);
    console.log(
      `difference, median of ${pairs} paired batches of ${batch}: ${median(diff).toFixed(1)}% (bar: within ±5%)`,
    );
  } finally {
    await a.close();
    await b.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
