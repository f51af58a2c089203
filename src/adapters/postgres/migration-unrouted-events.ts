/**
 * The PostgreSQL migration that makes the inbox of unrouted events (ports/unrouted-inbox.ts): per
 * tenant, events no workflow took and hook deliveries whose mapping failed, with the reason, the
 * content redelivery needs, how often each came, and once redelivered, when and the runs it
 * started. Indexed by age per tenant (byte order): limits drop the oldest first. Published: never edited.
 */
import type { Migration } from './migration.ts';

export const MIGRATION_UNROUTED_EVENTS: Migration = {
  version: 20,
  name: 'the inbox of unrouted events',
  sql: `
    CREATE TABLE unrouted_events (
      tenant TEXT COLLATE "C" NOT NULL,
      id TEXT COLLATE "C" NOT NULL,
      source TEXT COLLATE "C" NOT NULL,
      event_id TEXT COLLATE "C",
      event_type TEXT,
      subject TEXT,
      reason TEXT NOT NULL,
      detail TEXT NOT NULL,
      content TEXT NOT NULL,
      received_at TEXT COLLATE "C" NOT NULL,
      last_at TEXT COLLATE "C" NOT NULL,
      deliveries INTEGER NOT NULL,
      redelivered_at TEXT,
      runs TEXT,
      PRIMARY KEY (tenant, id)
    );
    CREATE INDEX unrouted_by_age ON unrouted_events (tenant, received_at, id);
    `,
};
