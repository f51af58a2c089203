/**
 * `npm run bench`: Keel's throughput figures, printed as a table of medians over several rounds.
 *
 * - durable 3-step runs/s on SQLite (synchronous=FULL), sequential and 8 concurrent, through the
 *   full path: event -> routing -> run -> 3 checked, recorded tool calls -> completed;
 * - the sequential figure under a policy (4 rules, allow) and a 2-link writ, against plain runs in
 *   alternating batches on two Keels open side by side (a paired comparison), with its overhead;
 * - commits (fsyncs) per run, counted by the store;
 * - ledger entries appended/s and verified/s;
 * - a baseline measured in the same run: raw fsync'd single-row SQLite commits/s on the same disk;
 * - over HTTP: a real `keel serve` process on loopback, OpenWOP create -> completed (bench/http-bench.ts);
 * - the HTTP path beside the engine path in the same run: POST /api/events, then polling or one long
 *   poll until completed, at 1 and 16 concurrent, and the ratio engine/HTTP (bench/http-events-bench.ts);
 * - the check before acting, µs per approve and per fork (bench/integrity-bench.ts);
 * - crash recovery: ms from the store open to the first resumed step after a SIGKILL
 *   (bench/recovery-bench.ts);
 * - what 500 open, quiet OpenWOP event streams cost a `keel serve` process, on SQLite and PostgreSQL
 *   (bench/stream-bench.ts);
 * - the lifecycle: a live run's cost with a SHADOW version present (paired batches; its comparisons
 *   wait in the shadow queue, whose lag is read too), and the replay gate's throughput
 *   (bench/lifecycle-bench.ts);
 * - the CPU a spec at the input limits costs to parse (bench/input-limits-bench.ts);
 * - evidence: export to a portable run directory and its offline verification, entries/s
 *   (bench/evidence-bench.ts);
 * - durable timers: idle CPU and memory per run with 2,000 runs waiting on timers, and lateness
 *   p50/p99 when 1,000 fire at one instant (bench/timers-bench.ts; `--runs 10000` run alone);
 * - signed checkpoints: the time to checkpoint 1,000,000 runs (bench/checkpoint-bench.ts);
 * - blobs: the store size of 1,000 runs carrying one 100 KiB answer (bench/blob-bench.ts);
 * - HTTP tools: µs per step of an HTTP tool over a loopback server against a plain TypeScript tool
 *   step, paired batches (bench/http-tools-bench.ts);
 * - OpenTelemetry: runs/s with trace export on (to a loopback OTLP receiver) vs off, in paired
 *   batches (bench/otel-bench.ts);
 * - hooks: verified webhook deliveries/s into runs beside plain POST /api/events, alternating
 *   batches on one loopback server (bench/hooks-bench.ts);
 * - the operator console: its first page of runs with 10,000 runs in the store, in real headless
 *   Chromium, and its size gzipped (bench/console-bench.ts).
 *
 * Figures are noisy on shared machines: read medians, compare ratios within one run.
 * Options: --rounds N (default 5), --runs N per round (default 1500), --quick.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/adapters/sqlite/index.ts';
import { hashOf } from '../src/core/canonical/index.ts';
import { type StoredEntry, verifyLedger } from '../src/core/ledger/index.ts';
import { benchChain } from './bench-chain.ts';
import { openBenchKeel } from './bench-keel.ts';
import { blobFigures } from './blob-bench.ts';
import { checkpointFigures } from './checkpoint-bench.ts';
import { consoleFigures } from './console-bench.ts';
import { evidenceFigures } from './evidence-bench.ts';
import { hookFigures } from './hooks-bench.ts';
import { httpFigures } from './http-bench.ts';
import { httpEventFigures } from './http-events-bench.ts';
import { httpToolFigures } from './http-tools-bench.ts';
import { inputLimitFigures } from './input-limits-bench.ts';
import { integrityFigures } from './integrity-bench.ts';
import { lifecycleFigures } from './lifecycle-bench.ts';
import { otelFigures } from './otel-bench.ts';
import { postgresFigures } from './postgres-bench.ts';
import { recoveryFigures } from './recovery-bench.ts';
import { replayFigures, verifyFigures } from './replay-bench.ts';
import { streamFigures } from './stream-bench.ts';
import { timerFigures } from './timers-bench.ts';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const quick = args.includes('--quick');
const ROUNDS = opt('rounds', quick ? 3 : 5);
const RUNS = opt('runs', quick ? 300 : 1500);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'keel-bench-'));
let fileNo = 0;
const freshDb = () => join(dir, `b${fileNo++}.db`);

async function benchRuns(concurrency: number): Promise<{ runsPerSec: number; commitsPerRun: number }> {
  const b = await openBenchKeel(freshDb());
  const commits0 = b.keel.store.stats().commits;
  const secs = await b.runs(RUNS, concurrency);
  const commits = b.keel.store.stats().commits - commits0;
  await b.close();
  return { runsPerSec: RUNS / secs, commitsPerRun: commits / RUNS };
}

/**
 * The governance overhead, measured as a paired comparison: a plain and a governed Keel open side
 * by side (each on its own fresh file), warmed up alike (500 runs each), then run in alternating
 * batches of GOV_BATCH runs (ABBA, so neither always goes first), RUNS runs each in all. A pair is
 * one batch of each, back to back, so both see the same machine state; the pair's overhead is
 * 1 - plain time / governed time. The caller takes medians over the pairs of every round: an fsync
 * that stalls for milliseconds lands in one batch and moves one pair, not the figure.
 *
 * With `withGovernance` false the second Keel is plain too: the same measurement of two identical Keels,
 * printed as the method's noise floor in the same run (whole-round totals spread ±8% that way).
 */
