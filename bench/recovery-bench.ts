/**
 * Crash recovery, measured: a child process starts RUNS runs that each hang inside their first
 * (idempotent) step and is killed with SIGKILL; then this process opens the store and starts the
 * recovery worker `keel serve` runs (`keel.worker({ role: 'serve' })`). Reported, per kill: the
 * time from the store being open to the first resumed step (the interrupted call made again, from
 * the ledger head), and until every interrupted run completed. The dead process's leases are still
 * live (15 s) when recovery starts: they are taken over because their holder is gone, not waited out.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../src/adapters/postgres/index.ts';
import { createKeel, openStore } from '../src/app/index.ts';
import { recoveryTools } from './recovery-tools.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function killedMidStep(store: string, runs: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(HERE, 'recovery-child.ts'), store, String(runs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('walking')) resolve();
    });
    child.once('exit', () => reject(new Error('the child exited before its runs were walking')));
  });
  const gone = once(child, 'exit');
  child.kill('SIGKILL');
  await gone;
  clearTimeout(timer);
}

/** One kill and recovery: ms from the store open to the first resumed step, and to all completed. */
async function once1(store: string, runs: number): Promise<{ firstStepMs: number; allMs: number }> {
  await killedMidStep(store, runs);
  let first = 0;
  const keel = createKeel({
    store: /^postgres(ql)?:\/\//.test(store) ? await openStore(store) : store,
    tools: recoveryTools(() => {
      first ||= performance.now();
      return { ok: true };
    }),
  });
  // The store is open once createKeel returns (a PostgreSQL store was opened just above).
  const opened = performance.now();
  let walked = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const worker = keel.worker({
    role: 'serve',
    log: (e) => {
      if (e.kind === 'walked' && ++walked === runs) done();
    },
  });
  await worker.start();
  const deadline = setTimeout(done, 30_000);
  await all;
  clearTimeout(deadline);
  const allMs = performance.now() - opened;
  await worker.stop();
  await keel.close();
  if (walked < runs) throw new Error(`recovered ${walked} of ${runs} runs`);
  if (!first) throw new Error('no step was resumed');
  return { firstStepMs: first - opened, allMs };
}

export async function recoveryFigures(dir: string, o: { quick: boolean }): Promise<Record<string, number>> {
  const rounds = o.quick ? 2 : 5;
  const runs = 50;
  const figures: Record<string, number> = {};
  const measure = async (
    label: string,
    target: (r: number) => string,
    drop?: (r: number) => Promise<void>,
  ) => {
    const first: number[] = [];
    const all: number[] = [];
    for (let r = 0; r < rounds; r++) {
      try {
        const x = await once1(target(r), runs);
        first.push(x.firstStepMs);
        all.push(x.allMs);
      } finally {
        await drop?.(r);
      }
    }
    figures[
      `recovery, ${label}: ms from store open to first resumed step (${runs} runs killed mid-step, median of ${rounds})`
    ] = median(first);
    figures[`recovery, ${label}: ms from store open until all ${runs} completed`] = median(all);
  };
  await measure('SQLite', (r) => join(dir, `recovery-${r}.db`));
  // The same on PostgreSQL, each round in a scratch schema of its own; skipped without a server.
  const url = testDatabaseUrl();
  const schemas = Array.from({ length: rounds }, () => scratchSchemaName('keel_bench_recovery'));
  const withSchema = (r: number) => {
    const u = new URL(url);
    u.searchParams.set('schema', schemas[r]!);
    return u.toString();
  };
  try {
    await measure('PostgreSQL', withSchema, (r) => dropSchema(url, schemas[r]!));
  } catch (e) {
    console.log(`recovery on PostgreSQL skipped: ${(e as Error).message}`);
  }
  return figures;
}
