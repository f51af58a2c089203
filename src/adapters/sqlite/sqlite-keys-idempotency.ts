/**
 * API keys and idempotency records in the SQLite file: the part of the Store port `keel serve`
 * needs. A claim is one IMMEDIATE transaction (read, decide, write), so concurrent claims, from
 * this process or another sharing the file, queue on the write lock and exactly one takes a
 * record. Times come from the caller (`now`, ms). Key rows leave this module without their hash.
 */
import type Database from 'better-sqlite3';
import {
  type ApiKeyInfo,
  type ApiKeyRecord,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyRef,
  type IdempotencyResponse,
} from '../../ports/index.ts';
import {
  API_KEY_COLUMNS,
  existingClaim,
  headersText,
  IDEMPOTENCY_PRUNE_EVERY_MS,
  toApiKeyInfo,
} from '../shared/keys-idempotency-rows.ts';
import type { Row } from '../shared/rows.ts';

export class SqliteKeysIdempotency {
  private readonly st;
  private nextPrune = 0;
  readonly claim: (req: IdempotencyClaimRequest) => IdempotencyClaim;

  constructor(db: Database.Database) {
    this.st = {
      putKey: db.prepare(
        'INSERT INTO api_keys (key_id, tenant, subject, hash, created_at, kind) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      findKey: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE hash = ?`),
      listKeys: db.prepare(
        `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE tenant = ? ORDER BY created_at, key_id`,
      ),
      revokeKey: db.prepare(
        'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE tenant = ? AND key_id = ?',
      ),
      record: db.prepare('SELECT * FROM idempotency WHERE tenant = ? AND operation = ? AND key = ?'),
      drop: db.prepare('DELETE FROM idempotency WHERE tenant = ? AND operation = ? AND key = ?'),
      insert: db.prepare(
        `INSERT INTO idempotency (tenant, operation, key, digest, state, created_at, lease_until)
         VALUES (?, ?, ?, ?, 'in_flight', ?, ?)`,
      ),
      takeOver: db.prepare(
        'UPDATE idempotency SET lease_until = ? WHERE tenant = ? AND operation = ? AND key = ?',
      ),
      finish: db.prepare(
        `UPDATE idempotency SET state = 'done', lease_until = NULL, status = ?, body = ?, headers = ?
          WHERE tenant = ? AND operation = ? AND key = ? AND state = 'in_flight'`,
      ),
      release: db.prepare(
        `DELETE FROM idempotency WHERE tenant = ? AND operation = ? AND key = ? AND state = 'in_flight'`,
      ),
      prune: db.prepare('DELETE FROM idempotency WHERE created_at < ?'),
    };
    this.claim = db.transaction((req: IdempotencyClaimRequest): IdempotencyClaim => {
      const { tenant, operation, key, digest, now, leaseMs } = req;
      const oldest = now - IDEMPOTENCY_TTL_MS;
      if (now >= this.nextPrune) {
        this.st.prune.run(oldest);
        this.nextPrune = now + IDEMPOTENCY_PRUNE_EVERY_MS;
      }
      let row = this.st.record.get(tenant, operation, key) as Row | undefined;
      // A record older than the TTL counts as absent.
      if (row && (row.created_at as number) < oldest) {
        this.st.drop.run(tenant, operation, key);
        row = undefined;
      }
      if (!row) {
        this.st.insert.run(tenant, operation, key, digest, now, now + leaseMs);
        return { state: 'claimed' };
      }
      // The same request whose holder let its lease lapse: take it over.
      if (row.digest === digest && row.state === 'in_flight' && (row.lease_until as number) < now) {
        this.st.takeOver.run(now + leaseMs, tenant, operation, key);
        return { state: 'claimed' };
      }
      return existingClaim(row, digest);
    }).immediate;
  }

  putKey(rec: ApiKeyRecord): void {
    this.st.putKey.run(rec.keyId, rec.tenant, rec.subject, rec.hash, rec.createdAt, rec.kind);
  }

  findKey(hash: string): ApiKeyInfo | undefined {
    const row = this.st.findKey.get(hash) as Row | undefined;
    return row ? toApiKeyInfo(row) : undefined;
  }

  listKeys(tenant: string): ApiKeyInfo[] {
    return (this.st.listKeys.all(tenant) as Row[]).map(toApiKeyInfo);
  }

  revokeKey(tenant: string, keyId: string, at: string): boolean {
    return this.st.revokeKey.run(at, tenant, keyId).changes === 1;
  }

  finish(req: IdempotencyRef & IdempotencyResponse): boolean {
    return (
      this.st.finish.run(req.status, req.body, headersText(req.headers), req.tenant, req.operation, req.key)
        .changes === 1
    );
  }

  release(ref: IdempotencyRef): boolean {
    return this.st.release.run(ref.tenant, ref.operation, ref.key).changes === 1;
  }
}
