/**
 * OpenWOP Idempotency Layer 1 for every POST: `(tenant, operation, Idempotency-Key)` names one
 * durable record (the store's idempotency table). The first request claims it with an in-flight
 * lease; a concurrent one with the same key gets `409 idempotency_in_flight`; a later one with the
 * same canonical request gets the cached response with `OpenWOP-Idempotent-Replay: true`, and one
 * with a different request `409 idempotency_key_mismatch` (never the cached body). 2xx and
 * non-retryable 4xx are cached; 5xx, 429, 401, 403 and validation failures are released, so a
 * retry runs again.
 */

import { isIdempotencyKey } from '../app/idempotency.ts';
import type { Keel } from '../app/keel.ts';
import { hashOf } from '../core/canonical/index.ts';
import type { Principal } from '../openwop/host.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

const NOT_CACHED = new Set([
  'validation_error',
  'idempotency_key_invalid',
  'unauthenticated',
  'forbidden',
  'id_tenant_mismatch',
]);

function cacheable(r: Reply): boolean {
  if (r.status < 300) return true;
  if (r.status >= 500 || r.status === 429 || r.status === 401 || r.status === 403) return false;
  const code = (r.body as { error?: unknown } | null)?.error;
  return !(typeof code === 'string' && NOT_CACHED.has(code));
}

/**
 * Runs `handle` under the key (or directly without one). `handle` returns its reply, errors
 * included, so the outcome can be cached; it is given the key to derive durable identities from.
 */
export async function idempotent(
  keel: Keel,
  p: Principal,
  key: string | undefined,
  operation: string,
  request: unknown,
  handle: () => Promise<Reply>,
): Promise<Reply> {
  if (key === undefined) return handle();
  if (!isIdempotencyKey(key))
    throw new ProtocolError(
      'idempotency_key_invalid',
      'Idempotency-Key: expected 22 to 128 characters of A-Z a-z 0-9 . _ ~ -',
      {
        field: 'Idempotency-Key',
      },
    );
  const digest = hashOf({ operation, request });
  const claim = await keel.idempotency.claim({ tenant: p.tenant, operation, key, digest });
  if (claim.state === 'in_flight')
    return {
      status: 409,
      headers: { 'Retry-After': '1' },
      body: {
        error: 'idempotency_in_flight',
        message: 'a request with this Idempotency-Key is still being processed',
      },
    };
  if (claim.state === 'mismatch')
    return {
      status: 409,
      body: {
        error: 'idempotency_key_mismatch',
        message: 'this Idempotency-Key was used with a different request; use a new key for a new request',
      },
    };
  if (claim.state === 'done')
    return {
      status: claim.status,
      body: JSON.parse(claim.body),
      headers: { 'OpenWOP-Idempotent-Replay': 'true' },
    };
  let reply: Reply;
  try {
    reply = await handle();
  } catch (e) {
    await keel.idempotency.release({ tenant: p.tenant, operation, key });
    throw e;
  }
  if (cacheable(reply))
    await keel.idempotency.finish(
      { tenant: p.tenant, operation, key },
      { status: reply.status, body: JSON.stringify(reply.body) },
    );
  else await keel.idempotency.release({ tenant: p.tenant, operation, key });
  return reply;
}
