/**
 * The SQLite schema, versioned through `PRAGMA user_version`. Migrations run in order inside one
 * transaction at open; a database from a newer Keel is refused rather than guessed at. Published
 * migrations are never edited: a change is a new entry at the end (of migrations-v17.ts, or a file of its own).
 */

import { MIGRATION_APPROVAL_DEADLINES } from './migration-approval-deadlines.ts';
import { MIGRATION_EVENT_WAITS } from './migration-event-waits.ts';
import { MIGRATION_RUN_SUBJECT } from './migration-run-subject.ts';
import { MIGRATION_UNROUTED_EVENTS } from './migration-unrouted-events.ts';
import { MIGRATIONS_V1_V9 } from './migrations-v1-v9.ts';
import { MIGRATIONS_V10_V16 } from './migrations-v10-v16.ts';
import { MIGRATIONS_V17 } from './migrations-v17.ts';

export const SCHEMA_VERSION = 21;

export const MIGRATIONS: readonly string[] = [
  ...MIGRATIONS_V1_V9,
  ...MIGRATIONS_V10_V16,
  ...MIGRATIONS_V17,
  // v18: a run row keeps its event subject, indexed for search (migration-run-subject.ts).
  MIGRATION_RUN_SUBJECT,
  // v19: waits for events: runs' wait_event, the arrivals kept for them (migration-event-waits.ts).
  MIGRATION_EVENT_WAITS,
  // v20: runs waiting for an approval, by wake time (migration-approval-deadlines.ts).
  MIGRATION_APPROVAL_DEADLINES,
  // v21: the inbox of unrouted events (migration-unrouted-events.ts).
  MIGRATION_UNROUTED_EVENTS,
];

/**
 * SQL reading a v7 digest column as `sha256:<hex>` (NULL stays NULL). With `digestBlob`, the one
 * place the store's statements (and tests that edit a file directly) convert digests.
 */
export function digestText(column: string): string {
  return `iif(${column} IS NULL, NULL, 'sha256:' || lower(hex(${column})))`;
}

/** SQL for the 32 bytes of a digest parameter or column already known to be `sha256:<hex>` (NULL stays NULL). */
export function digestBlob(value: string): string {
  return `unhex(substr(${value}, 8))`;
}
