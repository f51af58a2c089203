/**
 * Idempotency records in PostgreSQL, for `keel serve`: a claim is one transaction
 * (keys-idempotency.ts); records older than the TTL are deleted now and then by the claims of
 * this handle.
 */
import {
  IDEMPOTENCY_TTL_MS,
  type Idempotency,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyRef,
  type IdempotencyResponse,
} from '../../ports/index.ts';
import { headersText, IDEMPOTENCY_PRUNE_EVERY_MS } from '../shared/keys-idempotency-rows.ts';
import { unavailable } from './connection.ts';
import { claimIdempotency, KEYS_SQL } from './keys-idempotency.ts';
import type { PostgresHandle } from './postgres-handle.ts';

export class PostgresIdempotency implements Idempotency {
  /** When this handle next deletes idempotency records older than the TTL (ms, from claims' `now`). */
  private nextPrune = 0;

  constructor(private readonly h: PostgresHandle) {}

  async claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim> {
    if (req.now >= this.nextPrune) {
      this.nextPrune = req.now + IDEMPOTENCY_PRUNE_EVERY_MS;
      await this.h.write('keel_idem_prune', KEYS_SQL.prune, [req.now - IDEMPOTENCY_TTL_MS]);
    }
    try {
      const claim = await claimIdempotency(this.h.pool, req);
      this.h.commits++;
      return claim;
    } catch (e) {
      throw unavailable(e, 'claiming an idempotency key failed on', this.h.target);
    }
  }

  async finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean> {
    const values = [req.tenant, req.operation, req.key, req.status, req.body, headersText(req.headers)];
    return (await this.h.write('keel_idem_finish', KEYS_SQL.finish, values)).rowCount === 1;
  }

  async releaseIdempotency(ref: IdempotencyRef): Promise<boolean> {
    const values = [ref.tenant, ref.operation, ref.key];
    return (await this.h.write('keel_idem_release', KEYS_SQL.release, values)).rowCount === 1;
  }
}