const GOV_BATCH = 50;

async function benchGovernance(
  withGovernance = true,
): Promise<{ plain: number[]; governed: number[]; overhead: number[] }> {
  const plain = await openBenchKeel(freshDb());
  const governed = await openBenchKeel(freshDb(), withGovernance);
  // Both warmed alike, and enough for the governed path's own functions to be compiled too.
  await plain.runs(10 * GOV_BATCH);
  await governed.runs(10 * GOV_BATCH);
  const out = { plain: [] as number[], governed: [] as number[], overhead: [] as number[] };
  for (let k = 0, runs = 0; runs < RUNS; k++, runs += GOV_BATCH) {
    const first = k % 2 === 0 ? plain : governed;
    const second = first === plain ? governed : plain;
    const a = await first.runs(GOV_BATCH);
    const b = await second.runs(GOV_BATCH);
    const [p, g] = first === plain ? [a, b] : [b, a];
    out.plain.push(GOV_BATCH / p);
    out.governed.push(GOV_BATCH / g);
    out.overhead.push((1 - p / g) * 100);
  }
  await plain.close();
  await governed.close();
  return out;
}

function rawCommitsPerSec(): number {
  const db = new Database(freshDb());
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)');
  const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
  const tx = db.transaction(() => ins.run(Buffer.alloc(200)));
  const n = 2000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) tx();
  const secs = (performance.now() - t0) / 1000;
  db.close();
  return n / secs;
}

function buildChain(runId: string, n: number): StoredEntry[] {
  return [...benchChain(runId, n)];
}

