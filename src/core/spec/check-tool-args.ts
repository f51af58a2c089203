/**
 * A step's arguments against its tool's argument schema, before any run: what can already be
 * known to fail is a spec problem, not a refusal at run time.
 *
 * Literal values are checked exactly, and required arguments for presence. A template stands for
 * a value not known yet: where its JSON type is known (`{{event.subject}}` is a string, text with
 * a template in it is a string, an earlier step's output has its tool's result schema) only that
 * type is checked; where it is not known (`{{event.payload.x}}`, `env.NAME`, a model slot) nothing
 * about it is. A problem that could depend on a value not known yet (a length, a pattern, a
 * combinator such as anyOf) is never reported. Never resolves a template or calls a tool.
 */
import { type JsonSchema, type LocatedArgProblem, validateValueAt } from '../tools/index.ts';
import { isModelSlot } from './model-slots.ts';
import type { PathSegment } from './read-path.ts';
import { scanTemplates, type TemplateRef } from './scan-templates.ts';
import type { SpecChecker } from './spec-checker.ts';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** The schemas a tool declares: its arguments, and (when declared) what its output satisfies. */
export interface ToolSchemas {
  readonly args: JsonSchema;
  readonly result?: JsonSchema;
}

/** What stands in for a value a run will only know once it resolves the template. */
interface Placeholder {
  readonly path: readonly PathSegment[];
  /** The template as written, for messages. */
  readonly text: string;
  /** Its type, when known; undefined: nothing about it is known. */
  readonly type?: JsonType;
  /** It may resolve to nothing (a payload field the event lacks): its key is then left out. */
  readonly optional: boolean;
}

const SAMPLE: Record<JsonType, unknown> = {
  string: '',
  number: 0,
  integer: 0,
  boolean: false,
  object: {},
  array: [],
  null: null,
};

/** Keywords whose verdict on a mapping or list depends only on its keys and length, never on values. */
const STRUCTURAL = new Set([
  'type',
  'required',
  'additionalProperties',
  'minProperties',
  'maxProperties',
  'minItems',
  'maxItems',
  'propertyNames',
  'dependentRequired',
]);

/** Structural keywords whose failure leaving keys out cannot cure (an unexpected key is judged apart). */
const KEYS_CANNOT_CURE = new Set(['type', 'required', 'additionalProperties', 'minProperties']);

/** Keywords whose errors (or whose branches' errors) may hold only because a placeholder stood in. */
const COMBINATOR =
  /\/(anyOf|oneOf|allOf|not|if|then|else|contains|dependentSchemas|unevaluatedProperties|unevaluatedItems|prefixItems)(\/|$)/;

export interface StepToolContext {
  /** The step's field path (`steps[2]`, `steps[1].choose[0].steps[0]`). */
  readonly at: readonly PathSegment[];
  readonly tool: string;
  readonly schemas: ToolSchemas;
  /** The schemas of the tools of earlier steps, by step name (for `steps.<name>.output` types). */
  readonly earlier: ReadonlyMap<string, ToolSchemas | undefined>;
}

/** Reports, at `steps[i].args.<field>`, what of `args` cannot fit the tool's argument schema. */
export function checkToolArgs(c: SpecChecker, args: Record<string, unknown>, t: StepToolContext): void {
  const placeholders: Placeholder[] = [];
  const probe = probeOf(args, [], placeholders, t.earlier);
  let problems: LocatedArgProblem[];
  try {
    problems = validateValueAt(t.schemas.args, probe);
  } catch {
    // A schema ajv cannot compile is the tool's problem; the run's own check reports it.
    return;
  }
  for (const p of problems) {
    if (!isCertain(p, placeholders)) continue;
    const at: PathSegment[] = [...t.at, 'args', ...p.path];
    const stand = placeholders.find((h) => samePath(h.path, p.path));
    if (p.problem === 'missing') {
      c.report(at, `is missing; tool ${t.tool} requires it`, { locatePath: at.slice(0, -1) });
    } else if (stand) {
      c.report(
        at,
        `${stand.text} is always ${article(stand.type!)}, but tool ${t.tool} expects ${p.expected}`,
      );
    } else {
      c.report(at, `does not fit tool ${t.tool}: ${describeProblem(p)}`);
    }
  }
}

/** True when the problem holds whatever values the placeholders take once a run resolves them. */
function isCertain(p: LocatedArgProblem, placeholders: readonly Placeholder[]): boolean {
  if (placeholders.length > 0 && COMBINATOR.test(p.schemaPath)) return false;
  // The instance a `required` or `additionalProperties` problem is about is the mapping holding the key.
  const instance =
    p.keyword === 'required' || p.keyword === 'additionalProperties' ? p.path.slice(0, -1) : p.path;
  // Keys that may be left out once resolved: only a problem that fewer keys cannot cure still holds.
  const optional = placeholders.filter((h) => h.optional && samePath(h.path.slice(0, -1), instance));
  if (optional.length > 0) {
    if (p.keyword === 'additionalProperties' && optional.some((h) => samePath(h.path, p.path))) return false;
    if (!KEYS_CANNOT_CURE.has(p.keyword)) return false;
  }
  for (const h of placeholders) {
    if (samePath(h.path, instance)) {
      // The placeholder itself: only its type is known, and only when it is known.
      if (h.type === undefined || p.keyword !== 'type') return false;
    } else if (isUnder(instance, h.path)) {
      return false;
    } else if (isUnder(h.path, instance) && !STRUCTURAL.has(p.keyword)) {
      // A mapping or list holding a placeholder: only what its keys and length decide is certain.
      return false;
    }
  }
  // A missing argument whose mapping is a placeholder, or an unexpected key inside one, was handled
  // above; an unexpected key that IS a placeholder is still unexpected (its key is literal).
  return true;
}

