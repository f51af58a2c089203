/**
 * The PostgreSQL schema's migrations from 16 on, as published: never edited (schema.ts lists them all).
 */
import type { Migration } from './migration.ts';

export const MIGRATIONS_V16: readonly Migration[] = [
  {
    version: 16,
    name: 'durable timers: waiting runs and their wake time',
    // A run waiting on a timer has status `waiting` and its wake time in `wake_at` (ms since the
    // epoch), set by the append that starts the wait. Claims take waiting runs whose wake time has
    // passed (FOR UPDATE SKIP LOCKED, as every claim), and a worker sleeps until the next one: both
    // read this index of waiting rows only.
    sql: `
    ALTER TABLE runs ADD COLUMN wake_at BIGINT;
    CREATE INDEX runs_waking ON runs (wake_at, created_at, run_key) WHERE status = 'waiting';
    `,
  },
];
