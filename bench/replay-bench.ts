/**
 * Replay, fork and verify figures (`npm run bench` prints them after the run figures):
 * - replay entries/s: a long run re-executed against its own ledger, every value served from it;
 * - fork cost against fromSeq: creating a fork (inheriting its prefix, not walking on) at 1/8, 1/2
 *   and all of a long run, which should grow with fromSeq, not with the history;
 * - verifying a long ledger from the store, in a child process, with its peak memory (maxRSS).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SqliteStore } from '../src/adapters/sqlite/index.ts';
import { createKeel } from '../src/app/index.ts';
import type { Head, StoredEntry } from '../src/core/ledger/index.ts';
import { SPEC_LIMITS } from '../src/core/spec/index.ts';
import { deploy } from '../src/testing/index.ts';
import { benchChain, benchRunId } from './bench-chain.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function longSpec(steps: number): string {
  const lines = ['id: long', 'version: 1', 'status: AUTONOMOUS', 'triggers: [{event: go}]', 'steps:'];
  for (let i = 0; i < steps; i++) lines.push(`  - {name: s${i}, tool: core.identity, args: {i: ${i}}}`);
  lines.push(`limits: {maxSteps: ${steps}, maxCostUsd: 0}`);
  return lines.join('\n');
}

export async function replayFigures(dir: string, quick: boolean): Promise<Record<string, number>> {
  // The longest spec the input limits take: 5 keys and items a step, under SPEC_LIMITS.maxKeys.
  const steps = quick ? 500 : Math.floor(SPEC_LIMITS.maxKeys / 5) - 20;
  const keel = createKeel({ store: join(dir, 'long.db') });
  await deploy(keel, 't', longSpec(steps));
  const [run] = (
    await keel.events.emit('t', { id: 'long', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
  ).runs;
  const runId = run!.runId;
  const entries = (await keel.runs.get('t', runId)).head.seq + 1;

  const replay: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await keel.runs.replay('t', runId);
    if (!r.identical) throw new Error('bench replay diverged');
    replay.push(entries / ((performance.now() - t0) / 1000));
  }

  const forkMs = async (fromSeq: number) => {
    const ms: number[] = [];
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      await keel.engine.fork('t', runId, { fromSeq: fromSeq - k, mode: 'branch', walk: false });
      ms.push(performance.now() - t0);
    }
    return median(ms);
  };
  const eighth = await forkMs(Math.floor(entries / 8));
  const half = await forkMs(Math.floor(entries / 2));
  const all = await forkMs(entries);
  await keel.close();
  return {
    [`replay entries/s (a ${entries}-entry run)`]: median(replay),
    'fork at 1/8 of the run, ms': eighth,
    'fork at 1/2 of the run, ms': half,
    'fork at the end of the run, ms': all,
    'fork cost ratio end / (1/8) (8 if proportional)': all / eighth,
  };
}

/** Builds a ledger of `n` entries straight into a store, then verifies it in a child process. */
export async function verifyFigures(dir: string, n: number): Promise<Record<string, number>> {
  const path = join(dir, 'verify.db');
  // The version the run pins, stored: verify checks the root against it.
  const keel = createKeel({ store: path });
  const { specHash } = await deploy(
    keel,
    'bench',
    'id: bench\nversion: 1\nstatus: LIVE\ntriggers: [{event: t}]\nsteps: [{name: s, tool: core.noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  );
  await keel.close();
  const store = new SqliteStore(path, { synchronous: 'NORMAL' });
  const runId = benchRunId(specHash);
  let head: Head | null = null;
  let batch: StoredEntry[] = [];
  let expected: Head | null = null;
  const flush = async () => {
    await store.ledger.append({
      tenant: 'bench',
      runId,
      expectedHead: expected,
      entries: batch,
      status: 'running',
      ...(expected === null
        ? {
            create: {
              workflowId: 'bench',
              version: 1,
              specHash,
              eventId: 'e',
              eventType: 't',
            },
          }
        : {}),
    });
    expected = head;
    batch = [];
  };
  for (const e of benchChain(runId, n, specHash)) {
    batch.push(e);
    head = { seq: e.seq, hash: e.hash };
    if (batch.length === 5000) await flush();
  }
  if (batch.length > 0) await flush();
  await store.close();
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'verify-child.ts'), path, 'bench', runId],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (child.status !== 0) throw new Error(`verify child failed: ${child.stderr}`);
  const r = JSON.parse(child.stdout) as { ok: boolean; entries: number; ms: number; maxRssMb: number };
  if (!r.ok || r.entries !== n) throw new Error(`verify child: ${child.stdout}`);
  return {
    [`verify ${n.toLocaleString('en-US')} entries from SQLite, entries/s`]: n / (r.ms / 1000),
    [`verify ${n.toLocaleString('en-US')} entries, peak memory MB (process maxRSS)`]: r.maxRssMb,
  };
}
