/**
 * Validation of a workflow spec value: every rule, every problem at once, then a clean spec.
 *
 * Owns the top-level rules (id, version, status, triggers, limits, env) and the assembly of a
 * detached `WorkflowSpec` with defaults applied (triggers [], args {}; optional null = absent).
 * Never returns a partially valid spec: any problem throws one `spec_invalid` listing them all.
 */

import { isKeelError } from '../errors.ts';
import { isUsdAmount } from '../money.ts';
import { type JsonSchema, validateValue } from '../tools/index.ts';
import { checkSteps } from './check-flow.ts';
import { checkJsonValue } from './check-json-value.ts';
import { checkValueLimits, limitError, measureText, SPEC_LIMITS } from './input-limits.ts';
import { readPromotion, readSimulation, readTests } from './lifecycle-spec.ts';
import { parseCondition } from './parse-condition.ts';
import { readSchedule, SCHEDULE_EVENT } from './schedule-trigger.ts';
import {
  checkKeys,
  expectMapping,
  field,
  isMapping,
  type Obj,
  readPositiveInt,
  readString,
  SpecChecker,
} from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import {
  isWorkflowStatus,
  type SpecOptions,
  type TriggerSpec,
  WORKFLOW_STATUSES,
  type WorkflowLimits,
  type WorkflowSpec,
} from './workflow-spec.ts';

const TOP_KEYS = [
  'id',
  'version',
  'status',
  'description',
  'triggers',
  'steps',
  'limits',
  'env',
  'inputDefaults',
  'tests',
  'promotion',
  'simulation',
] as const;
const TRIGGER_KEYS = ['event', 'when', 'payloadSchema', 'schedule'] as const;
const LIMIT_KEYS = ['maxSteps', 'maxCostUsd'] as const;
const SPEC_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;
/** An environment variable name a spec may list under `env:`. */
export const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** A workflow id as a spec may declare it: lowercase letters, digits, `.`, `_`, `-`; at most 128. */
export function isSpecId(s: unknown): s is string {
  return typeof s === 'string' && SPEC_ID.test(s);
}

/**
 * Validates an already-parsed value (e.g. JSON over HTTP). Problems carry no line numbers. The
 * value is measured against `SPEC_LIMITS` first (its JSON size included): `payload_too_large`.
 */
export function validateSpec(value: unknown, file: string, options: SpecOptions = {}): WorkflowSpec {
  checkValueLimits(value, SPEC_LIMITS, file);
  const size = measureText(jsonText(value), SPEC_LIMITS);
  if (size) throw limitError(size, file);
  const c = new SpecChecker(file);
  const spec = buildSpec(c, value, options);
  if (c.found > 0 || !spec) throw c.error();
  return spec;
}

/** The value as JSON text, to measure; '' when it is not JSON (a cycle, a bigint: validation names it). */
function jsonText(value: unknown): string {
  try {
    // Bounded in depth and keys (checked first), so this is cheap and cannot overflow the stack.
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Validates into a checker (`parseSpec` passes one that locates fields); undefined on any problem. */
export function buildSpec(c: SpecChecker, value: unknown, options: SpecOptions): WorkflowSpec | undefined {
  if (!isMapping(value)) {
    const expected = 'a workflow spec mapping (id, version, status, steps, limits)';
    c.report([], `expected ${expected}, got ${describeValue(value)}`);
    return undefined;
  }
  const top = value;
  checkKeys(c, top, [], TOP_KEYS);
  const id = readString(c, top, ['id'], {
    what: 'an id of lowercase letters, digits, ".", "_" or "-" (at most 128, starting with a letter or digit)',
    pattern: SPEC_ID,
  });
  const version = readPositiveInt(c, top, ['version'], 'a positive whole number');
  const status = readStatus(c, top);
  const description = readString(c, top, ['description'], {
    what: 'a string',
    optional: true,
    allowEmpty: true,
  });
  const env = readEnv(c, top);
  const inputDefaults = readInputDefaults(c, top);
  const triggers = readTriggers(c, field(top, 'triggers'));
  const { steps, layout } = checkSteps(c, field(top, 'steps'), env ?? [], options);
  const limits = readLimits(c, field(top, 'limits'), layout?.longest ?? 0);
  const schedules = triggers.flatMap((t) => (t.schedule ? [t.schedule] : []));
  const tests = readTests(c, top, layout ? [...layout.byName.keys()] : [], schedules);
  const promotion = readPromotion(c, top);
  const simulation = readSimulation(c, top);
  if (c.found > 0) return undefined;
  return {
    id: id!,
    version: version!,
    status: status!,
    ...(description === undefined ? {} : { description }),
    triggers,
    steps,
    limits: limits!,
    ...(env === undefined ? {} : { env }),
    ...(inputDefaults === undefined ? {} : { inputDefaults }),
    ...(tests === undefined ? {} : { tests }),
    ...(promotion === undefined ? {} : { promotion }),
    ...(simulation === undefined ? {} : { simulation }),
  };
}

function readInputDefaults(c: SpecChecker, top: Obj): Record<string, unknown> | undefined {
  const raw = field(top, 'inputDefaults');
  if (raw === undefined) return undefined;
  const obj = expectMapping(c, raw, ['inputDefaults']);
  return obj === undefined
    ? undefined
    : (checkJsonValue(c, obj, ['inputDefaults']) as Record<string, unknown>);
}

function readStatus(c: SpecChecker, top: Obj): WorkflowSpec['status'] | undefined {
  const v = field(top, 'status');
  const expected = `one of ${WORKFLOW_STATUSES.join(', ')}`;
  if (v === undefined) c.missing(['status'], expected);
  else if (!isWorkflowStatus(v)) c.report(['status'], `expected ${expected}, got ${describeValue(v)}`);
  else return v;
  return undefined;
}

function readTriggers(c: SpecChecker, raw: unknown): TriggerSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    c.report(['triggers'], `expected a list of triggers, got ${describeValue(raw)}`);
    return [];
  }
  const out: TriggerSpec[] = [];
  raw.forEach((t, i) => {
    const obj = expectMapping(c, t, ['triggers', i]);
    if (!obj) return;
    checkKeys(c, obj, ['triggers', i], TRIGGER_KEYS);
    if (obj.schedule !== undefined) {
      // A trigger is either `event:` (with `when`, `payloadSchema`) or `schedule:`, never both.
      for (const k of ['event', 'when', 'payloadSchema'])
        if (obj[k] !== undefined)
          c.report(
            ['triggers', i, k],
            `a schedule trigger has no ${k}: a trigger is either event: or schedule:`,
          );
      const schedule = readSchedule(c, obj.schedule, ['triggers', i, 'schedule']);
      if (schedule) out.push({ event: SCHEDULE_EVENT, schedule });
      return;
    }
    const event = readString(c, obj, ['triggers', i, 'event'], { what: 'an event type' });
    const when = readString(c, obj, ['triggers', i, 'when'], { what: 'a condition', optional: true });
    if (when !== undefined) checkCondition(c, when, i);
    const payloadSchema = readPayloadSchema(c, obj.payloadSchema, i);
    if (event !== undefined) {
      out.push({
        event,
        ...(when !== undefined ? { when } : {}),
        ...(payloadSchema !== undefined ? { payloadSchema } : {}),
      });
    }
  });
  return out;
}

