/**
 * Blobs in `npm run bench`: 1,000 real runs on a fresh SQLite file, each carrying the same
 * 100 KiB model answer (in its event, its step's arguments and output), against 1,000 runs of the
 * same workflow with a 10-byte answer. Reported: the store file's size over the small runs', the
 * size the answers would take held in every entry (what v1 entries would store), and the blob rows.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createKeel } from '../src/app/index.ts';
import { deploy } from '../src/testing/index.ts';

const SPEC = `id: answer
version: 1
status: LIVE
triggers: [{event: answered}]
steps:
  - {name: keep, tool: core.identity, args: {answer: "{{event.payload.answer}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;

async function storeOf(
  path: string,
  runs: number,
  answer: string,
): Promise<{ bytes: number; blobs: number; ms: number }> {
  const keel = createKeel({ store: path });
  await deploy(keel, 'bench', SPEC);
  const t0 = performance.now();
  for (let i = 0; i < runs; i++)
    await keel.events.emit('bench', {
      id: `a-${i}`,
      type: 'answered',
      time: '2026-12-01T00:00:00Z',
      payload: { answer, i },
    });
  const ms = performance.now() - t0;
  await keel.close();
  const raw = new Database(path);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.exec('VACUUM');
  const blobs = raw.prepare('SELECT count(*) FROM blobs').pluck().get() as number;
  raw.close();
  return { bytes: statSync(path).size, blobs, ms };
}

export async function blobFigures(dir: string, o: { runs?: number } = {}): Promise<Record<string, number>> {
  const runs = o.runs ?? 1_000;
  const answer = `The model says: ${'a refund of 42.50 USD is due for order 1042; '.repeat(2400)}`.slice(
    0,
    100 * 1024,
  );
  const big = await storeOf(join(dir, 'blobs-big.db'), runs, answer);
  const small = await storeOf(join(dir, 'blobs-small.db'), runs, 'ten bytes!');
  // Held inline, each run would store the answer three times (event, arguments, output).
  const inline = small.bytes + runs * 3 * answer.length;
  return {
    [`blobs: ${runs.toLocaleString('en-US')} runs with one 100 KiB answer, store MB`]: big.bytes / 1e6,
    'blobs: the same runs with a 10-byte answer, store MB': small.bytes / 1e6,
    'blobs: the answers held in every entry instead, MB (estimate)': inline / 1e6,
    'blobs: blob rows for the 100 KiB answer': big.blobs,
    'blobs: runs/s with the 100 KiB answer': runs / (big.ms / 1000),
    'blobs: runs/s with the 10-byte answer': runs / (small.ms / 1000),
  };
}
