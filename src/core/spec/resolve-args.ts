/**
 * Resolving templates in step args against an event, earlier step outputs and declared sources.
 *
 * A whole-value template keeps the referenced value's JSON type; a missing one leaves the field
 * absent so schema validation reports it as `missing`. Interpolated templates must resolve to text.
 * Sources are drawn only after every non-source reference resolved, once per occurrence, in
 * canonical key order: a refused resolution draws nothing. Never mutates its inputs.
 */
import type { EventLike } from './event-like.ts';
import { MISSING, type PathSegment, readPath } from './read-path.ts';
import { type SourceRef, scanTemplates, type TemplateRef } from './scan-templates.ts';
import { isSecretRef } from './secret-env.ts';
import { describeValue, formatFieldPath } from './spec-problem.ts';

export interface TemplateScope {
  event: EventLike;
  /** Outputs of completed earlier steps. */
  steps: Record<string, { output: unknown }>;
  /** Inside a forEach iteration: its item, by the loop's `as:` name (`{{ line.amount }}`). */
  items?: Readonly<Record<string, unknown>>;
  /** Called only when a template references a source, once per reference occurrence. */
  draw: (ref: SourceRef) => unknown;
}

export type ResolveProblem = { field: string; problem: 'unresolved'; message: string };
export type ResolveResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; problems: ResolveProblem[] };

const ABSENT = Symbol('absent');
const DEFERRED = Symbol('deferred');

interface Pass {
  scope: TemplateScope;
  /** False on the dry pass: sources are not drawn, their values are DEFERRED. */
  draw: boolean;
  problems: ResolveProblem[];
}

export function resolveArgs(args: Record<string, unknown>, scope: TemplateScope): ResolveResult {
  const dry: Pass = { scope, draw: false, problems: [] };
  resolveValue(args, [], dry);
  if (dry.problems.length > 0) return { ok: false, problems: dry.problems };
  const real: Pass = { scope, draw: true, problems: [] };
  const value = resolveValue(args, [], real);
  if (real.problems.length > 0) return { ok: false, problems: real.problems };
  return { ok: true, value: value as Record<string, unknown> };
}

function resolveValue(v: unknown, path: PathSegment[], pass: Pass): unknown {
  if (typeof v === 'string') return v.includes('{{') ? resolveString(v, path, pass) : v;
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    return v.map((item, i) => {
      const r = resolveValue(item, [...path, i], pass);
      if (r !== ABSENT) return r;
      problem(
        pass,
        [...path, i],
        `${describeTemplate(item)} has no value, and a list item cannot be left out`,
      );
      return null;
    });
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const r = resolveValue((v as Record<string, unknown>)[k], [...path, k], pass);
    if (r !== ABSENT)
      Object.defineProperty(out, k, { value: r, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function resolveString(s: string, path: PathSegment[], pass: Pass): unknown {
  const { parts, whole } = scanTemplates(s);
  if (whole && parts[0]!.kind === 'template') {
    const v = lookup(parts[0]!.ref, pass);
    return v === MISSING ? ABSENT : v;
  }
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') {
      out += p.text;
    } else if (p.kind === 'invalid') {
      problem(pass, path, `invalid template "{{ ${p.path} }}": ${p.message}`);
    } else {
      const v = lookup(p.ref, pass);
      if (v === MISSING) problem(pass, path, `"{{ ${p.path} }}" has no value`);
      else if (typeof v === 'string') out += v;
      else if (typeof v === 'number' || typeof v === 'boolean') out += String(v);
      else if (isSecretRef(v)) {
        // A version published before the name counted as a secret (validation refuses this now).
        problem(
          pass,
          path,
          `"{{ ${p.path} }}" is the secret ${v.env}, which cannot be put into text (Keel records only its hash); use it as the whole value of an argument`,
        );
      } else if (v !== DEFERRED) {
        problem(
          pass,
          path,
          `"{{ ${p.path} }}" is ${describeValue(v)}, which cannot be put into text; use it as the whole value`,
        );
      }
    }
  }
  return out;
}

function lookup(ref: TemplateRef, pass: Pass): unknown {
  const { scope } = pass;
  if (ref.root === 'event') return copyJson(readPath(scope.event, ref.path));
  if (ref.root === 'step') {
    if (!Object.hasOwn(scope.steps, ref.step)) return MISSING;
    return copyJson(readPath(scope.steps[ref.step], ['output', ...ref.path]));
  }
  if (ref.root === 'item') {
    if (!scope.items || !Object.hasOwn(scope.items, ref.name)) return MISSING;
    return copyJson(readPath(scope.items[ref.name], ref.path));
  }
  if (!pass.draw) return DEFERRED;
  const v = scope.draw({ ...ref.ref });
  return v === undefined ? MISSING : copyJson(v);
}

/** Detached copy of plain JSON data, so resolved args never alias the event or a step output. */
function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    Object.defineProperty(out, k, {
      value: copyJson(x),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function describeTemplate(item: unknown): string {
  return typeof item === 'string' ? `"${item.trim()}"` : 'the template';
}

function problem(pass: Pass, path: PathSegment[], message: string): void {
  pass.problems.push({ field: formatFieldPath(path), problem: 'unresolved', message });
}
