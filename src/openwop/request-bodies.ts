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
  if (body.configurable !== undefined) {
    if (!isObject(body.configurable)) throw validation('configurable', 'expected an object');
    // v2's configurable is closed, nested and versioned; v1 hosts took a flat one, so v1 stays lenient.
    if (major === 2) checkConfigurable(body.configurable);
  }
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

/**
 * The body of `:pause`: an optional reason and drain policy — `drain-current-node` (the default:
 * the node in progress finishes first) or `immediate` (an idempotent node's call is cut).
 */
export function parsePause(body: unknown): {
  reason?: string;
  drainPolicy?: 'drain-current-node' | 'immediate';
} {
  const b = isObject(body) ? body : {};
  if (b.drainPolicy !== undefined && b.drainPolicy !== 'drain-current-node' && b.drainPolicy !== 'immediate')
    throw validation(
      'drainPolicy',
      `expected drain-current-node or immediate, got ${JSON.stringify(b.drainPolicy)}`,
    );
  if (b.reason !== undefined && typeof b.reason !== 'string') throw validation('reason', 'expected a string');
  return {
    ...(typeof b.reason === 'string' ? { reason: b.reason } : {}),
    ...(b.drainPolicy !== undefined ? { drainPolicy: b.drainPolicy } : {}),
  };
}

/** An approval interrupt's resume value: `{action: accept | reject, feedback?}`. */
export function parseResumeValue(v: unknown): { action: 'accept' | 'reject'; feedback?: string } {
  if (!isObject(v) || (v.action !== 'accept' && v.action !== 'reject'))
    throw validation('resumeValue.action', 'expected accept or reject');
  return { action: v.action, ...(typeof v.feedback === 'string' ? { feedback: v.feedback } : {}) };
}

type FieldRule =
  | 'string'
  | 'number'
  | 'integer>=0'
  | 'integer>=1'
  | 'object'
  | 'object-of-strings'
  | 'reasoning';

/** The sections of v2's `configurable` (schemas/v2/configurable.schema.json) and their closed keys. */
const CONFIGURABLE_SECTIONS: Readonly<Record<string, Readonly<Record<string, FieldRule>>>> = {
  run: {
    recursionLimit: 'integer>=1',
    runTimeoutMs: 'integer>=1',
    maxLoopIterations: 'integer>=1',
    escalationThreshold: 'integer>=0',
  },
  ai: {
    provider: 'string',
    model: 'string',
    temperature: 'number',
    maxTokens: 'integer>=1',
    credentialRef: 'string',
    promptOverrides: 'object-of-strings',
    mockProvider: 'object',
    reasoningVerbosity: 'reasoning',
    maxRefusals: 'integer>=0',
  },
  distillation: { tokenBudget: 'integer>=1' },
};

function fieldProblem(rule: FieldRule, v: unknown): string | undefined {
  switch (rule) {
    case 'string':
      return typeof v === 'string' ? undefined : 'expected a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'expected a number';
    case 'integer>=0':
      return Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : 'expected an integer >= 0';
    case 'integer>=1':
      return Number.isSafeInteger(v) && (v as number) >= 1 ? undefined : 'expected an integer >= 1';
    case 'object':
      return isObject(v) ? undefined : 'expected an object';
    case 'object-of-strings':
      return isObject(v) && Object.values(v).every((x) => typeof x === 'string')
        ? undefined
        : 'expected an object of strings';
    case 'reasoning':
      return v === 'none' || v === 'summary' || v === 'full' ? undefined : 'expected none, summary or full';
  }
}

/**
 * v2's `configurable`: `{version: 1, run?, ai?, distillation?, budget?, extensions?}`, every
 * section closed (an unknown or dotted key such as `ai.provider` is refused, naming it); vendor
 * settings live under `extensions.<org>`. Keel checks the shape; it acts on none of the settings.
 */
function checkConfigurable(c: Record<string, unknown>): void {
  if (c.version !== 1)
    throw validation('configurable.version', `expected 1, got ${JSON.stringify(c.version)}`);
  for (const [key, value] of Object.entries(c)) {
    const at = `configurable.${key}`;
    if (key === 'version') continue;
    if (key === 'budget') {
      if (!isObject(value)) throw validation(at, 'expected an object');
      continue;
    }
    if (key === 'extensions') {
      if (!isObject(value)) throw validation(at, 'expected an object');
      for (const [org, ext] of Object.entries(value)) {
        if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(org))
          throw validation(
            `${at}.${org}`,
            'expected an organisation name (lower-case letters, digits, dashes)',
          );
        if (!isObject(ext)) throw validation(`${at}.${org}`, 'expected an object');
      }
      continue;
    }
    const section = CONFIGURABLE_SECTIONS[key];
    if (!section)
      throw validation(at, 'unknown field (configurable is closed; vendor keys go under extensions.<org>)');
    if (!isObject(value)) throw validation(at, 'expected an object');
    for (const [field, v] of Object.entries(value)) {
      const rule = section[field];
      if (!rule)
        throw validation(`${at}.${field}`, 'unknown field (a dotted key is not a path: nest it instead)');
      const problem = fieldProblem(rule, v);
      if (problem) throw validation(`${at}.${field}`, problem);
    }
  }
}
