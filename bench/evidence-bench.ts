/**
 * The evidence section of `npm run bench`: how fast runs leave a store as a portable run directory
 * (`exportRunDir`: each run verified in the store, then read, written as files and hashed) and how
 * fast such a directory verifies from its files alone (`verifyRunDir`, what `keel verify --dir`
 * does once the files are read). Real runs of the bench workflow on a fresh SQLite file; median of
 * three rounds each, in entries per second.
 */
import { join } from 'node:path';
import { exportRunDir } from '../src/app/run-dirs.ts';
import { verifyRunDir } from '../src/core/run-dir/index.ts';
import { openBenchKeel } from './bench-keel.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function evidenceFigures(
  dir: string,
  o: { runs?: number } = {},
): Promise<Record<string, number>> {
  const runs = o.runs ?? 5_000;
  const b = await openBenchKeel(join(dir, 'evidence.db'));
  try {
    await b.runs(runs, 8);
    const exportRates: number[] = [];
    const verifyRates: number[] = [];
    let entries = 0;
    let bytes = 0;
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const out = await exportRunDir(b.keel, 'bench', { workflowId: 'bench' });
      const exportS = (performance.now() - t0) / 1000;
      entries = out.manifest.runs.reduce((n, x) => n + x.entries, 0);
      bytes = [...out.files.values()].reduce((n, f) => n + f.length, 0);
      exportRates.push(entries / exportS);
      const t1 = performance.now();
      const report = verifyRunDir(out.files);
      if (!report.ok) throw new Error('bench: the export does not verify');
      verifyRates.push(entries / ((performance.now() - t1) / 1000));
    }
    return {
      [`export to a run directory, entries/s (${runs.toLocaleString('en-US')} runs, ${entries.toLocaleString('en-US')} entries, each run verified first)`]:
        median(exportRates),
      'verify a run directory offline, entries/s (files in memory)': median(verifyRates),
      'run directory size, bytes per entry': bytes / entries,
    };
  } finally {
    await b.close();
  }
}
