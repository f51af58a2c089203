/**
 * PostgreSQL schema v19: the migration for deadlines on approvals (docs/governance.md): a run waiting for a
 * person's decision whose step declares an approval deadline keeps its next wake time (a
 * reminder, an escalation or the expiry) in `wake_at`, like a timer. Claims take such runs once
 * due through this index of rows waiting for an approval only. Published: never edited.
 */
import type { Migration } from './migration.ts';

export const MIGRATION_APPROVAL_DEADLINES: Migration = {
  version: 19,
  name: 'approval deadlines: runs waiting for an approval, by wake time',
  sql: `
    CREATE INDEX runs_approval_due ON runs (wake_at, created_at, run_key) WHERE status = 'waiting_approval';
  `,
};
