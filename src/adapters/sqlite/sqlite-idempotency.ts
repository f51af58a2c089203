/**
 * Idempotency records in the SQLite file, for `keel serve`. A claim is one IMMEDIATE transaction
 * (read, decide, write), so concurrent claims, from this process or another sharing the file,
 * queue on the write lock and exactly one takes a record. Times come from the caller (`now`, ms).
 */
import type Database from 'better-sqlite3';
import {
  IDEMPOTENCY_TTL_MS,
  type Idempotency,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyRef,
  type IdempotencyResponse,
} from '../../ports/index.ts';
import { existingClaim, headersText, IDEMPOTENCY_PRUNE_EVERY_MS } from '../shared/keys-idempotency-rows.ts';
import type { Row } from '../shared/row.ts';
import { io, type SqliteHandle } from './sqlite-handle.ts';

export class SqliteIdempotency implements Idempotency {
  private readonly st;
  private nextPrune = 0;
  private readonly claim: (req: IdempotencyClaimRequest) => IdempotencyClaim;

  constructor(private readonly h: SqliteHandle) {
    const db: Database.Database = h.db;
    this.st = {
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

  async claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    const claim = io('claiming an idempotency key', () => this.claim(req));
    this.h.commits++;
    return claim;
  }

  async finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean> {
    const done = io(
      'finishing an idempotency key',
      () =>
        this.st.finish.run(req.status, req.body, headersText(req.headers), req.tenant, req.operation, req.key)
          .changes === 1,
    );
    this.h.commits++;
    return done;
  }

  async releaseIdempotency(ref: IdempotencyRef): Promise<boolean> {
    const released = io(
      'releasing an idempotency key',
      () => this.st.release.run(ref.tenant, ref.operation, ref.key).changes === 1,
    );
    this.h.commits++;
    return released;
  }
}
