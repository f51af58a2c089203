/**
 * One table from error code to HTTP status, and one error body: `{error, message, details?}`.
 * Keel's own codes and the OpenWOP protocol codes share the table; anything unclassified is a 500
 * whose message says nothing about internals (the cause goes to the server log, never the body).
 * On the OpenWOP surface a refusal is spelt once more, here and nowhere else (`openWopReply`): a
 * Keel code becomes the registered OpenWOP code of the same meaning, or the vendor code
 * `keel.<code>`, so no unregistered code ever reaches an OpenWOP client.
 */
import { isKeelError } from '../core/errors.ts';
import type { RunStatus } from '../core/ledger/index.ts';
import { excerpt } from '../core/spec/index.ts';
import { OpenWopHost } from '../openwop/host.ts';
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
  event_conflict: 409,
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
  model_unavailable: 503,
  mcp_server_unavailable: 503,
  replay_unavailable: 409,
  promotion_gate_unmet: 409,
  draft_mismatch: 409,
  draft_has_questions: 422,
  test_failed: 422,
  delivery_invalid: 422,
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
  version_conflict: 409,
  runner_unavailable: 503,
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

/** A refusal quotes what it was sent only in excerpts: its message, and each string of its details. */
const MAX_MESSAGE = 500;
const MAX_DETAIL = 300;
const MAX_ITEMS = 50;

function capped(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return excerpt(v, MAX_DETAIL);
  if (typeof v !== 'object' || v === null) return v;
  if (depth > 6) return '…';
  if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((x) => capped(x, depth + 1));
  return Object.fromEntries(
    Object.entries(v)
      .slice(0, MAX_ITEMS)
      .map(([k, x]) => [excerpt(k, MAX_DETAIL), capped(x, depth + 1)]),
  );
}

/** What a thrown value is on the wire: its status and body. Unclassified errors are logged by the caller. */
export function errorReply(e: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (isKeelError(e) || e instanceof ProtocolError) {
    const details = e.details as Record<string, unknown>;
    const body: ErrorBody = {
      error: e.code,
      message: excerpt(e.message, MAX_MESSAGE),
      ...(details && Object.keys(details).length > 0
        ? { details: capped(details) as Record<string, unknown> }
        : {}),
    };
    return { status: httpStatusFor(e.code), body, unexpected: false };
  }
  return {
    status: 500,
    body: { error: 'internal_error', message: 'the server failed to handle the request; see its log' },
    unexpected: true,
  };
}

/** The OpenWOP registry codes Keel answers with (spec/v2/errors.json); each passes through unchanged. */
const OPENWOP_REGISTERED: ReadonlySet<string> = new Set([
  'validation_error',
  'idempotency_key_invalid',
  'protocol_version_mismatch',
  'unsupported_stream_mode',
  'unauthenticated',
  'forbidden',
  'id_tenant_mismatch',
  'not_found',
  'interrupt_not_found',
  'replay_source_missing',
  'protocol_version_unsupported',
  'idempotency_in_flight',
  'idempotency_key_mismatch',
  'interrupt_already_resolved',
  'run_terminal',
  'run_state_conflict',
  'version_conflict',
  'payload_too_large',
  'unsupported_media_type',
  'fork_point_invalid',
  'rate_limited',
  'internal_error',
  'runner_unavailable',
]);

/** Keel codes with a registered OpenWOP code of the same meaning; any other is `keel.<code>`. */
const OPENWOP_CODE_OF: Readonly<Record<string, string>> = {
  usage: 'validation_error',
  spec_invalid: 'validation_error',
  event_invalid: 'validation_error',
  canonical_invalid: 'validation_error',
  policy_invalid: 'validation_error',
  writ_invalid: 'validation_error',
  plan_invalid: 'validation_error',
  determinism_violation: 'validation_error',
  unknown_tool: 'validation_error',
  version_immutable: 'version_conflict',
  head_conflict: 'version_conflict',
  already_resolved: 'interrupt_already_resolved',
  run_state: 'run_state_conflict',
  writ_refused: 'forbidden',
  store_unavailable: 'runner_unavailable',
  internal: 'internal_error',
};

/** The run status a run-state refusal names, as OpenWOP spells it (`details.runStatus`). */
function runStatusOf(details: Record<string, unknown> | undefined): string | undefined {
  if (typeof details?.runStatus === 'string') return details.runStatus;
  const status = details?.status;
  if (typeof status !== 'string') return undefined;
  return OpenWopHost.keelStatuses(status).length > 0 ? status : OpenWopHost.wireStatus(status as RunStatus);
}

/** A reply as the OpenWOP surface gives it: the same refusal, spelt with an OpenWOP error code. */
export function openWopReply<R extends { status: number; body: unknown }>(r: R): R {
  const body = r.body as Partial<ErrorBody> | null;
  if (r.status < 400 || typeof body?.error !== 'string') return r;
  const keelCode = body.error;
  const code = OPENWOP_REGISTERED.has(keelCode)
    ? keelCode
    : (OPENWOP_CODE_OF[keelCode] ?? `keel.${keelCode}`);
  let details = body.details;
  if (code === 'run_state_conflict' || code === 'run_terminal') {
    const runStatus = runStatusOf(details);
    if (runStatus) {
      const { status: _keelStatus, ...rest } = details ?? {};
      details = { ...rest, runStatus };
    }
  }
  if (code === keelCode && details === body.details) return r;
  return {
    ...r,
    status: code.startsWith('keel.') ? r.status : httpStatusFor(code),
    body: {
      error: code,
      message: body.message ?? code,
      ...(details && Object.keys(details).length > 0 ? { details } : {}),
    },
  };
}

/** What a thrown value is on the OpenWOP surface: `errorReply`, spelt with OpenWOP codes. */
export function openWopErrorReply(e: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  return openWopReply(errorReply(e));
}
