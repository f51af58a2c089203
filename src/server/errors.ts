/**
 * One table from error code to HTTP status, and one error body: `{error, message, details?}`.
 * Keel's own codes and the OpenWOP protocol codes share the table; anything unclassified is a 500
 * whose message says nothing about internals (the cause goes to the server log, never the body).
 */
import { isKeelError } from '../core/errors.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';

const STATUS: Record<string, number> = {
  // Keel
  spec_invalid: 400,
  event_invalid: 400,
  usage: 400,
  canonical_invalid: 400,
  policy_invalid: 400,
  writ_invalid: 400,
  plan_invalid: 400,
  determinism_violation: 400,
  unknown_tool: 400,
  not_found: 404,
  version_immutable: 409,
  head_conflict: 409,
  already_resolved: 409,
  run_state: 409,
  run_terminal: 409,
  policy_unavailable: 409,
  writ_refused: 403,
  replay_source_missing: 404,
  replay_diverged: 409,
  ledger_invalid: 409,
  store_unavailable: 503,
  store_not_found: 503,
  replay_unavailable: 409,
  internal: 500,
  // OpenWOP
  validation_error: 400,
  idempotency_key_invalid: 400,
  protocol_version_mismatch: 400,
  unsupported_stream_mode: 400,
  unauthenticated: 401,
  forbidden: 403,
  id_tenant_mismatch: 403,
  interrupt_not_found: 404,
  protocol_version_unsupported: 406,
  idempotency_in_flight: 409,
  idempotency_key_mismatch: 409,
  interrupt_already_resolved: 409,
  run_state_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  fork_point_invalid: 422,
  rate_limited: 429,
  internal_error: 500,
};

export function httpStatusFor(code: string): number {
  return STATUS[code] ?? 500;
}

/** The whole table, code → status (the OpenAPI document publishes it). */
export function httpStatusTable(): Readonly<Record<string, number>> {
  return { ...STATUS };
}

export interface ErrorBody {
  readonly error: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/** What a thrown value is on the wire: its status and body. Unclassified errors are logged by the caller. */
export function errorReply(e: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (isKeelError(e) || e instanceof ProtocolError) {
    const details = e.details as Record<string, unknown>;
    const body: ErrorBody = {
      error: e.code,
      message: e.message,
      ...(details && Object.keys(details).length > 0 ? { details } : {}),
    };
    return { status: httpStatusFor(e.code), body, unexpected: false };
  }
  return {
    status: 500,
    body: { error: 'internal_error', message: 'the server failed to handle the request; see its log' },
    unexpected: true,
  };
}