/** A copy of `v` with each template replaced by a value of its known type (or a stand-in), noted. */
function probeOf(
  v: unknown,
  path: PathSegment[],
  out: Placeholder[],
  earlier: ReadonlyMap<string, ToolSchemas | undefined>,
): unknown {
  if (typeof v === 'string') {
    if (!v.includes('{{')) return v;
    const { parts, whole } = scanTemplates(v);
    const only = parts[0];
    const ref = whole && only?.kind === 'template' ? only.ref : undefined;
    const type = ref ? templateType(ref, earlier) : 'string';
    const optional = ref !== undefined && mayBeAbsent(ref);
    out.push({ path, text: JSON.stringify(v), optional, ...(type ? { type } : {}) });
    return type ? structuredClone(SAMPLE[type]) : null;
  }
  if (Array.isArray(v)) return v.map((x, i) => probeOf(x, [...path, i], out, earlier));
  if (typeof v === 'object' && v !== null) {
    if (path.length === 1 && isModelSlot(v)) {
      // A model slot: its value is whatever the model answers, checked against the slot's schema.
      out.push({ path, text: 'a model slot', optional: false });
      return null;
    }
    const copy: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(copy, k, {
        value: probeOf(x, [...path, k], out, earlier),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return v;
}

/** A whole-value template that may resolve to nothing: a field of the payload, or of a step's output. */
function mayBeAbsent(ref: TemplateRef): boolean {
  if (ref.root === 'event') return ref.path[0] === 'payload' && ref.path.length > 1;
  return (ref.root === 'step' || ref.root === 'item') && ref.path.length > 0;
}

const SOURCE_TYPES: Record<string, JsonType | undefined> = {
  'clock.now': 'string',
  'random.float': 'number',
  'random.hex': 'string',
  'id.new': 'string',
};

/** The JSON type a whole-value template always has, when a spec alone can tell. */
export function templateType(
  ref: TemplateRef,
  earlier: ReadonlyMap<string, ToolSchemas | undefined> = new Map(),
): JsonType | undefined {
  if (ref.root === 'source') {
    // env.NAME may be unset (null) or a secret (a reference, not the text): not known.
    const key = `${ref.ref.source}.${ref.ref.name ?? ''}`;
    return Object.hasOwn(SOURCE_TYPES, key) ? SOURCE_TYPES[key] : undefined;
  }
  if (ref.root === 'event') {
    const [field, ...rest] = ref.path;
    if (field === undefined) return 'object';
    if (field === 'payload') return rest.length === 0 ? 'object' : undefined;
    return 'string';
  }
  // A loop's item: whatever the list held, not known from the spec.
  if (ref.root === 'item') return undefined;
  const schemas = earlier.get(ref.step);
  return schemas?.result ? schemaTypeAt(schemas.result, ref.path) : undefined;
}

/** The single type the schema promises at `path` (through properties and items), if it promises one. */
function schemaTypeAt(schema: unknown, path: readonly PathSegment[]): JsonType | undefined {
  let s: unknown = schema;
  for (const seg of path) {
    if (typeof s !== 'object' || s === null) return undefined;
    const o = s as Record<string, unknown>;
    if (typeof seg === 'number') s = o.items;
    else {
      const props = o.properties;
      s =
        typeof props === 'object' && props !== null && Object.hasOwn(props, seg)
          ? (props as Record<string, unknown>)[seg]
          : undefined;
    }
  }
  if (typeof s !== 'object' || s === null) return undefined;
  const type = (s as Record<string, unknown>).type;
  return typeof type === 'string' && Object.hasOwn(SAMPLE, type) && !hasCombinator(s)
    ? (type as JsonType)
    : undefined;
}

/** A schema whose type another keyword may narrow or widen (a `$ref`, a combinator) is not trusted. */
function hasCombinator(s: object): boolean {
  return ['$ref', '$dynamicRef', 'anyOf', 'oneOf', 'allOf', 'not', 'if'].some((k) => Object.hasOwn(s, k));
}

function describeProblem(p: LocatedArgProblem): string {
  return `${p.problem.replaceAll('_', ' ')} (expected ${p.expected}, got ${p.got})`;
}

function article(type: JsonType): string {
  return type === 'array' || type === 'integer' || type === 'object' ? `an ${type}` : `a ${type}`;
}

function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** True when `a` lies strictly under `b`. */
function isUnder(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length > b.length && b.every((s, i) => s === a[i]);
}
