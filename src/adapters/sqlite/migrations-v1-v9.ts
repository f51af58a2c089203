/**
 * The SQLite schema's migrations v1 to v9, as published: never edited (schema.ts lists them all).
 */
export const MIGRATIONS_V1_V9: readonly string[] = [
  `
  CREATE TABLE workflow_versions (
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    spec_hash TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    published_at TEXT NOT NULL,
    published_by TEXT NOT NULL,
    PRIMARY KEY (tenant, workflow_id, version)
  ) WITHOUT ROWID;

  CREATE TABLE promotions (
    id INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    from_status TEXT NOT NULL,
    to_status TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX promotions_workflow ON promotions (tenant, workflow_id, id);

  -- run_key is a compact, increasing key: entries of new runs land at the right edge of the
  -- entries B-tree, so a commit touches few pages however random the run ids are.
  CREATE TABLE runs (
    run_key INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    workflow_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    spec_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX runs_by_tenant ON runs (tenant, created_at DESC, run_id DESC);

  CREATE TABLE entries (
    run_key INTEGER NOT NULL REFERENCES runs (run_key),
    seq INTEGER NOT NULL,
    v INTEGER NOT NULL,
    kind TEXT NOT NULL,
    prev_hash TEXT,
    payload_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    at TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (run_key, seq)
  ) WITHOUT ROWID;

  CREATE TABLE approvals (
    run_id TEXT NOT NULL,
    proposal_id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    step TEXT NOT NULL,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    reason TEXT NOT NULL,
    channel TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    PRIMARY KEY (run_id, proposal_id)
  ) WITHOUT ROWID;
  CREATE INDEX approvals_by_tenant ON approvals (tenant, requested_at);
  `,
  // v2: workers. A run's lease says which worker walks it until when (ms since the epoch); a
  // running run with no lease, or an expired one, is claimable. Workers register a heartbeat row.
  `
  ALTER TABLE runs ADD COLUMN lease_owner TEXT;
  ALTER TABLE runs ADD COLUMN lease_until INTEGER;
  CREATE INDEX runs_running ON runs (created_at, run_key) WHERE status = 'running';
  CREATE INDEX runs_suspended ON runs (created_at) WHERE status = 'outcome_unknown';

  CREATE TABLE workers (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    seen_at INTEGER NOT NULL,
    lease_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // v3: for `keel serve`. API keys are kept as the SHA-256 of the full key only. Idempotency
  // records (one per tenant, operation and key) hold a request digest, an in-flight lease (ms) or
  // the finished response; created_at (ms) bounds their life to IDEMPOTENCY_TTL_MS.
  `
  CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    subject TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  ) WITHOUT ROWID;
  CREATE INDEX api_keys_by_tenant ON api_keys (tenant, created_at, key_id);

  CREATE TABLE idempotency (
    tenant TEXT NOT NULL,
    operation TEXT NOT NULL,
    key TEXT NOT NULL,
    digest TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
    created_at INTEGER NOT NULL,
    lease_until INTEGER,
    status INTEGER,
    body TEXT,
    headers TEXT,
    PRIMARY KEY (tenant, operation, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_by_age ON idempotency (created_at);
  `,
  // v4: governance in the store. A tenant's trusted writ keys (public keys as SPKI PEM; a key is
  // retired, never deleted) and its revoked writ hashes (a revocation stands; never deleted).
  `
  CREATE TABLE writ_keys (
    tenant TEXT NOT NULL,
    key_id TEXT NOT NULL,
    public_key_pem TEXT NOT NULL,
    added_by TEXT NOT NULL,
    added_at TEXT NOT NULL,
    retired_at TEXT,
    PRIMARY KEY (tenant, key_id)
  ) WITHOUT ROWID;

  CREATE TABLE writ_revocations (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (tenant, hash)
  ) WITHOUT ROWID;
  `,
  // v5: writ chains by content. A run's root names its writ by hash; the chain (root first, as
  // canonical JSON) is stored once per tenant and writ, never changed or deleted.
  `
  CREATE TABLE writ_chains (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    chain TEXT NOT NULL,
    PRIMARY KEY (tenant, hash)
  ) WITHOUT ROWID;
  `,
  // v6: entries in a rowid table. In a WITHOUT ROWID table every B-tree page, interior ones too,
  // holds whole rows, and an insert into a full rightmost page rebalances three siblings; with
  // ledger rows of 300-800 bytes that wrote ~2.5 entry pages per commit. In a rowid table an
  // append goes to the end (a new page when full) and the interior pages hold only rowids; the
  // primary key (run_key, seq) becomes a small separate index, still appended at its right edge.
  `
  CREATE TABLE entries_v6 (
    run_key INTEGER NOT NULL REFERENCES runs (run_key),
    seq INTEGER NOT NULL,
    v INTEGER NOT NULL,
    kind TEXT NOT NULL,
    prev_hash TEXT,
    payload_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    at TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (run_key, seq)
  );
  INSERT INTO entries_v6 (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
    SELECT run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload FROM entries ORDER BY run_key, seq;
  DROP TABLE entries;
  ALTER TABLE entries_v6 RENAME TO entries;
  `,
  // v7: an entry's three digests as their 32 bytes, not as 71 characters of `sha256:<hex>` (the
  // store's statements convert both ways): 117 bytes less per row. The bench's 3-step run took
  // ~3.8 KB of rows, a governed one (policy records in its decisions) ~4.5 KB: past one page, so
  // every governed run wrote ~1.6 more WAL frames (a second leaf, its parent, the header page).
  // At ~2.9 and ~3.6 KB, both fit in one page. A stored value that is not a
  // lowercase digest becomes an empty blob, which the CHECKs refuse: the migration fails and
  // leaves the file at v6 rather than keep a digest it cannot give back as it was.
  `
  CREATE TABLE entries_v7 (
    run_key INTEGER NOT NULL REFERENCES runs (run_key),
    seq INTEGER NOT NULL,
    v INTEGER NOT NULL,
    kind TEXT NOT NULL,
    prev_hash BLOB CHECK (prev_hash IS NULL OR length(prev_hash) = 32),
    payload_hash BLOB NOT NULL CHECK (length(payload_hash) = 32),
    hash BLOB NOT NULL CHECK (length(hash) = 32),
    at TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (run_key, seq)
  );
  INSERT INTO entries_v7 (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
    SELECT run_key, seq, v, kind, ${legacyDigest('prev_hash')}, ${legacyDigest('payload_hash')},
      ${legacyDigest('hash')}, at, payload
    FROM entries ORDER BY run_key, seq;
  DROP TABLE entries;
  ALTER TABLE entries_v7 RENAME TO entries;
  `,
  // v8: each tenant's key for hashing secret values (HMAC-SHA-256), made on first use and never
  // changed: a run records a secret as its keyed hash, so a reader of the ledger alone cannot
  // confirm a guessed value. The key is never written to a ledger.
  `
  CREATE TABLE tenant_secret_keys (
    tenant TEXT PRIMARY KEY,
    key BLOB NOT NULL CHECK (length(key) = 32)
  ) WITHOUT ROWID;
  `,
  // v9: writ budgets shared by every run under a writ. One row per tenant and writ (its hash): the
  // writ's limits, copied from its body, and what runs under it (or under a writ derived from it)
  // reserved; changed only in the transaction of the append whose entries record the reservation.
  // The CHECK is the last word: no transaction can leave a writ overspent.
  `
  CREATE TABLE writ_budgets (
    tenant TEXT NOT NULL,
    hash TEXT NOT NULL,
    steps_limit INTEGER NOT NULL,
    calls_limit INTEGER NOT NULL,
    cents_limit INTEGER NOT NULL,
    steps_used INTEGER NOT NULL DEFAULT 0,
    calls_used INTEGER NOT NULL DEFAULT 0,
    cents_used INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, hash),
    CHECK (steps_used <= steps_limit AND calls_used <= calls_limit AND cents_used <= cents_limit)
  ) WITHOUT ROWID;
  `,
];

/** SQL for the 32 bytes of a v6 `sha256:<64 lowercase hex>` column (NULL stays NULL, anything else: x''). */
function legacyDigest(column: string): string {
  return `iif(${column} IS NULL, NULL, iif(length(${column}) = 71 AND substr(${column}, 1, 7) = 'sha256:' AND ${column} = lower(${column}), coalesce(unhex(substr(${column}, 8)), x''), x''))`;
}