/** A trigger's optional payload schema: a mapping that compiles as a JSON Schema of an object. */
function readPayloadSchema(c: SpecChecker, raw: unknown, i: number): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  const path = ['triggers', i, 'payloadSchema'];
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  if (obj.type !== undefined && obj.type !== 'object') {
    c.report(
      [...path, 'type'],
      `an event payload is a mapping: expected type object, got ${describeValue(obj.type)}`,
    );
    return undefined;
  }
  try {
    validateValue(obj as JsonSchema, {});
  } catch (e) {
    c.report(path, `not a valid JSON Schema: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  return structuredClone(obj) as Record<string, unknown>;
}

function checkCondition(c: SpecChecker, src: string, i: number): void {
  try {
    parseCondition(src);
  } catch (e) {
    if (!isKeelError(e)) throw e;
    const position = typeof e.details.position === 'number' ? e.details.position : 0;
    c.report(['triggers', i, 'when'], e.message, { charIndex: position });
  }
}

function readLimits(c: SpecChecker, raw: unknown, stepCount: number): WorkflowLimits | undefined {
  if (raw === undefined) {
    c.missing(['limits'], 'a mapping with maxSteps and maxCostUsd');
    return undefined;
  }
  const obj = expectMapping(c, raw, ['limits']);
  if (!obj) return undefined;
  checkKeys(c, obj, ['limits'], LIMIT_KEYS);
  const maxSteps = readPositiveInt(c, obj, ['limits', 'maxSteps'], 'a positive whole number');
  if (maxSteps !== undefined && maxSteps < stepCount) {
    c.report(
      ['limits', 'maxSteps'],
      `${maxSteps} is fewer than the ${stepCount} steps a run can take; such a run could never finish`,
    );
  }
  const cost = field(obj, 'maxCostUsd');
  const what = 'a number >= 0 with at most 2 decimals';
  if (cost === undefined) c.missing(['limits', 'maxCostUsd'], what);
  else if (!isUsdAmount(cost))
    c.report(['limits', 'maxCostUsd'], `expected ${what}, got ${describeValue(cost)}`);
  if (maxSteps === undefined || !isUsdAmount(cost)) return undefined;
  return { maxSteps, maxCostUsd: cost + 0 };
}

function readEnv(c: SpecChecker, top: Obj): string[] | undefined {
  const raw = field(top, 'env');
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    c.report(['env'], `expected a list of environment variable names, got ${describeValue(raw)}`);
    return undefined;
  }
  const seen = new Set<string>();
  raw.forEach((name, i) => {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      c.report(['env', i], `expected an UPPER_CASE variable name (A-Z, 0-9, _), got ${describeValue(name)}`);
    } else if (seen.has(name)) {
      c.report(['env', i], `duplicate name "${name}"`);
    } else {
      seen.add(name);
    }
  });
  return [...seen];
}
