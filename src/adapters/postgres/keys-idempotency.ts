/**
 * API keys and idempotency records in PostgreSQL: what the keys and idempotency ports need (postgres-keys.ts, postgres-idempotency.ts).
 * A claim is one statement: an upsert that inserts the record, or takes it over when it is older
 * than the TTL or its same-digest holder's lease has lapsed, and otherwise reads what is there.
 * Under READ COMMITTED a record committed by a concurrent claim after this statement's snapshot
 * is locked by the upsert but invisible to the read; the claim then simply runs again (it will
 * see it). Times come from the caller (`now`, ms). Key rows leave this module without their hash.
 */
import type pg from 'pg';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
} from '../../ports/index.ts';
import { API_KEY_COLUMNS, existingClaim } from '../shared/keys-idempotency-rows.ts';
import type { Row } from '../shared/row.ts';

export const KEYS_SQL = {
  putKey:
    'INSERT INTO api_keys (key_id, tenant, subject, hash, created_at, kind) VALUES ($1, $2, $3, $4, $5, $6)',
  findKey: `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE hash = $1`,
  listKeys: `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE tenant = $1 ORDER BY created_at, key_id`,
  revokeKey: 'UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE tenant = $1 AND key_id = $2',
  /**
   * $1 tenant, $2 operation, $3 key, $4 digest, $5 now, $6 lease until, $7 oldest live created_at.
   * One row: `claimed`, or the existing record (none when it committed after the snapshot).
   */
  claim: `WITH taken AS (
      INSERT INTO idempotency AS i (tenant, operation, key, digest, state, created_at, lease_until)
      VALUES ($1, $2, $3, $4, 'in_flight', $5, $6)
      ON CONFLICT (tenant, operation, key) DO UPDATE SET
        digest = excluded.digest, state = 'in_flight', lease_until = excluded.lease_until,
        created_at = CASE WHEN i.created_at < $7 THEN excluded.created_at ELSE i.created_at END,
        status = NULL, body = NULL, headers = NULL
      WHERE i.created_at < $7
         OR (i.state = 'in_flight' AND i.digest = excluded.digest AND i.lease_until < excluded.created_at)
      RETURNING 1
    )
    SELECT true AS claimed, NULL AS digest, NULL AS state, NULL::int AS status, NULL AS body, NULL AS headers
      FROM taken
    UNION ALL
    SELECT false, digest, state, status, body, headers FROM idempotency
     WHERE tenant = $1 AND operation = $2 AND key = $3 AND NOT EXISTS (SELECT 1 FROM taken)`,
  finish: `UPDATE idempotency SET state = 'done', lease_until = NULL, status = $4, body = $5, headers = $6
    WHERE tenant = $1 AND operation = $2 AND key = $3 AND state = 'in_flight'`,
  release: `DELETE FROM idempotency WHERE tenant = $1 AND operation = $2 AND key = $3 AND state = 'in_flight'`,
  prune: 'DELETE FROM idempotency WHERE created_at < $1',
} as const;

/** How often a claim re-reads a record that a concurrent claim committed after its snapshot. */
const CLAIM_ATTEMPTS = 10;

export async function claimIdempotency(
  pool: pg.Pool,
  req: IdempotencyClaimRequest,
): Promise<IdempotencyClaim> {
  const { tenant, operation, key, digest, now, leaseMs } = req;
  const values = [tenant, operation, key, digest, now, now + leaseMs, now - IDEMPOTENCY_TTL_MS];
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const { rows } = await pool.query<Row>({ name: 'keel_idem_claim', text: KEYS_SQL.claim, values });
    const row = rows[0];
    if (!row) continue;
    return row.claimed === true ? { state: 'claimed' } : existingClaim(row, digest);
  }
  throw new KeelError(
    ErrorCode.internal,
    `claiming idempotency key ${key}: the record kept changing under ${CLAIM_ATTEMPTS} attempts`,
    { tenant, operation },
  );
}
