/**
 * What checking before acting costs (issue: never act on what does not verify). Every action reads
 * the run row, its ledger and its pinned version, then checks them (chain to the row's head, the
 * root's identity against the row, status, spec hash). Measured on a real SQLite file:
 *
 * - per approve: the check itself (`checkStoredRun`) on what `engine.load` read — runs waiting for
 *   an approval after 2 steps (6 entries) — and the reads it checks, for scale;
 * - per fork: the whole-source verification a fork now makes first (`verifyRun`: paged reads,
 *   chain, deltas, rows), on completed runs of 9 entries;
 * - an approve's wall time (fsync'd), for scale.
 */
import { join } from 'node:path';
import { createKeel } from '../src/app/index.ts';
import { verifyRun } from '../src/engine/index.ts';
import { checkStoredRun } from '../src/engine/run-integrity.ts';
import { setStatus, spyTool } from '../src/testing/index.ts';

const SPEC = `
id: gated
version: 1
status: DRAFT
triggers: [{ event: bench.gate }]
steps:
  - { name: a, tool: note, args: { n: 1 } }
  - { name: b, tool: note, args: { n: 2 } }
  - { name: c, tool: wipe, args: { n: 3 } }
limits: { maxSteps: 3, maxCostUsd: 0 }
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function integrityFigures(dir: string, o: { quick: boolean }): Promise<Record<string, number>> {
  const n = o.quick ? 100 : 400;
  const keel = createKeel({
    store: join(dir, 'integrity.db'),
    tools: [spyTool('note'), spyTool('wipe', { destructive: true })],
  });
  await keel.workflows.publish('bench', SPEC, 'gated.yaml', 'bench');
  // The bench measures runs, not promotion: the version is put at LIVE directly (a fixture).
  await setStatus(keel, 'bench', 'gated', 1, 'LIVE', 'bench');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const event = { id: `g${i}`, type: 'bench.gate', time: '2026-01-01T00:00:00Z', payload: {} };
    ids.push((await keel.events.emit('bench', event)).runs[0]!.runId);
  }
  const { store } = keel;
  /** µs per call of `f` over every run (after a warm-up). */
  const perRun = async (f: (id: string) => Promise<unknown>) => {
    for (const id of ids.slice(0, 20)) await f(id);
    const t = performance.now();
    for (const id of ids) await f(id);
    return ((performance.now() - t) * 1000) / ids.length;
  };
  const read = async (id: string) => {
    const run = (await store.getRun('bench', id))!;
    const stored = await store.readEntries('bench', id);
    return { run, stored, version: await store.getVersion('bench', run.workflowId, run.version) };
  };
  const readUs = median([await perRun(read), await perRun(read), await perRun(read)]);
  const loaded = await Promise.all(ids.map(read));
  const check: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now();
    for (let k = 0; k < 5; k++) for (const x of loaded) checkStoredRun(x.run, x.stored, x.version);
    check.push(((performance.now() - t) * 1000) / (5 * loaded.length));
  }
  const t = performance.now();
  for (const id of ids) await keel.approvals.approve('bench', id, 'bench');
  const approveUs = ((performance.now() - t) * 1000) / ids.length;
  const fork: number[] = [];
  for (let r = 0; r < 5; r++)
    fork.push(
      await perRun(async (id) => {
        const run = (await store.getRun('bench', id))!;
        if (!(await verifyRun(store, run)).ok) throw new Error(`run ${id} does not verify`);
      }),
    );
  await keel.close();
  return {
    'check before acting: µs per approve (6-entry run: chain, identity, status, spec)': median(check),
    'reads an approve makes anyway (run row, ledger, version), µs, for scale': readUs,
    'check before acting: µs per fork (whole source verified, 9 entries, reads included)': median(fork),
    'approve, µs wall (decision + walk to completion, fsync’d), for scale': approveUs,
  };
}
