/**
 * The SQLite schema's migrations v10 to v16, as published: never edited (schema.ts lists them all).
 */
export const MIGRATIONS_V10_V16: readonly string[] = [
  // v10: the lifecycle (docs/lifecycle.md). A run row names a simulated run's mode (test, shadow)
  // and a shadow's live run, as its root does (verify checks them). Shadow comparisons are kept
  // once per shadow run; skipped shadow runs are counted. A lifecycle record carries its kind,
  // evidence, override and the hashes chaining it to the record before it in its workflow (a
  // unique previous hash: two records can never both follow the same one). An API key is a
  // person's (human) or an automation's (service); keys made before were made by people. A
  // workflow's rollout is one row, changed only with the lifecycle record that changes it.
  `
  ALTER TABLE runs ADD COLUMN mode TEXT CHECK (mode IS NULL OR mode IN ('test', 'shadow'));
  ALTER TABLE runs ADD COLUMN shadow_of TEXT;
  CREATE INDEX runs_by_version ON runs (tenant, workflow_id, version, created_at);
  CREATE INDEX runs_simulated_running ON runs (tenant, mode) WHERE mode IS NOT NULL AND status = 'running';

  CREATE TABLE shadow_comparisons (
    tenant TEXT NOT NULL,
    shadow_run_id TEXT NOT NULL,
    live_run_id TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    shadow_version INTEGER NOT NULL,
    live_version INTEGER NOT NULL,
    agree INTEGER NOT NULL CHECK (agree IN (0, 1)),
    comparison TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, shadow_run_id)
  ) WITHOUT ROWID;
  CREATE INDEX shadow_comparisons_by_version ON shadow_comparisons (tenant, workflow_id, shadow_version, created_at);

  CREATE TABLE shadow_skips (
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    live_run_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (tenant, workflow_id, version, live_run_id)
  ) WITHOUT ROWID;

  ALTER TABLE promotions ADD COLUMN kind TEXT;
  ALTER TABLE promotions ADD COLUMN evidence TEXT;
  ALTER TABLE promotions ADD COLUMN override_reason TEXT;
  ALTER TABLE promotions ADD COLUMN prev_hash TEXT;
  ALTER TABLE promotions ADD COLUMN hash TEXT;
  CREATE UNIQUE INDEX promotions_chain ON promotions (tenant, workflow_id, prev_hash);

  ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'service'));

  CREATE TABLE rollouts (
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    state TEXT NOT NULL,
    rev INTEGER NOT NULL,
    PRIMARY KEY (tenant, workflow_id)
  ) WITHOUT ROWID;
  `,
  // v11: signed checkpoints (docs/audit.md): each tenant's checkpoint chain, the run heads each
  // checkpoint recorded (those new or moved since the one before), and each run's head as the last
  // checkpoint covers it, all read in creation order.
  `
  CREATE TABLE checkpoints (
    tenant TEXT NOT NULL,
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
  ) WITHOUT ROWID;

  CREATE TABLE checkpoint_heads (
    tenant TEXT NOT NULL,
    run_id TEXT NOT NULL,
    checkpoint_seq INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    PRIMARY KEY (tenant, run_id, checkpoint_seq)
  ) WITHOUT ROWID;
  CREATE INDEX checkpoint_heads_in_order ON checkpoint_heads (tenant, created_at, run_id, checkpoint_seq);

  -- Each run's head as the tenant's last checkpoint covers it: what the next checkpoint compares with.
  CREATE TABLE checkpoint_latest (
    tenant TEXT NOT NULL,
    created_at TEXT NOT NULL,
    run_id TEXT NOT NULL,
    checkpoint_seq INTEGER NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    PRIMARY KEY (tenant, created_at, run_id)
  ) WITHOUT ROWID;
  `,
  // v12: blobs (docs/run-format.md, "Blobs"), checkpoints' signature over the root alone, and
  // runs retained (removed) after a verified export. A large string of a v2 entry's payload, stored once
  // per tenant by the SHA-256 of its canonical bytes; run_blobs says which runs reference which
  // blob, so removing a run (retention) removes the blobs no other run of the tenant references.
  // Existing entries are untouched: they stay v1 and verify byte for byte.
  `
  CREATE TABLE blobs (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (tenant, hash)
  ) WITHOUT ROWID;
  CREATE TABLE run_blobs (
    run_key INTEGER NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (run_key, hash)
  ) WITHOUT ROWID;
  CREATE INDEX run_blobs_by_hash ON run_blobs (hash);

  -- A checkpoint's second signature, over the root's 32 bytes (OpenWOP's audit surface shows it).
  ALTER TABLE checkpoints ADD COLUMN root_signature TEXT;

  -- Runs removed by retention after export (docs/audit.md, "Retention"): what the checkpoint chain
  -- still proves of each, and the manifest digest of the verified export that holds it.
  CREATE TABLE retained_runs (
    run_id TEXT NOT NULL PRIMARY KEY,
    tenant TEXT NOT NULL,
    created_at TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    retained_at TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX retained_in_order ON retained_runs (tenant, created_at, run_id);
  `,
  // v13: the shadow queue (docs/lifecycle.md, "The shadow queue"). One row per comparison still to
  // make — a SHADOW version on an event, beside the live run it started (live_run_id) or where the
  // live version did not start (NULL) — queued with the live run's root, leased to the drainer
  // working on it (lease times in ms, like runs'), deleted once done. seq keeps each version's
  // items in the order they were queued. Shadow skips stay, as history: nothing is skipped now.
  `
  CREATE TABLE shadow_queue (
    seq INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    live_version INTEGER NOT NULL,
    live_run_id TEXT,
    judged_as TEXT NOT NULL CHECK (judged_as IN ('LIVE', 'AUTONOMOUS')),
    event TEXT NOT NULL,
    enqueued_ms INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER
  );
  CREATE UNIQUE INDEX shadow_queue_item ON shadow_queue (tenant, id);
  CREATE INDEX shadow_queue_turns ON shadow_queue (tenant, workflow_id, version, seq);
  `,
  // v14: the head log (docs/audit.md): a keel-checkpoint/2 also signs the size and hash of the
  // log of every head recorded so far (checkpoint_heads, read in checkpoint order), and the store
  // keeps the log's right edge so the next checkpoint extends it without reading it. Existing
  // checkpoints stay /1 (NULL here) and verify as they did.
  `
  ALTER TABLE checkpoints ADD COLUMN tree_size INTEGER;
  ALTER TABLE checkpoints ADD COLUMN log_root TEXT;
  ALTER TABLE checkpoints ADD COLUMN log_frontier TEXT;
  CREATE INDEX checkpoint_heads_in_log ON checkpoint_heads (tenant, checkpoint_seq, created_at, run_id);
  `,
  // v15: the event index (docs/http.md, "Events"). Per tenant, (source, id) names one event: its
  // first delivery's content (hash, and the fields that say what a redelivery changed) and the
  // runs its routing chose, as JSON (an empty list: none). A redelivery with other content is kept
  // once per content and counted. During a rollout, an event the two versions' triggers disagree
  // on is kept once per workflow, with the rollout it fell in (its versions and start). Events
  // delivered before this version are not in the index.
  `
  CREATE TABLE delivered_events (
    tenant TEXT NOT NULL,
    source TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_hash TEXT NOT NULL,
    event_type TEXT NOT NULL,
    subject TEXT NOT NULL,
    event_time TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    runs TEXT NOT NULL,
    delivered_at TEXT NOT NULL,
    PRIMARY KEY (tenant, source, event_id)
  ) WITHOUT ROWID;

  CREATE TABLE event_conflicts (
    tenant TEXT NOT NULL,
    source TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_hash TEXT NOT NULL,
    first_hash TEXT NOT NULL,
    fields TEXT NOT NULL,
    first_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    deliveries INTEGER NOT NULL CHECK (deliveries >= 1),
    PRIMARY KEY (tenant, source, event_id, event_hash)
  ) WITHOUT ROWID;
  CREATE INDEX event_conflicts_recent ON event_conflicts (tenant, last_at);

  CREATE TABLE trigger_disagreements (
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    source TEXT NOT NULL,
    event_id TEXT NOT NULL,
    rollout_from INTEGER NOT NULL,
    rollout_to INTEGER NOT NULL,
    rollout_started_at TEXT NOT NULL,
    chosen INTEGER NOT NULL,
    taken INTEGER,
    at TEXT NOT NULL,
    PRIMARY KEY (tenant, workflow_id, source, event_id)
  ) WITHOUT ROWID;
  CREATE INDEX trigger_disagreements_by_rollout ON trigger_disagreements (tenant, workflow_id, rollout_to, rollout_started_at);
  `,
  // v16: shadow work is retried a bounded number of times. attempts counts the attempts that
  // failed, error keeps the last one's; an item given up on keeps failed_ms (when) and is never
  // claimed again, only reported, until a person asks for it again. An item beside a live run
  // that has not ended waits for it, and is woken by its live run id when it ends.
  `
  ALTER TABLE shadow_queue ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE shadow_queue ADD COLUMN error TEXT;
  ALTER TABLE shadow_queue ADD COLUMN failed_ms INTEGER;
  CREATE INDEX shadow_queue_beside ON shadow_queue (tenant, live_run_id);
  `,
];
