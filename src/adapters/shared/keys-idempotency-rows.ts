/**
 * API key and idempotency rows (SQLite and PostgreSQL alike) to the ports' values, and the
 * one rule that turns an existing idempotency record into a claim outcome. Pure mapping: nothing
 * here queries. A key row is never mapped with its hash: what leaves the store is ApiKeyInfo.
 */
import type { ApiKeyInfo, IdempotencyClaim } from '../../ports/index.ts';
import type { Row } from './row.ts';

/** Expired idempotency records of other keys are deleted at most this often per store handle (ms). */
export const IDEMPOTENCY_PRUNE_EVERY_MS = 60_000;

/** The columns a key's listing reads (never its hash). */
export const API_KEY_COLUMNS = 'key_id, tenant, subject, created_at, revoked_at, kind';

export function toApiKeyInfo(r: Row): ApiKeyInfo {
  const revokedAt = r.revoked_at as string | null;
  return {
    keyId: r.key_id as string,
    tenant: r.tenant as string,
    subject: r.subject as string,
    createdAt: r.created_at as string,
    kind: r.kind === 'service' ? 'service' : 'human',
    ...(revokedAt === null || revokedAt === undefined ? {} : { revokedAt }),
  };
}

/**
 * What an existing record means to a claim that did not take it: another digest is a mismatch
 * (in flight or done), a finished record is its cached response, anything else is in flight.
 */
export function existingClaim(r: Row, digest: string): IdempotencyClaim {
  if (r.digest !== digest) return { state: 'mismatch' };
  if (r.state !== 'done') return { state: 'in_flight' };
  const headers = r.headers as string | null;
  return {
    state: 'done',
    status: Number(r.status),
    body: r.body as string,
    ...(headers === null || headers === undefined
      ? {}
      : { headers: JSON.parse(headers) as Record<string, string> }),
  };
}

/** Response headers as stored: JSON text, or null when there are none. */
export function headersText(headers: Readonly<Record<string, string>> | undefined): string | null {
  return headers === undefined || Object.keys(headers).length === 0 ? null : JSON.stringify(headers);
}