async function benchLedger(): Promise<{
  chainPerSec: number;
  appendPerSec: number;
  verifyPerSec: number;
  readVerifyPerSec: number;
}> {
  const N = quick ? 20_000 : 100_000;
  const runId = hashOf({ bench: 'ledger', n: fileNo });
  let t0 = performance.now();
  const chain = buildChain(runId, N);
  const chainPerSec = N / ((performance.now() - t0) / 1000);

  const store = new SqliteStore(freshDb());
  const batch = 100;
  t0 = performance.now();
  await store.ledger.append({
    tenant: 'bench',
    runId,
    expectedHead: null,
    entries: chain.slice(0, batch),
    status: 'running',
    create: { workflowId: 'bench', version: 1, specHash: hashOf('bench'), eventId: 'e', eventType: 't' },
  });
  for (let i = batch; i < N; i += batch) {
    const prev = chain[i - 1]!;
    await store.ledger.append({
      tenant: 'bench',
      runId,
      expectedHead: { seq: prev.seq, hash: prev.hash },
      entries: chain.slice(i, i + batch),
      status: 'running',
    });
  }
  const appendPerSec = N / ((performance.now() - t0) / 1000);

  t0 = performance.now();
  const v = verifyLedger(runId, chain);
  const verifyPerSec = N / ((performance.now() - t0) / 1000);
  if (!v.ok) throw new Error('bench chain does not verify');

  t0 = performance.now();
  const stored = await store.ledger.readEntries('bench', runId);
  const rv = verifyLedger(runId, stored);
  const readVerifyPerSec = N / ((performance.now() - t0) / 1000);
  if (!rv.ok) throw new Error('stored bench chain does not verify');
  await store.close();
  return { chainPerSec, appendPerSec, verifyPerSec, readVerifyPerSec };
}

