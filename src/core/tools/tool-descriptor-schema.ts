/**
 * The one JSON Schema (draft 2020-12) of a tool descriptor's declared fields, shared by every way a
 * tool is declared: a tool pack's definitions (registration), a tools file's HTTP tools and its MCP
 * overrides (which may set a subset: TOOL_OVERRIDE_SCHEMA). Both formats therefore accept exactly
 * the same forms, of cost above all: a USD amount per call (`cost: 0.05`, the shorthand of
 * `{fixedUsd: 0.05}`) or `{fixedUsd, fromArg, fromResult}`, amounts with at most 2 decimals.
 *
 * Owns the schema and turning its first violation into `{field, problem}` a person can act on
 * (an unknown key names the nearest known one). Pure; what the schema cannot say (contradictions
 * between fields, a cost argument the argument schema lacks) is checked in tool-descriptor.ts.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { MAX_USD } from '../money.ts';
import { isNear } from '../spec/spec-checker.ts';
import { describeValue, formatFieldPath } from '../spec/spec-problem.ts';
import { keelAjv } from './keel-ajv.ts';

export const TOOL_EFFECTS = ['read', 'write', 'external'] as const;
export const TOOL_APPROVALS = ['always'] as const;

/** A tool's name: what steps call it by. */
export const TOOL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

const USD = {
  type: 'number',
  minimum: 0,
  maximum: MAX_USD,
  multipleOf: 0.01,
  description: 'a USD amount >= 0 with at most 2 decimals (0.05, 12, 19.99)',
} as const;

const COST_FORMS = 'a USD amount per call (0.05) or {fixedUsd, fromArg, fromResult}';

/** The JSON Schema of a tool descriptor as it is declared (before `cost: 0.05` is normalised). */
export const TOOL_DESCRIPTOR_SCHEMA = {
  // Draft 2020-12 (no `$schema` key: naming the default draft only makes ajv compile slower).
  title: 'Keel tool descriptor',
  type: 'object',
  required: ['name', 'description', 'args', 'destructive', 'effect', 'idempotent', 'scopes'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      pattern: TOOL_NAME_RE.source,
      description: 'a name like "issue_refund": a letter or _, then up to 127 letters, digits, _ . -',
    },
    description: { type: 'string', description: 'a string saying what the tool does' },
    args: { type: 'object', description: 'a JSON Schema with type "object" (the arguments)' },
    result: { type: 'object', description: 'a JSON Schema (a mapping) the result must satisfy' },
    effect: { enum: [...TOOL_EFFECTS], description: `one of ${TOOL_EFFECTS.join(', ')}` },
    destructive: { type: 'boolean', description: 'true or false' },
    idempotent: { type: 'boolean', description: 'true or false' },
    scopes: {
      type: 'array',
      items: { type: 'string', minLength: 1, description: 'a non-empty string' },
      description: 'a list of non-empty strings',
    },
    cost: {
      if: { type: 'number' },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else
      then: { $ref: '#/$defs/usd' },
      else: { $ref: '#/$defs/cost' },
      description: COST_FORMS,
    },
    approval: { enum: [...TOOL_APPROVALS], description: '"always" or nothing' },
  },
  $defs: {
    usd: USD,
    cost: {
      type: 'object',
      additionalProperties: false,
      properties: {
        fixedUsd: USD,
        fromArg: {
          type: 'string',
          pattern: '^[A-Za-z0-9_-]+$',
          description: 'the name of one top-level argument holding a USD amount (amount_usd)',
        },
        fromResult: {
          type: 'string',
          pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$',
          description: 'a field path of the result holding a USD amount (usage.cost_usd)',
        },
      },
      description: COST_FORMS,
    },
  },
} as const;

/** The fields an MCP tool's override may set, with the same schema as a descriptor's. */
export const OVERRIDE_FIELDS = ['effect', 'destructive', 'idempotent', 'approval', 'cost'] as const;

export const TOOL_OVERRIDE_SCHEMA = {
  title: 'Keel MCP tool override',
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(OVERRIDE_FIELDS.map((f) => [f, TOOL_DESCRIPTOR_SCHEMA.properties[f]])),
  $defs: TOOL_DESCRIPTOR_SCHEMA.$defs,
} as const;

/** A field (`cost.fixedUsd`, `scopes[1]`) and what is wrong with it. */
export interface FieldProblem {
  readonly field: string;
  readonly problem: string;
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * The build's generated check of TOOL_DESCRIPTOR_SCHEMA beside this module
 * (descriptor-schema-code.ts), or undefined where there is none (run from the sources): then ajv
 * compiles the schema, as the build did to generate it.
 */
function precompiledDescriptorCheck(): ValidateFunction | undefined {
  try {
    // The same name as DESCRIPTOR_SCHEMA_MODULE (not imported: that module loads ajv's code generator).
    return createRequire(import.meta.url)('./tool-descriptor-schema.cjs') as ValidateFunction;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

/**
 * The first problem of `value` against `schema` (one of the schemas above), or undefined.
 * `alsoKnown` are keys accepted beside the schema's (a definition's `handler`), for suggestions.
 */
export function schemaProblem(
  schema: { readonly [k: string]: unknown },
  value: unknown,
  alsoKnown: readonly string[] = [],
): FieldProblem | undefined {
  let validate = compiled.get(schema);
  if (!validate) {
    validate =
      (schema === TOOL_DESCRIPTOR_SCHEMA ? precompiledDescriptorCheck() : undefined) ??
      keelAjv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return undefined;
  const e = (validate.errors ?? []).find((x) => x.keyword !== 'if');
  return e ? problemOf(schema, e, value, alsoKnown) : { field: '(tool)', problem: 'invalid' };
}

function problemOf(
  root: { readonly [k: string]: unknown },
  e: ErrorObject,
  value: unknown,
  alsoKnown: readonly string[],
): FieldProblem {
  const path = pointer(e.instancePath);
  const at = subschema(root, e.schemaPath.split('/').slice(1, -1));
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    const key = String(p.additionalProperty);
    const known = [...Object.keys((at?.properties as object | undefined) ?? {}), ...alsoKnown];
    const near = known.find((k) => isNear(k, key));
    return {
      field: formatFieldPath([...path, key]),
      problem: near
        ? `unknown field; did you mean "${near}"?`
        : `unknown field (expected ${known.join(', ')})`,
    };
  }
  if (e.keyword === 'required') {
    const key = String(p.missingProperty);
    const want = (at?.properties as Record<string, { description?: string }> | undefined)?.[key]?.description;
    return { field: formatFieldPath([...path, key]), problem: `missing${want ? `: expected ${want}` : ''}` };
  }
  const want = typeof at?.description === 'string' ? at.description : e.message;
  return {
    field: formatFieldPath(path) || '(tool)',
    problem: `expected ${want}, got ${describeValue(valueAt(value, path))}`,
  };
}

function pointer(instancePath: string): (string | number)[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/** The schema at a schema path (`#/$defs/cost/properties/fixedUsd` without `#`), through `$ref`s. */
function subschema(
  root: { readonly [k: string]: unknown },
  segments: readonly string[],
): { readonly [k: string]: unknown } | undefined {
  let s: unknown = root;
  for (const seg of segments) {
    if (typeof s !== 'object' || s === null) return undefined;
    s = (s as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : undefined;
}

function valueAt(v: unknown, path: readonly (string | number)[]): unknown {
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}
