/**
 * The PostgreSQL schema's migrations 9 to 15, as published: never edited (schema.ts lists them all).
 */
import type { Migration } from './migration.ts';

export const MIGRATIONS_V9_V15: readonly Migration[] = [
  {
    version: 9,
    name: 'the lifecycle: simulated runs, shadow comparisons, chained promotions, rollouts',
    // A run row names a simulated run's mode (test, shadow) and a shadow's live run, as its root
    // does (verify checks them). Shadow comparisons are kept once per shadow run; skipped shadow
    // runs are counted. A lifecycle record carries its kind, evidence, override and the hashes
    // chaining it to the record before it in its workflow (a unique previous hash: two records can
    // never both follow the same one). An API key is a person's (human) or an automation's
    // (service); keys made before were made by people. A workflow's rollout is one row, changed
    // only with the lifecycle record that changes it.
    sql: `
    ALTER TABLE runs ADD COLUMN mode TEXT CHECK (mode IS NULL OR mode IN ('test', 'shadow'));
    ALTER TABLE runs ADD COLUMN shadow_of TEXT;
    CREATE INDEX runs_by_version ON runs (tenant, workflow_id, version, created_at);
    CREATE INDEX runs_simulated_running ON runs (tenant, mode) WHERE mode IS NOT NULL AND status = 'running';

    CREATE TABLE shadow_comparisons (
      tenant TEXT COLLATE "C" NOT NULL,
      shadow_run_id TEXT COLLATE "C" NOT NULL,
      live_run_id TEXT NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      shadow_version INTEGER NOT NULL,
      live_version INTEGER NOT NULL,
      agree INTEGER NOT NULL CHECK (agree IN (0, 1)),
      comparison TEXT NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (tenant, shadow_run_id)
    );
    CREATE INDEX shadow_comparisons_by_version ON shadow_comparisons (tenant, workflow_id, shadow_version, created_at);

    CREATE TABLE shadow_skips (
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      version INTEGER NOT NULL,
      live_run_id TEXT COLLATE "C" NOT NULL,
      reason TEXT NOT NULL,
      at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (tenant, workflow_id, version, live_run_id)
    );

    ALTER TABLE promotions ADD COLUMN kind TEXT;
    ALTER TABLE promotions ADD COLUMN evidence TEXT;
    ALTER TABLE promotions ADD COLUMN override_reason TEXT;
    ALTER TABLE promotions ADD COLUMN prev_hash TEXT;
    ALTER TABLE promotions ADD COLUMN hash TEXT;
    CREATE UNIQUE INDEX promotions_chain ON promotions (tenant, workflow_id, prev_hash);

    ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'service'));

    CREATE TABLE rollouts (
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      state TEXT NOT NULL,
      rev INTEGER NOT NULL,
      PRIMARY KEY (tenant, workflow_id)
    );
    `,
  },
  {
    version: 10,
    name: 'signed checkpoints: the chain and the run heads each recorded',
    sql: `
    CREATE TABLE checkpoints (
      tenant TEXT COLLATE "C" NOT NULL,
      seq INTEGER NOT NULL CHECK (seq >= 1),
      at TEXT NOT NULL,
      runs INTEGER NOT NULL,
      root TEXT NOT NULL,
      prev_hash TEXT,
      key_id TEXT NOT NULL,
      public_key TEXT NOT NULL,
      signature TEXT NOT NULL,
      hash TEXT NOT NULL,
      PRIMARY KEY (tenant, seq)
    );

    CREATE TABLE checkpoint_heads (
      tenant TEXT COLLATE "C" NOT NULL,
      run_id TEXT COLLATE "C" NOT NULL,
      checkpoint_seq INTEGER NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      head_seq INTEGER NOT NULL,
      head_hash TEXT NOT NULL,
      PRIMARY KEY (tenant, run_id, checkpoint_seq)
    );
    CREATE INDEX checkpoint_heads_in_order ON checkpoint_heads (tenant, created_at, run_id, checkpoint_seq);

    -- Each run's head as the tenant's last checkpoint covers it: what the next checkpoint compares with.
    CREATE TABLE checkpoint_latest (
      tenant TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      run_id TEXT COLLATE "C" NOT NULL,
      checkpoint_seq INTEGER NOT NULL,
      head_seq INTEGER NOT NULL,
      head_hash TEXT NOT NULL,
      PRIMARY KEY (tenant, created_at, run_id)
    );
    `,
  },
  {
    version: 11,
    name: 'blobs: large payload strings stored once per tenant by hash, and the runs referencing each; checkpoints signed over the root alone too; runs retained after export',
    sql: `
    CREATE TABLE blobs (
      tenant TEXT COLLATE "C" NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      bytes BYTEA NOT NULL,
      PRIMARY KEY (tenant, hash)
    );
    CREATE TABLE run_blobs (
      run_key BIGINT NOT NULL REFERENCES runs (run_key),
      hash TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (run_key, hash)
    );
    CREATE INDEX run_blobs_by_hash ON run_blobs (hash);

    -- A checkpoint's second signature, over the root's 32 bytes (OpenWOP's audit surface shows it).
    ALTER TABLE checkpoints ADD COLUMN root_signature TEXT;

    -- Runs removed by retention after export: what the checkpoint chain still proves of each.
    CREATE TABLE retained_runs (
      run_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
      tenant TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      status TEXT NOT NULL,
      head_seq INTEGER NOT NULL,
      head_hash TEXT NOT NULL,
      manifest_digest TEXT NOT NULL,
      retained_at TEXT NOT NULL
    );
    CREATE INDEX retained_in_order ON retained_runs (tenant, created_at, run_id);
    `,
  },
  {
    version: 12,
    name: 'the shadow queue: comparisons still to make, queued with the live run, leased, deleted when done',
    // One row per SHADOW version on an event, beside the live run it started (live_run_id) or
    // where the live version did not start (NULL); leased like runs (ms), deleted once done. seq
    // keeps each version's items in the order they were queued. shadow_skips stay, as history.
    sql: `
    CREATE TABLE shadow_queue (
      seq BIGSERIAL PRIMARY KEY,
      tenant TEXT COLLATE "C" NOT NULL,
      id TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      version INTEGER NOT NULL,
      live_version INTEGER NOT NULL,
      live_run_id TEXT COLLATE "C",
      judged_as TEXT NOT NULL CHECK (judged_as IN ('LIVE', 'AUTONOMOUS')),
      event TEXT NOT NULL,
      enqueued_ms BIGINT NOT NULL,
      lease_owner TEXT,
      lease_until BIGINT
    );
    CREATE UNIQUE INDEX shadow_queue_item ON shadow_queue (tenant, id);
    CREATE INDEX shadow_queue_turns ON shadow_queue (tenant, workflow_id, version, seq);
    `,
  },
  {
    version: 13,
    name: 'the head log: checkpoints sign its size and hash, and keep its right edge; read in checkpoint order',
    sql: `
    ALTER TABLE checkpoints ADD COLUMN tree_size INTEGER;
    ALTER TABLE checkpoints ADD COLUMN log_root TEXT;
    ALTER TABLE checkpoints ADD COLUMN log_frontier TEXT;
    CREATE INDEX checkpoint_heads_in_log ON checkpoint_heads (tenant, checkpoint_seq, created_at, run_id);
    `,
  },
  {
    version: 14,
    name: 'the event index: (source, id) names an event per tenant, its first content and runs; conflicting redeliveries; trigger disagreements during a rollout',
    sql: `
    CREATE TABLE delivered_events (
      tenant TEXT COLLATE "C" NOT NULL,
      source TEXT COLLATE "C" NOT NULL,
      event_id TEXT COLLATE "C" NOT NULL,
      event_hash TEXT NOT NULL,
      event_type TEXT NOT NULL,
      subject TEXT NOT NULL,
      event_time TEXT NOT NULL,
      payload_hash TEXT NOT NULL,
      runs TEXT NOT NULL,
      delivered_at TEXT NOT NULL,
      PRIMARY KEY (tenant, source, event_id)
    );

    CREATE TABLE event_conflicts (
      tenant TEXT COLLATE "C" NOT NULL,
      source TEXT COLLATE "C" NOT NULL,
      event_id TEXT COLLATE "C" NOT NULL,
      event_hash TEXT COLLATE "C" NOT NULL,
      first_hash TEXT NOT NULL,
      fields TEXT NOT NULL,
      first_at TEXT NOT NULL,
      last_at TEXT COLLATE "C" NOT NULL,
      deliveries INTEGER NOT NULL CHECK (deliveries >= 1),
      PRIMARY KEY (tenant, source, event_id, event_hash)
    );
    CREATE INDEX event_conflicts_recent ON event_conflicts (tenant, last_at);

    CREATE TABLE trigger_disagreements (
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      source TEXT COLLATE "C" NOT NULL,
      event_id TEXT COLLATE "C" NOT NULL,
      rollout_from INTEGER NOT NULL,
      rollout_to INTEGER NOT NULL,
      rollout_started_at TEXT COLLATE "C" NOT NULL,
      chosen INTEGER NOT NULL,
      taken INTEGER,
      at TEXT NOT NULL,
      PRIMARY KEY (tenant, workflow_id, source, event_id)
    );
    CREATE INDEX trigger_disagreements_by_rollout ON trigger_disagreements (tenant, workflow_id, rollout_to, rollout_started_at);
    `,
  },
  {
    version: 15,
    name: 'shadow work retried a bounded number of times, kept as failed after; woken when its live run ends',
    // attempts counts the attempts that failed, error keeps the last one's; an item given up on
    // keeps failed_ms (when) and is never claimed again, only reported, until a person asks for it
    // again. An item beside a live run that has not ended waits, and is woken by its live run id.
    sql: `
    ALTER TABLE shadow_queue ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE shadow_queue ADD COLUMN error TEXT;
    ALTER TABLE shadow_queue ADD COLUMN failed_ms BIGINT;
    CREATE INDEX shadow_queue_beside ON shadow_queue (tenant, live_run_id);
    `,
  },
];