const fmt = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  console.log(
    `Keel bench: ${ROUNDS} rounds, ${RUNS} runs per round, Node ${process.version}, SQLite synchronous=FULL, WAL`,
  );
  const rows: Record<string, number[]> = {};
  const governancePairs: number[] = [];
  const nullPairs: number[] = [];
  const add = (k: string, v: number) => {
    rows[k] ??= [];
    rows[k].push(v);
  };
  for (let r = 0; r < ROUNDS; r++) {
    add('baseline: raw fsync’d 1-row commits/s', rawCommitsPerSec());
    const seq = await benchRuns(1);
    add('3-step runs/s, sequential', seq.runsPerSec);
    add('commits per run, sequential', seq.commitsPerRun);
    const g = await benchGovernance();
    add('3-step runs/s, sequential, paired with governed', median(g.plain));
    add('3-step runs/s, sequential, policy + writ', median(g.governed));
    add('governance overhead %, paired', median(g.overhead));
    governancePairs.push(...g.overhead);
    nullPairs.push(...(await benchGovernance(false)).overhead);
    const conc = await benchRuns(8);
    add('3-step runs/s, 8 concurrent', conc.runsPerSec);
    add('commits per run, 8 concurrent', conc.commitsPerRun);
    const l = await benchLedger();
    add('entries chained/s (hash + canonical form)', l.chainPerSec);
    add('entries appended/s (100 per commit)', l.appendPerSec);
    add('entries verified/s (in memory)', l.verifyPerSec);
    add('entries read + verified/s (from SQLite)', l.readVerifyPerSec);
    process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
  }
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  console.log(
    `${'figure'.padEnd(width)}  ${'median'.padStart(10)}  ${'min'.padStart(10)}  ${'max'.padStart(10)}`,
  );
  for (const [k, xs] of Object.entries(rows)) {
    const d = k.startsWith('commits') ? 2 : k.includes('%') ? 1 : 0;
    console.log(
      `${k.padEnd(width)}  ${fmt(median(xs), d).padStart(10)}  ${fmt(Math.min(...xs), d).padStart(10)}  ${fmt(Math.max(...xs), d).padStart(10)}`,
    );
  }
  const seqMed = median(rows['3-step runs/s, sequential']!);
  const base = median(rows['baseline: raw fsync’d 1-row commits/s']!);
  const cpr = median(rows['commits per run, sequential']!);
  const governed = median(rows['3-step runs/s, sequential, policy + writ']!);
  const pairedPlain = median(rows['3-step runs/s, sequential, paired with governed']!);
  const overhead = median(governancePairs);
  const replay = await replayFigures(dir, quick);
  const verify = await verifyFigures(dir, quick ? 100_000 : 1_000_000);
  const integrity = await integrityFigures(dir, { quick });
  const recovery = await recoveryFigures(dir, { quick });
  const limits = inputLimitFigures(ROUNDS);
  const lifecycle = await lifecycleFigures(dir, { quick });
  const evidence = await evidenceFigures(dir, quick ? { runs: 1_000 } : {});
  const checkpoints = await checkpointFigures(dir, quick ? { runs: 100_000 } : {});
  const blobs = await blobFigures(dir, quick ? { runs: 200 } : {});
  const httpTools = await httpToolFigures(dir, quick ? { rounds: 3, runs: 100 } : { rounds: ROUNDS });
  const otel = await otelFigures(dir, quick ? { rounds: 4, batch: 100 } : {});
  const timers = await timerFigures(dir, quick ? { runs: 500, firing: 300 } : {});
  const hookRates = await hookFigures(quick ? { rounds: 2, batch: 150 } : {});
  for (const [k, v] of Object.entries({
    ...replay,
    ...verify,
    ...integrity,
    ...recovery,
    ...lifecycle,
    ...evidence,
    ...checkpoints,
    ...blobs,
    ...httpTools,
    ...otel,
    ...timers,
    ...hookRates,
    ...limits,
  })) {
    console.log(
      `${k.padEnd(width)}  ${fmt(v, k.includes('ms') || k.includes('ratio') || k.includes('%') ? 1 : 0).padStart(10)}`,
    );
  }
  console.log(
    `ratio: sequential runs use ${fmt((seqMed * cpr * 100) / base, 0)}% of the raw commit rate (${fmt(cpr, 2)} commits per run); 8 concurrent / sequential = ${fmt(median(rows['3-step runs/s, 8 concurrent']!) / seqMed, 2)}x`,
  );
  console.log(
    `governance: sequential ${fmt(pairedPlain, 0)} runs/s plain, ${fmt(governed, 0)} runs/s with policy + writ, in alternating batches of ${GOV_BATCH} = ${fmt(overhead, 1)}% overhead (median of ${governancePairs.length} paired batches over ${ROUNDS} rounds; ${fmt((1 - governed / pairedPlain) * 100, 1)}% from the median rates; bar: < 10%). Noise floor: the same measurement of two plain Keels gives ${fmt(median(nullPairs), 1)}%`,
  );
  try {
    await httpFigures({ quick, inProcessSequential: seqMed });
  } catch (e) {
    console.log(`\nHTTP figures failed: ${(e as Error).message || e}`);
    process.exitCode = 1;
  }
  try {
    const events = await httpEventFigures(quick ? { rounds: 1, runs: 500 } : {});
    console.log('\nHTTP path beside the engine path (3-step runs, SQLite synchronous=FULL, medians):');
    const w = Math.max(...Object.keys(events).map((k) => k.length));
    for (const [k, v] of Object.entries(events))
      console.log(
        `${k.padEnd(w)}  ${fmt(v, k.includes('ratio') || k.includes(' ms ') ? 2 : 0).padStart(10)}`,
      );
  } catch (e) {
    console.log(`\nHTTP path figures failed: ${(e as Error).message || e}`);
    process.exitCode = 1;
  }
  await postgresFigures({ quick, sqliteSequential: seqMed });
  try {
    await streamFigures({ quick });
  } catch (e) {
    console.log(`\nEvent-stream figures failed: ${(e as Error).message || e}`);
    process.exitCode = 1;
  }
  try {
    const c = await consoleFigures(quick ? { runs: 2_000 } : {});
    console.log(
      '\nConsole (real headless Chromium against keel serve on loopback; bar: < 1,000 ms and < 100 kB)',
    );
    for (const [k, v] of Object.entries(c)) console.log(`${k.padEnd(width)}  ${fmt(v, 1).padStart(10)}`);
  } catch (e) {
    console.log(`\nConsole figures failed: ${(e as Error).message || e}`);
    process.exitCode = 1;
  }
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
