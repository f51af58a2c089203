/**
 * Idempotency records for `keel serve` (OpenWOP Idempotency Layer 1): one per (tenant, operation,
 * key), claimed atomically, finished with the response to replay, or released so the outcome is
 * not cached. Records older than IDEMPOTENCY_TTL_MS count as absent.
 */

/** Idempotency records live this long from their first claim (ms); older ones count as absent. */
export const IDEMPOTENCY_TTL_MS = 86_400_000;

/** Names one idempotency record: the same key in two tenants (or two operations) is two records. */
export interface IdempotencyRef {
  readonly tenant: string;
  /** What the key guards, e.g. `POST /v1/runs`. */
  readonly operation: string;
  /** The client's Idempotency-Key. */
  readonly key: string;
}

export interface IdempotencyClaimRequest extends IdempotencyRef {
  /** A digest of the request the key was sent with; a different digest under the same key is a mismatch. */
  readonly digest: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** How long the claimer may take before another request with the same digest may take over (ms). */
  readonly leaseMs: number;
}

/**
 * The cached response of a finished request. `body` is text, kept and returned verbatim (the
 * server stores the JSON text of the body it sent); `headers` are the few response headers worth
 * replaying (e.g. `location`), never credentials.
 */
export interface IdempotencyResponse {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * `claimed`: the caller now holds the record (new, an expired lease taken over, or one older than
 * the TTL replaced) and must finish or release it. `in_flight`: another request with the same
 * digest holds it. `mismatch`: the record was made by a request with another digest. `done`: the
 * same request finished before; here is its response.
 */
export type IdempotencyClaim =
  | { readonly state: 'claimed' }
  | { readonly state: 'in_flight' }
  | { readonly state: 'mismatch' }
  | ({ readonly state: 'done' } & IdempotencyResponse);

export interface Idempotency {
  /** Atomically claims an idempotency record, or reports who holds it or what it answered (see IdempotencyClaim). */
  claimIdempotency(req: IdempotencyClaimRequest): Promise<IdempotencyClaim>;
  /** Stores the response of the in-flight record; false when there is none (released, expired or already done). */
  finishIdempotency(req: IdempotencyRef & IdempotencyResponse): Promise<boolean>;
  /** Deletes the in-flight record, so the outcome is not cached (5xx, 429, validation errors); false when there is none. */
  releaseIdempotency(ref: IdempotencyRef): Promise<boolean>;
}
