/**
 * Hooks for `npm run bench` (bench/run.ts): a PostgresStore in a throwaway schema, the raw
 * commit rate of the server as a baseline, and store-level append rates. Figures only — this
 * module asserts nothing, and it always drops the schemas it creates.
 */
import pg from 'pg';
import { hashOf } from '../../core/canonical/index.ts';
import { chainEntry, type Head, type StoredEntry } from '../../core/ledger/index.ts';
import type { PostgresStore, PostgresStoreOptions } from './postgres-store.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

export interface BenchStore {
  readonly store: PostgresStore;
  readonly schema: string;
  /** Closes the store (if still open) and drops its schema. */
  drop(): Promise<void>;
}

/** A migrated PostgresStore in a fresh schema of `url` (default: the test database). */
export async function openBenchStore(
  url = testDatabaseUrl(),
  options: Omit<PostgresStoreOptions, 'schema'> = {},
): Promise<BenchStore> {
  const schema = scratchSchemaName('keel_bench');
  const store = await openScratchStore(url, schema, options);
  return {
    store,
    schema,
    drop: async () => {
      await store.close();
      await dropSchema(url, schema);
    },
  };
}

/** Baseline: single-row autocommit INSERTs per second from one connection (one commit each). */
export async function postgresCommitBaseline(url = testDatabaseUrl(), n = 2000): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TEMP TABLE keel_bench_baseline (k BIGSERIAL PRIMARY KEY, v BYTEA)');
    const payload = Buffer.alloc(200);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await client.query({
        name: 'baseline',
        text: 'INSERT INTO keel_bench_baseline (v) VALUES ($1)',
        values: [payload],
      });
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    await client.end();
  }
}

export interface AppendFigures {
  /** One-entry appends per second, one after another (each its own commit). */
  readonly sequentialPerSec: number;
  /** One-entry appends per second, `concurrency` runs appending at once (group commit). */
  readonly concurrentPerSec: number;
  /** Commits per append under concurrency (below 1 when group commit batches). */
  readonly commitsPerAppend: number;
}

const AT = '2026-01-01T00:00:00.000Z';
const next = (runId: string, prev: Head | null, i: number): StoredEntry =>
  prev === null
    ? chainEntry(
        runId,
        null,
        'run.started',
        {
          tenant: 'bench',
          workflowId: 'bench',
          version: 1,
          specHash: hashOf('bench'),
          status: 'LIVE',
          event: {
            id: runId,
            type: 'bench.go',
            tenant: 'bench',
            source: '',
            subject: '',
            payload: {},
            time: AT,
          },
          engine: 'bench',
        },
        AT,
      ).stored
    : chainEntry(
        runId,
        prev,
        'step.completed',
        { step: `s${i}`, tool: 'bench', proposalId: hashOf(i), output: { i }, costCents: 0 },
        AT,
      ).stored;

async function appendChain(store: PostgresStore, runId: string, n: number): Promise<void> {
  let head: Head | null = null;
  for (let i = 0; i < n; i++) {
    const entry = next(runId, head, i);
    head = await store.ledger.append({
      tenant: 'bench',
      runId,
      expectedHead: head,
      entries: [entry],
      status: 'running',
      ...(head === null
        ? {
            create: {
              workflowId: 'bench',
              version: 1,
              specHash: hashOf('bench'),
              eventId: runId,
              eventType: 'bench.go',
            },
          }
        : {}),
    });
  }
}

/** Store-level append rates in a throwaway schema: `appends` in total per figure. */
export async function benchPostgresAppends(
  url = testDatabaseUrl(),
  o: { appends?: number; concurrency?: number } = {},
): Promise<AppendFigures> {
  const appends = o.appends ?? 2000;
  const concurrency = o.concurrency ?? 8;
  const { store, drop } = await openBenchStore(url);
  try {
    let t0 = performance.now();
    await appendChain(store, hashOf({ bench: 'sequential', t0 }), appends);
    const sequentialPerSec = appends / ((performance.now() - t0) / 1000);
    const perRun = Math.ceil(appends / concurrency);
    const commits0 = store.stats().commits;
    t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, (_, i) =>
        appendChain(store, hashOf({ bench: 'concurrent', i, t0 }), perRun),
      ),
    );
    const concurrentPerSec = (perRun * concurrency) / ((performance.now() - t0) / 1000);
    const commitsPerAppend = (store.stats().commits - commits0) / (perRun * concurrency);
    return { sequentialPerSec, concurrentPerSec, commitsPerAppend };
  } finally {
    await drop();
  }
}
