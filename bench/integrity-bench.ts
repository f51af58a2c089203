/**
 * What checking before acting costs (issue: never act on what does not verify). Every action reads
 * the run row, its ledger and its pinned version, then checks them (chain to the row's head, the
 * root's identity against the row, status, spec hash). Measured on a real SQLite file:
 *
 * - per approve: the check itself (`checkStoredRun`) on what `engine.load` read — runs waiting for
 *   an approval after 2 steps (6 entries) — and the reads it checks, for scale;
 * - per fork: the whole-source verification a fork now makes first (`verifyRun`: paged reads,
 *   chain, deltas, rows), on completed runs of 9 entries;
 * - per action (and per run a worker claims): the point reads beside the ledger every action now
 *   makes (pending-approval rows, the run's last checkpointed head; run-evidence.ts), on runs a
 *   checkpoint covers, without and with a checkpoint witness directory;
 * - an approve's wall time (fsync'd), for scale.
 */
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { DirectoryWitness } from '../src/adapters/witness/index.ts';
import { makeCheckpoint } from '../src/app/checkpoints/index.ts';
import { createKeel } from '../src/app/index.ts';
import { verifyRun } from '../src/engine/index.ts';
import { runEvidenceProblem } from '../src/engine/run-evidence.ts';
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
    const run = (await store.runs.getRun('bench', id))!;
    const stored = await store.ledger.readEntries('bench', id);
    return { run, stored, version: await store.registry.getVersion('bench', run.workflowId, run.version) };
  };
  const readUs = median([await perRun(read), await perRun(read), await perRun(read)]);
  const loaded = await Promise.all(ids.map(read));
  const check: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now();
    for (let k = 0; k < 5; k++) for (const x of loaded) checkStoredRun(x.run, x.stored, x.version);
    check.push(((performance.now() - t) * 1000) / (5 * loaded.length));
  }
  // The reads beside the ledger, on runs a checkpoint covers (the checkpointed head is found and compared).
  const key = generateKeyPairSync('ed25519');
  const witness = new DirectoryWitness(join(dir, 'integrity-witness'));
  await makeCheckpoint(store, 'bench', key, undefined, { witness });
  const beside = (w?: DirectoryWitness) => async (id: string) => {
    const x = loaded[ids.indexOf(id)]!;
    const problem = await runEvidenceProblem(
      store,
      x.run,
      x.run.head,
      undefined,
      (seq) => x.stored[seq]?.hash,
      w,
    );
    if (problem?.code === 'checkpoint_mismatch') throw new Error(problem.message);
  };
  const evidence = median([await perRun(beside()), await perRun(beside()), await perRun(beside())]);
  const witnessed = median([
    await perRun(beside(witness)),
    await perRun(beside(witness)),
    await perRun(beside(witness)),
  ]);
  const t = performance.now();
  for (const id of ids) await keel.approvals.approve('bench', id, 'bench');
  const approveUs = ((performance.now() - t) * 1000) / ids.length;
  const fork: number[] = [];
  for (let r = 0; r < 5; r++)
    fork.push(
      await perRun(async (id) => {
        const run = (await store.runs.getRun('bench', id))!;
        if (!(await verifyRun(store, run)).ok) throw new Error(`run ${id} does not verify`);
      }),
    );
  await keel.close();
  return {
    'check before acting: µs per approve (6-entry run: chain, identity, status, spec)': median(check),
    'reads an approve makes anyway (run row, ledger, version), µs, for scale': readUs,
    'check before acting: µs of the reads beside the ledger (approvals rows, checkpointed head)': evidence,
    '  the same with a checkpoint witness directory (its last checkpoint read, the chain asked)': witnessed,
    'check before acting: µs per fork (whole source verified, 9 entries, reads included)': median(fork),
    'approve, µs wall (decision + walk to completion, fsync’d), for scale': approveUs,
  };
}
