/**
 * The PostgreSQL schema, as numbered migrations recorded in `keel_migrations`. A migration is
 * applied once, in order, inside the migrating transaction; published migrations are never edited
 * (add a new one instead), so every database at version N has the same layout.
 *
 * Text columns that are sorted or compared by range use `COLLATE "C"` (byte order), so run
 * listings and cursors order exactly as they do in SQLite, whatever the database's locale.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger, runs, versions, promotions, approvals',
    sql: `
    CREATE TABLE workflow_versions (
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      version INTEGER NOT NULL,
      spec_hash TEXT NOT NULL,
      spec TEXT NOT NULL,
      status TEXT NOT NULL,
      published_at TEXT NOT NULL,
      published_by TEXT NOT NULL,
      PRIMARY KEY (tenant, workflow_id, version)
    );

    CREATE TABLE promotions (
      id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      version INTEGER NOT NULL,
      from_status TEXT NOT NULL,
      to_status TEXT NOT NULL,
      promoted_by TEXT NOT NULL,
      at TEXT NOT NULL
    );
    CREATE INDEX promotions_workflow ON promotions (tenant, workflow_id, id);

    -- run_key is a compact, increasing key: entries of new runs land at the right edge of the
    -- entries B-tree, so a commit touches few pages however random the run ids are.
    CREATE TABLE runs (
      run_key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      run_id TEXT COLLATE "C" NOT NULL UNIQUE,
      tenant TEXT COLLATE "C" NOT NULL,
      workflow_id TEXT COLLATE "C" NOT NULL,
      version INTEGER NOT NULL,
      spec_hash TEXT NOT NULL,
      status TEXT NOT NULL,
      head_seq INTEGER NOT NULL,
      head_hash TEXT NOT NULL,
      event_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX runs_by_tenant ON runs (tenant, created_at DESC, run_id DESC);

    CREATE TABLE entries (
      run_key BIGINT NOT NULL REFERENCES runs (run_key),
      seq INTEGER NOT NULL CHECK (seq >= 0),
      v INTEGER NOT NULL,
      kind TEXT NOT NULL,
      prev_hash TEXT,
      payload_hash TEXT NOT NULL,
      hash TEXT NOT NULL,
      at TEXT NOT NULL,
      payload BYTEA NOT NULL,
      PRIMARY KEY (run_key, seq)
    );

    CREATE TABLE approvals (
      run_id TEXT COLLATE "C" NOT NULL,
      proposal_id TEXT COLLATE "C" NOT NULL,
      tenant TEXT COLLATE "C" NOT NULL,
      step TEXT NOT NULL,
      tool TEXT NOT NULL,
      args TEXT NOT NULL,
      reason TEXT NOT NULL,
      channel TEXT NOT NULL,
      requested_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (run_id, proposal_id)
    );
    CREATE INDEX approvals_by_tenant ON approvals (tenant, requested_at, run_id);
    `,
  },
  {
    version: 2,
    name: 'run leases and worker heartbeats',
    // A run's lease says which worker walks it until when (ms since the epoch); a running run with
    // no lease, or an expired one, is claimable. The partial indexes hold only unfinished runs, so
    // claiming and `keel status` stay cheap however many finished runs the table keeps.
    sql: `
    ALTER TABLE runs ADD COLUMN lease_owner TEXT COLLATE "C";
    ALTER TABLE runs ADD COLUMN lease_until BIGINT;
    CREATE INDEX runs_running ON runs (created_at, run_key) WHERE status = 'running';
    CREATE INDEX runs_suspended ON runs (created_at) WHERE status = 'outcome_unknown';

    CREATE TABLE workers (
      id TEXT COLLATE "C" PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      started_at BIGINT NOT NULL,
      seen_at BIGINT NOT NULL,
      lease_ms INTEGER NOT NULL
    );
    `,
  },
  {
    version: 3,
    name: 'api keys and idempotency records',
    // For `keel serve`. API keys are kept as the SHA-256 of the full key only. Idempotency records
    // (one per tenant, operation and key) hold a request digest, an in-flight lease (ms) or the
    // finished response; created_at (ms) bounds their life to IDEMPOTENCY_TTL_MS.
    sql: `
    CREATE TABLE api_keys (
      key_id TEXT COLLATE "C" PRIMARY KEY,
      tenant TEXT COLLATE "C" NOT NULL,
      subject TEXT NOT NULL,
      hash TEXT COLLATE "C" NOT NULL UNIQUE,
      created_at TEXT COLLATE "C" NOT NULL,
      revoked_at TEXT
    );
    CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at, key_id);

    CREATE TABLE idempotency (
      tenant TEXT COLLATE "C" NOT NULL,
      operation TEXT COLLATE "C" NOT NULL,
      key TEXT COLLATE "C" NOT NULL,
      digest TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
      created_at BIGINT NOT NULL,
      lease_until BIGINT,
      status INTEGER,
      body TEXT,
      headers TEXT,
      PRIMARY KEY (tenant, operation, key)
    );
    CREATE INDEX idempotency_by_age ON idempotency (created_at);
    `,
  },
  {
    version: 4,
    name: 'trusted writ keys and writ revocations',
    // A tenant's trusted writ keys (public keys as SPKI PEM; a key is retired, never deleted) and
    // its revoked writ hashes (a revocation stands; never deleted).
    sql: `
    CREATE TABLE writ_keys (
      tenant TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C" NOT NULL,
      public_key_pem TEXT NOT NULL,
      added_by TEXT NOT NULL,
      added_at TEXT COLLATE "C" NOT NULL,
      retired_at TEXT,
      PRIMARY KEY (tenant, key_id)
    );

    CREATE TABLE writ_revocations (
      tenant TEXT COLLATE "C" NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      by TEXT NOT NULL,
      at TEXT COLLATE "C" NOT NULL,
      reason TEXT,
      PRIMARY KEY (tenant, hash)
    );
    `,
  },
  {
    version: 5,
    name: 'writ chains by content',
    // A run's root names its writ by hash; the chain (root first, as canonical JSON) is stored
    // once per tenant and writ, never changed or deleted.
    sql: `
    CREATE TABLE writ_chains (
      tenant TEXT COLLATE "C" NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      chain TEXT NOT NULL,
      PRIMARY KEY (tenant, hash)
    );
    `,
  },
  {
    version: 6,
    name: 'cheaper appends and claims',
    // The entries' foreign key to runs checked, per entry, a row the same append statement had
    // just updated or inserted (entries are only ever appended for run keys that statement's head
    // check returned, and runs are never deleted), at the cost of a locking query per entry. A
    // lower fillfactor leaves room on each runs page, so the updates that only move a lease or a
    // head (claims, renewals, appends that keep the status) stay on the page (HOT) and add no
    // index entries; it applies to pages written from now on.
    sql: `
    ALTER TABLE entries DROP CONSTRAINT IF EXISTS entries_run_key_fkey;
    ALTER TABLE runs SET (fillfactor = 70);
    `,
  },
  {
    version: 7,
    name: 'tenant secret keys',
    // Each tenant's key for hashing secret values (HMAC-SHA-256), made on first use and never
    // changed: a run records a secret as its keyed hash, so a reader of the ledger alone cannot
    // confirm a guessed value. The key is never written to a ledger.
    sql: `
    CREATE TABLE tenant_secret_keys (
      tenant TEXT COLLATE "C" PRIMARY KEY,
      key BYTEA NOT NULL CHECK (length(key) = 32)
    );
    `,
  },
  {
    version: 8,
    name: 'writ budgets shared across runs',
    // One row per tenant and writ (its hash): the writ's limits, copied from its body, and what
    // runs under it (or under a writ derived from it) reserved; changed only by the append whose
    // entries record the reservation, in its statement. The CHECK is the last word: a statement
    // that would leave a writ overspent fails whole, and the store then tries each append alone.
    sql: `
    CREATE TABLE writ_budgets (
      tenant TEXT COLLATE "C" NOT NULL,
      hash TEXT COLLATE "C" NOT NULL,
      steps_limit BIGINT NOT NULL,
      calls_limit BIGINT NOT NULL,
      cents_limit BIGINT NOT NULL,
      steps_used BIGINT NOT NULL DEFAULT 0,
      calls_used BIGINT NOT NULL DEFAULT 0,
      cents_used BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant, hash),
      CONSTRAINT writ_budgets_within_limits
        CHECK (steps_used <= steps_limit AND calls_used <= calls_limit AND cents_used <= cents_limit)
    );
    `,
  },
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

/** The schema version this Keel writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;
