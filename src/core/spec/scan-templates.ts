/**
 * Template syntax in step args: `{{ path }}` inside strings, and what each path refers to.
 *
 * Owns splitting a string into text and templates and classifying every path into an event field,
 * an earlier step's output or a declared source (clock.now, random.float, random.hex, id.new, env.NAME).
 * Never resolves values and never draws from a source; it only says what a template names.
 */
import { isEventScalarField } from './event-like.ts';
import type { PathSegment } from './read-path.ts';

export type SourceRef = { source: 'clock' | 'random' | 'id' | 'env'; name?: string };

/** What a template names. Event paths are relative to the event; step paths to the step's output. */
export type TemplateRef =
  | { readonly root: 'event'; readonly path: readonly PathSegment[] }
  | { readonly root: 'step'; readonly step: string; readonly path: readonly PathSegment[] }
  | { readonly root: 'source'; readonly ref: SourceRef }
  /**
   * Any other name: the item of an enclosing `forEach` (`{{ line.amount }}`, its `as:` naming it).
   * Whether a loop in scope declares the name is the spec check's (an unknown one is refused there).
   */
  | { readonly root: 'item'; readonly name: string; readonly path: readonly PathSegment[] };

export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'template'; readonly path: string; readonly ref: TemplateRef }
  | { readonly kind: 'invalid'; readonly path: string; readonly message: string };

export interface ScannedString {
  readonly parts: readonly TemplatePart[];
  /** Exactly one template and nothing else: the value keeps the referenced value's JSON type. */
  readonly whole: boolean;
}

const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(0|[1-9][0-9]{0,8})\]/y;
const HEAD = /[A-Za-z_][A-Za-z0-9_]*/y;
const FIXED_SOURCES: Record<string, SourceRef> = {
  'clock.now': { source: 'clock', name: 'now' },
  'random.float': { source: 'random', name: 'float' },
  'random.hex': { source: 'random', name: 'hex' },
  'id.new': { source: 'id', name: 'new' },
};
const ROOTS_HINT =
  'use event.<field>, steps.<name>.output, clock.now, random.float, random.hex, id.new or env.<NAME>';

export function hasTemplate(s: string): boolean {
  return s.includes('{{');
}

/** Splits a string into literal text and templates (valid or not). */
export function scanTemplates(s: string): ScannedString {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < s.length) {
    const open = s.indexOf('{{', i);
    if (open < 0) break;
    if (open > i) parts.push({ kind: 'text', text: s.slice(i, open) });
    const close = s.indexOf('}}', open + 2);
    if (close < 0) {
      parts.push({
        kind: 'invalid',
        path: s.slice(open + 2).trim(),
        message: 'template is not closed with "}}"',
      });
      i = s.length;
      break;
    }
    parts.push(templatePart(s.slice(open + 2, close).trim()));
    i = close + 2;
  }
  if (i < s.length) parts.push({ kind: 'text', text: s.slice(i) });
  return { parts, whole: parts.length === 1 && parts[0]!.kind !== 'text' };
}

function templatePart(path: string): TemplatePart {
  const r = parseTemplatePath(path);
  return typeof r === 'string' ? { kind: 'invalid', path, message: r } : { kind: 'template', path, ref: r };
}

/** Parses a template path (the text between the braces); returns a message when it is invalid. */
export function parseTemplatePath(text: string): TemplateRef | string {
  if (text === '') return 'empty template';
  HEAD.lastIndex = 0;
  const head = HEAD.exec(text);
  if (!head) return `"${text}" is not a path; ${ROOTS_HINT}`;
  const segs: PathSegment[] = [head[0]];
  let i = head[0].length;
  while (i < text.length) {
    SEGMENT.lastIndex = i;
    const m = SEGMENT.exec(text);
    if (!m) return `"${text}" is not a path: unexpected "${text.slice(i)}"`;
    segs.push(m[1] ?? Number(m[2]));
    i = SEGMENT.lastIndex;
  }
  return classify(text, segs);
}

function classify(text: string, segs: PathSegment[]): TemplateRef | string {
  const [root, ...rest] = segs;
  if (root === 'event') return eventRef(rest);
  if (root === 'steps') {
    const [step, output, ...path] = rest;
    if (typeof step !== 'string' || output !== 'output') {
      return `"${text}": read a step's result as steps.<name>.output or steps.<name>.output.<field>`;
    }
    return { root: 'step', step, path };
  }
  if (root === 'env') {
    const [name, ...more] = rest;
    if (typeof name !== 'string' || more.length > 0) return `"${text}": read a variable as env.<NAME>`;
    return { root: 'source', ref: { source: 'env', name } };
  }
  // Own entries only: `toString`, `constructor` or `__proto__` name no source.
  const fixed = Object.hasOwn(FIXED_SOURCES, text) ? FIXED_SOURCES[text] : undefined;
  if (fixed) return { root: 'source', ref: { ...fixed } };
  if (root === 'clock' || root === 'random' || root === 'id') {
    const forms = Object.keys(FIXED_SOURCES).filter((k) => k.startsWith(`${root}.`));
    return `"${text}": the ${root} source is read as ${forms.join(' or ')}`;
  }
  // A name every object inherits (`toString`, `__proto__`) names no item: it is no template path.
  if (typeof root !== 'string' || root in Object.prototype)
    return `unknown template root "${String(root)}"; ${ROOTS_HINT}`;
  return { root: 'item', name: root, path: rest };
}

/** What a template whose root names no loop item in scope is told. */
export function unknownRootMessage(name: string): string {
  return `unknown template root "${name}"; ${ROOTS_HINT} (or, inside a forEach, its item as named by as:)`;
}

function eventRef(rest: PathSegment[]): TemplateRef | string {
  const [field, ...more] = rest;
  if (field === undefined || field === 'payload') return { root: 'event', path: rest };
  if (typeof field === 'string' && isEventScalarField(field)) {
    if (more.length > 0) return `"event.${field}" is a string and has no fields`;
    return { root: 'event', path: rest };
  }
  return `unknown event field "${String(field)}"; events have payload, subject, type, source, tenant, id and time`;
}
