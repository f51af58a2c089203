/**
 * The PostgreSQL schema, as numbered migrations recorded in `keel_migrations`. A migration is
 * applied once, in order, inside the migrating transaction; published migrations are never edited
 * (add a new one instead, at the end of migrations-v16.ts), so every database at version N has the same layout.
 *
 * Text columns that are sorted or compared by range use `COLLATE "C"` (byte order), so run
 * listings and cursors order exactly as they do in SQLite, whatever the database's locale.
 */
import type { Migration } from './migration.ts';
import { MIGRATION_APPROVAL_DEADLINES } from './migration-approval-deadlines.ts';
import { MIGRATION_EVENT_WAITS } from './migration-event-waits.ts';
import { MIGRATION_RUN_SUBJECT } from './migration-run-subject.ts';
import { MIGRATION_UNROUTED_EVENTS } from './migration-unrouted-events.ts';
import { MIGRATIONS_V1_V8 } from './migrations-v1-v8.ts';
import { MIGRATIONS_V9_V15 } from './migrations-v9-v15.ts';
import { MIGRATIONS_V16 } from './migrations-v16.ts';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = [
  ...MIGRATIONS_V1_V8,
  ...MIGRATIONS_V9_V15,
  ...MIGRATIONS_V16,
  MIGRATION_RUN_SUBJECT,
  MIGRATION_EVENT_WAITS,
  MIGRATION_APPROVAL_DEADLINES,
  MIGRATION_UNROUTED_EVENTS,
];

/** The schema version this Keel writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;
