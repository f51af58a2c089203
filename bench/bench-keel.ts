/**
 * One Keel on a fresh SQLite file with the bench workflow published and promoted, ready to start
 * bench runs: plain, or governed (the tenant policy and writ of governance-bench.ts). Several can be
 * open at once, so two variants can be measured in alternating batches on the same machine state.
 */

import { createKeel, type Keel, type KeelConfig } from '../src/app/index.ts';
import { setStatus } from '../src/testing/index.ts';
import { SPEC, tool } from './bench-tools.ts';
import { governedBench } from './governance-bench.ts';

export interface BenchKeel {
  readonly keel: Keel;
  /** Starts `n` runs, `concurrency` at a time, each to completion; resolves to the seconds taken. */
  runs(n: number, concurrency?: number): Promise<number>;
  close(): Promise<void>;
}

export async function openBenchKeel(
  store: string,
  governed = false,
  extra: Partial<Omit<KeelConfig, 'store'>> = {},
): Promise<BenchKeel> {
  const gov = governed ? governedBench() : undefined;
  const keel = createKeel({
    ...extra,
    store,
    tools: [tool('step_a'), tool('step_b'), tool('step_c')],
    ...(gov ? { policies: gov.policies, trustedKeys: gov.trustedKeys } : {}),
  });
  await keel.workflows.publish('bench', SPEC, 'bench.yaml', 'bench');
  // The bench measures runs, not promotion: the version is put at AUTONOMOUS directly (a fixture).
  await setStatus(keel, 'bench', 'bench', 1, 'AUTONOMOUS', 'bench');
  let started = 0;
  const options = gov ? { writ: gov.writ } : {};
  return {
    keel,
    async runs(n, concurrency = 1) {
      const end = started + n;
      const t0 = performance.now();
      const worker = async () => {
        for (;;) {
          const i = started++;
          if (i >= end) return;
          const event = {
            id: `e${i}`,
            type: 'bench.go',
            subject: `T-${i}`,
            time: '2026-01-01T00:00:00Z',
            payload: {},
          };
          const r = await keel.events.emit('bench', event, options);
          if (r.runs[0]?.status !== 'completed') throw new Error(`run ${i} ended ${r.runs[0]?.status}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      started = end;
      return (performance.now() - t0) / 1000;
    },
    close: () => keel.close(),
  };
}
