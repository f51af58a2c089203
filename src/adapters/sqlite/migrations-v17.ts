/**
 * The SQLite schema's migrations from v17 on, as published: never edited (schema.ts lists them all).
 */
export const MIGRATIONS_V17: readonly string[] = [
  // v17: durable timers (docs/flow.md). A run waiting on a timer has status `waiting` and its wake
  // time in `wake_at` (ms since the epoch), set by the append that starts the wait. Claims take
  // waiting runs whose wake time has passed, and a worker sleeps until the next one: both read
  // this index of waiting rows only, so a table of finished runs costs them nothing.
  `
  ALTER TABLE runs ADD COLUMN wake_at INTEGER;
  CREATE INDEX runs_waking ON runs (wake_at, created_at, run_key) WHERE status = 'waiting';
  `,
];
