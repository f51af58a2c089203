/**
 * Argument validation against a tool's JSON Schema (keel-ajv.ts: draft 2020-12, exact multipleOf).
 *
 * Turns ajv's errors into problems a person can act on: `{field, problem, expected, got}` with
 * `problem` one of a small fixed vocabulary. Validators are compiled once per descriptor and cached.
 * Pure: validation never mutates the arguments (no defaults, no coercion).
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { keelAjv } from './keel-ajv.ts';
import type { JsonSchema, ToolDescriptor } from './tool-descriptor.ts';

export type ArgProblemKind =
  | 'missing'
  | 'type_mismatch'
  | 'out_of_range'
  | 'not_allowed'
  | 'unexpected'
  | 'invalid_format'
  | 'invalid';

export interface ArgProblem {
  readonly field: string;
  readonly problem: ArgProblemKind;
  readonly expected: string;
  readonly got: string;
}

/**
 * Problems of a proposal's arguments. A value `opaque` recognises (a secret's reference, whose
 * clear value only the tool call sees) is judged as a string by its type alone: what its value
 * must hold beyond that (length, pattern, format, enum) is checked at the call.
 */
export function validateArgs(
  tool: ToolDescriptor,
  args: Record<string, unknown>,
  opaque?: (v: unknown) => boolean,
): ArgProblem[] {
  if (!opaque) return validateValue(tool.args, args);
  const paths = new Set<string>();
  const judged = standIn(args, opaque, '', paths);
  if (paths.size === 0) return validateValue(tool.args, args);
  return problemsOf(tool.args, judged, (e) => e.keyword === 'type' || !paths.has(e.instancePath));
}

/** `value` with every opaque value replaced by a string; `paths` learns their JSON Pointers. */
function standIn(value: unknown, opaque: (v: unknown) => boolean, at: string, paths: Set<string>): unknown {
  if (opaque(value)) {
    paths.add(at);
    return '(opaque)';
  }
  if (Array.isArray(value)) return value.map((x, i) => standIn(x, opaque, `${at}/${i}`, paths));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(value)) {
    const pointer = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    Object.defineProperty(out, k, {
      value: standIn(x, opaque, pointer, paths),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

const bySchema = new WeakMap<object, ValidateFunction>();

function compiled(schema: JsonSchema): ValidateFunction {
  let validate = bySchema.get(schema);
  if (!validate) {
    validate = keelAjv.compile(schema);
    bySchema.set(schema, validate);
  }
  return validate;
}

/** Problems of `value` against a JSON Schema (compiled once per schema object). */
export function validateValue(schema: JsonSchema, value: unknown): ArgProblem[] {
  return problemsOf(schema, value, () => true);
}

function problemsOf(schema: JsonSchema, value: unknown, keep: (e: ErrorObject) => boolean): ArgProblem[] {
  const validate = compiled(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).filter(keep).map((e) => toProblem(e, value));
}

/**
 * A problem with where it is, for callers that judge problems by place (the spec checker, which
 * knows which argument values are only placeholders until a run resolves them).
 */
export interface LocatedArgProblem extends ArgProblem {
  /** The field the problem is about, as a path under the arguments (the missing one for `missing`). */
  readonly path: readonly (string | number)[];
  /** The JSON Schema keyword that failed (`type`, `required`, `anyOf`...). */
  readonly keyword: string;
  /** Where in the schema: `#/properties/a/anyOf/0/type`. */
  readonly schemaPath: string;
}

export function validateValueAt(schema: JsonSchema, value: unknown): LocatedArgProblem[] {
  const validate = compiled(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => {
    const p = e.params as Record<string, unknown>;
    const child =
      e.keyword === 'required'
        ? String(p.missingProperty)
        : e.keyword === 'additionalProperties'
          ? String(p.additionalProperty)
          : undefined;
    return {
      ...toProblem(e, value),
      path: pathOf(value, e.instancePath, child),
      keyword: e.keyword,
      schemaPath: e.schemaPath,
    };
  });
}

/** `/items/0/note` under `root` -> `['items', 0, 'note']` (an index where the container is a list). */
function pathOf(root: unknown, instancePath: string, child?: string): (string | number)[] {
  const out: (string | number)[] = [];
  let v: unknown = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(v) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : undefined;
    out.push(index ?? key);
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  }
  if (child !== undefined) out.push(child);
  return out;
}

/** `/items/0/note` -> `items[0].note` */
function fieldOf(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) {
    const key = p.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  }
  return out === '' ? '(arguments)' : out;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let v: unknown = root;
  for (const p of instancePath.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  const shown = JSON.stringify(v);
  return `${typeof v} ${shown.length > 40 ? `${shown.slice(0, 37)}...` : shown}`;
}

function toProblem(e: ErrorObject, args: unknown): ArgProblem {
  const got = describe(valueAt(args, e.instancePath));
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return {
        field: fieldOf(e.instancePath, String(p.missingProperty)),
        problem: 'missing',
        expected: 'a value',
        got: 'nothing',
      };
    case 'type':
      return { field: fieldOf(e.instancePath), problem: 'type_mismatch', expected: String(p.type), got };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return {
        field: fieldOf(e.instancePath),
        problem: 'out_of_range',
        expected: `${e.keyword} ${String(p.limit)}`,
        got,
      };
    case 'enum':
      return {
        field: fieldOf(e.instancePath),
        problem: 'not_allowed',
        expected: `one of ${JSON.stringify(p.allowedValues)}`,
        got,
      };
    case 'const':
      return {
        field: fieldOf(e.instancePath),
        problem: 'not_allowed',
        expected: `exactly ${JSON.stringify(p.allowedValue)}`,
        got,
      };
    case 'additionalProperties':
      return {
        field: fieldOf(e.instancePath, String(p.additionalProperty)),
        problem: 'unexpected',
        expected: 'no such field',
        got: describe(valueAt(args, `${e.instancePath}/${String(p.additionalProperty)}`)),
      };
    case 'format':
      return {
        field: fieldOf(e.instancePath),
        problem: 'invalid_format',
        expected: `format ${String(p.format)}`,
        got,
      };
    default:
      return { field: fieldOf(e.instancePath), problem: 'invalid', expected: e.message ?? e.keyword, got };
  }
}

/** "amount_usd: missing (expected a value)" */
export function formatArgProblem(p: ArgProblem): string {
  return p.problem === 'missing'
    ? `${p.field} is missing`
    : `${p.field}: ${p.problem.replaceAll('_', ' ')} (expected ${p.expected}, got ${p.got})`;
}
