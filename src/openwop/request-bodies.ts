/**
 * The bodies of OpenWOP's POSTs, checked at the boundary: createRun (closed in v2, lenient in v1),
 * fork and bulk cancel. Each problem is a `validation_error` naming its field; nothing here reads
 * a store.
 */

import { ProtocolError } from './protocol-error.ts';
import type { Major } from './run-ids.ts';

export interface CreateRunBody {
  readonly workflowId: string;
  readonly inputs: Record<string, unknown>;
  readonly tags?: readonly string[];
  readonly metadata?: Record<string, unknown>;
}

export interface ForkBody {
  readonly mode: 'replay' | 'branch';
  readonly fromSeq: number;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function validation(field: string, message: string): ProtocolError {
  return new ProtocolError('validation_error', `${field}: ${message}`, { field });
}

/** Checks a createRun body; v2 refuses unknown keys, v1 stays lenient. */
export function parseCreateRun(body: unknown, major: Major): CreateRunBody {
  if (!isObject(body)) throw validation('(body)', 'expected a JSON object');
  const known = new Set([
    'workflowId',
    'inputs',
    'tags',
    'metadata',
    'configurable',
    'tenantId',
    'scopeId',
    'residency',
    'callbackUrl',
    'mode',
    'agentId',
    'evalSuiteRef',
  ]);
  if (major === 2) for (const k of Object.keys(body)) if (!known.has(k)) throw validation(k, 'unknown field');
  if (typeof body.workflowId !== 'string' || body.workflowId.length === 0)
    throw validation('workflowId', 'expected a non-empty string');
  if (body.inputs !== undefined && !isObject(body.inputs)) throw validation('inputs', 'expected an object');
  if (body.tags !== undefined) {
    if (
      !Array.isArray(body.tags) ||
      body.tags.length > 100 ||
      body.tags.some((t) => typeof t !== 'string' || t.length > 256)
    )
      throw validation('tags', 'expected at most 100 strings of at most 256 characters');
  }
  if (body.metadata !== undefined && !isObject(body.metadata))
    throw validation('metadata', 'expected an object');
  return {
    workflowId: body.workflowId,
    inputs: (body.inputs as Record<string, unknown> | undefined) ?? {},
    ...(body.tags ? { tags: body.tags as string[] } : {}),
    ...(body.metadata ? { metadata: body.metadata as Record<string, unknown> } : {}),
  };
}

export function parseFork(body: unknown): ForkBody {
  if (!isObject(body)) throw validation('(body)', 'expected a JSON object');
  if (body.mode !== 'replay' && body.mode !== 'branch')
    throw validation('mode', `expected replay or branch, got ${JSON.stringify(body.mode)}`);
  if (body.fromSeq === undefined && body.mode === 'branch')
    throw validation('fromSeq', 'required for mode branch');
  const fromSeq = body.fromSeq ?? 0;
  if (!Number.isSafeInteger(fromSeq) || (fromSeq as number) < 0)
    throw validation('fromSeq', `expected an integer >= 0, got ${JSON.stringify(body.fromSeq)}`);
  const overlay = body.runOptionsOverlay;
  if (
    overlay !== undefined &&
    (!isObject(overlay) || (body.mode === 'replay' && Object.keys(overlay).length > 0))
  )
    throw validation('runOptionsOverlay', 'only an object, and only with mode branch');
  return { mode: body.mode, fromSeq: fromSeq as number };
}

/** At most this many runs in one bulk cancel. */
export const MAX_BULK_CANCEL = 100;

export function parseBulkCancel(body: unknown): { runIds: string[]; reason?: string } {
  if (!isObject(body)) throw validation('(body)', 'expected a JSON object');
  const ids = body.runIds;
  if (
    !Array.isArray(ids) ||
    ids.length < 1 ||
    ids.length > MAX_BULK_CANCEL ||
    ids.some((x) => typeof x !== 'string')
  )
    throw new ProtocolError('validation_error', `runIds: expected 1 to ${MAX_BULK_CANCEL} run ids`, {
      field: 'runIds',
      maxRunIds: MAX_BULK_CANCEL,
    });
  if (body.reason !== undefined && typeof body.reason !== 'string')
    throw validation('reason', 'expected a string');
  return { runIds: ids as string[], ...(typeof body.reason === 'string' ? { reason: body.reason } : {}) };
}

/** The body of `:pause`: an optional reason; `drainPolicy` may only name the one policy served. */
export function parsePause(body: unknown): { reason?: string } {
  const b = isObject(body) ? body : {};
  if (b.drainPolicy !== undefined && b.drainPolicy !== 'drain-current-node')
    throw validation(
      'drainPolicy',
      'only drain-current-node is served (the step in progress finishes first)',
    );
  if (b.reason !== undefined && typeof b.reason !== 'string') throw validation('reason', 'expected a string');
  return typeof b.reason === 'string' ? { reason: b.reason } : {};
}

/** An approval interrupt's resume value: `{action: accept | reject, feedback?}`. */
export function parseResumeValue(v: unknown): { action: 'accept' | 'reject'; feedback?: string } {
  if (!isObject(v) || (v.action !== 'accept' && v.action !== 'reject'))
    throw validation('resumeValue.action', 'expected accept or reject');
  return { action: v.action, ...(typeof v.feedback === 'string' ? { feedback: v.feedback } : {}) };
}
