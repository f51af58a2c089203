/**
 * SQLite schema v19: waits for events (docs/flow.md, "Waiting for an event"). A run waiting for an
 * event names its type in `wait_event` (indexed among waiting rows by tenant and type, so an
 * arrival finds its waiters without reading other runs); `arrivals` keeps each delivered event of
 * a waited-for type in full, with when it arrived and the run step that took it (at most one).
 */
export const MIGRATION_EVENT_WAITS = `
  ALTER TABLE runs ADD COLUMN wait_event TEXT;
  CREATE INDEX runs_event_waits ON runs (tenant, wait_event) WHERE status = 'waiting' AND wait_event IS NOT NULL;
  CREATE TABLE arrivals (
    tenant TEXT NOT NULL,
    source TEXT NOT NULL,
    event_id TEXT NOT NULL,
    type TEXT NOT NULL,
    arrived_at INTEGER NOT NULL,
    event TEXT NOT NULL,
    taken_run TEXT,
    taken_step TEXT,
    PRIMARY KEY (tenant, source, event_id)
  );
  CREATE INDEX arrivals_by_type ON arrivals (tenant, type, arrived_at);
`;
