/**
 * Idempotency keys for `keel serve` (OpenWOP Idempotency Layer 1): a record per (tenant,
 * operation, key) remembers the digest of the request that first used the key and, once it
 * finished, the response to replay. This handle only checks input and takes times from the clock;
 * atomicity is the store's (`claimIdempotency`). Response bodies are text, kept and replayed
 * verbatim (the server stores the JSON text it sent). It never decides what is worth caching: the
 * caller finishes a record with a response to replay, or releases it (5xx, 429, validation errors).
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type {
  Clock,
  Idempotency,
  IdempotencyClaim,
  IdempotencyRef,
  IdempotencyResponse,
} from '../ports/index.ts';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._~-]{22,128}$/;

/** How long a claim holds a record before a retry of the same request may take it over (ms). */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 60_000;

/** Whether `k` is a well-formed Idempotency-Key: 22-128 characters of A-Z a-z 0-9 . _ ~ -. */
export function isIdempotencyKey(k: unknown): k is string {
  return typeof k === 'string' && IDEMPOTENCY_KEY.test(k);
}

export interface IdempotencyClaimInput extends IdempotencyRef {
  /** A digest of the request (e.g. `hashOf({operation, request})`); another digest is a mismatch. */
  readonly digest: string;
  /** Default DEFAULT_IDEMPOTENCY_LEASE_MS. */
  readonly leaseMs?: number;
}

/** Refuses a malformed reference, naming the field; returns exactly its three fields. */
function checkRef(ref: IdempotencyRef): IdempotencyRef {
  for (const field of ['tenant', 'operation'] as const) {
    const v = ref[field];
    if (typeof v !== 'string' || v === '' || v.length > 200)
      throw new KeelError(ErrorCode.usage, `${field}: expected 1-200 characters`, { field });
  }
  if (!isIdempotencyKey(ref.key))
    throw new KeelError(
      ErrorCode.usage,
      'Idempotency-Key: expected 22-128 characters of A-Z a-z 0-9 . _ ~ -',
      {
        field: 'Idempotency-Key',
      },
    );
  return { tenant: ref.tenant, operation: ref.operation, key: ref.key };
}

/** Idempotency records of HTTP requests (`Idempotency-Key`). */
export interface IdempotencyHandle {
  claim(req: IdempotencyClaimInput): Promise<IdempotencyClaim>;
  finish(ref: IdempotencyRef, response: IdempotencyResponse): Promise<boolean>;
  release(ref: IdempotencyRef): Promise<boolean>;
}

/** `keel.idempotency`: the idempotency handle of createKeel, with times from its clock. */
export function idempotencyHandle(records: Idempotency, clock: Clock): IdempotencyHandle {
  return {
    /** Claims the record, or says that another request holds it, made it with another digest, or what it answered. */
    claim(req: IdempotencyClaimInput): Promise<IdempotencyClaim> {
      const ref = checkRef(req);
      if (typeof req.digest !== 'string' || req.digest === '')
        throw new KeelError(ErrorCode.usage, 'digest: expected a non-empty string', { field: 'digest' });
      const leaseMs = req.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS;
      if (!Number.isSafeInteger(leaseMs) || leaseMs < 1)
        throw new KeelError(ErrorCode.usage, 'leaseMs: expected a positive integer', { field: 'leaseMs' });
      return records.claimIdempotency({ ...ref, digest: req.digest, now: clock.now(), leaseMs });
    },
    /** Caches the claimed record's response; false when the claim was lost (released, expired, finished). */
    finish(ref: IdempotencyRef, response: IdempotencyResponse): Promise<boolean> {
      const r = checkRef(ref);
      const { status, body, headers } = response;
      if (!Number.isInteger(status) || status < 100 || status > 599)
        throw new KeelError(ErrorCode.usage, 'status: expected an HTTP status code', { field: 'status' });
      if (typeof body !== 'string')
        throw new KeelError(ErrorCode.usage, 'body: expected the response body text (e.g. its JSON)', {
          field: 'body',
        });
      return records.finishIdempotency({ ...r, status, body, ...(headers ? { headers } : {}) });
    },
    /** Forgets the claimed record, so the next request with the key runs afresh; false when none was in flight. */
    release(ref: IdempotencyRef): Promise<boolean> {
      return records.releaseIdempotency(checkRef(ref));
    },
  };
}
