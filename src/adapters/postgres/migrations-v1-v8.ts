/**
 * The PostgreSQL schema's migrations 1 to 8, as published: never edited (schema.ts lists them all).
 */
import type { Migration } from './migration.ts';

export const MIGRATIONS_V1_V8: readonly Migration[] = [
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
];
