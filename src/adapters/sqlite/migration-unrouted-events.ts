/**
 * The SQLite migration that makes the inbox of unrouted events (ports/unrouted-inbox.ts): per
 * tenant, events no workflow took and hook deliveries whose mapping failed, with the reason, the
 * content redelivery needs, how often each came, and once redelivered, when and the runs it
 * started. Indexed by age per tenant: limits drop the oldest first. Published: never edited.
 */
export const MIGRATION_UNROUTED_EVENTS = `
  CREATE TABLE unrouted_events (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    source TEXT NOT NULL,
    event_id TEXT,
    event_type TEXT,
    subject TEXT,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    content TEXT NOT NULL,
    received_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    deliveries INTEGER NOT NULL,
    redelivered_at TEXT,
    runs TEXT,
    PRIMARY KEY (tenant, id)
  ) WITHOUT ROWID;
  CREATE INDEX unrouted_by_age ON unrouted_events (tenant, received_at, id);
`;
