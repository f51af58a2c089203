/**
 * The templates of a hook's event mapping: `{{body}}` (the parsed body), `{{body.ticket.id}}`,
 * `{{body.items[0].sku}}` and `{{headers.x-delivery-id}}` (header names lower-cased, as HTTP
 * treats them). A string that is exactly one template keeps the value's JSON type; text around
 * templates makes a string. Rendering is pure and reads only own data fields (read-path.ts); a
 * template that finds nothing is a problem naming the mapping field, never an empty string.
 */
import { canonicalize } from '../canonical/index.ts';
import { MISSING, type PathSegment, readPath } from '../spec/index.ts';
import { HTTP_HEADER_NAME } from '../tools/index.ts';

export type HookRef =
  | { readonly root: 'body'; readonly path: readonly PathSegment[] }
  | { readonly root: 'headers'; readonly name: string };

export type HookTemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'ref'; readonly ref: HookRef; readonly source: string };

/** A parsed template: a string leaf of a mapping. */
export class HookTemplate {
  constructor(readonly parts: readonly HookTemplatePart[]) {}
  /** Exactly one template and nothing else. */
  get whole(): boolean {
    return this.parts.length === 1 && this.parts[0]!.kind === 'ref';
  }
}

const SEGMENT = /\.([A-Za-z0-9_$-]+)|\[(0|[1-9][0-9]{0,8})\]/y;

/** Parses one reference (the text between the braces); a string is the problem. */
function parseRef(text: string): HookRef | string {
  if (text === 'body') return { root: 'body', path: [] };
  if (text.startsWith('headers.')) {
    const name = text.slice('headers.'.length);
    if (!HTTP_HEADER_NAME.test(name)) return `{{${text}}}: expected headers.<header name>`;
    return { root: 'headers', name: name.toLowerCase() };
  }
  if (!text.startsWith('body.') && !text.startsWith('body[')) {
    return `{{${text}}}: a hook template reads body, body.<path> or headers.<name>`;
  }
  const path: PathSegment[] = [];
  let i = 'body'.length;
  while (i < text.length) {
    SEGMENT.lastIndex = i;
    const m = SEGMENT.exec(text);
    if (!m) return `{{${text}}}: not a path at "${text.slice(i)}" (use .name or [index])`;
    path.push(m[1] ?? Number(m[2]));
    i = SEGMENT.lastIndex;
  }
  return { root: 'body', path };
}

/** Parses a template string; a string result is the problem. */
export function parseHookTemplate(s: string): HookTemplate | string {
  const parts: HookTemplatePart[] = [];
  let i = 0;
  while (i < s.length) {
    const open = s.indexOf('{{', i);
    if (open < 0) break;
    if (open > i) parts.push({ kind: 'text', text: s.slice(i, open) });
    const close = s.indexOf('}}', open + 2);
    if (close < 0) return `"{{" at ${open} is never closed by "}}"`;
    const source = s.slice(open + 2, close).trim();
    const ref = parseRef(source);
    if (typeof ref === 'string') return ref;
    parts.push({ kind: 'ref', ref, source });
    i = close + 2;
  }
  if (i < s.length) parts.push({ kind: 'text', text: s.slice(i) });
  return new HookTemplate(parts);
}

/** What a delivery's templates read: the parsed body and the headers by lower-case name. */
export interface DeliveryScope {
  readonly body: unknown;
  readonly headers: ReadonlyMap<string, string>;
}

/** Rendering's outcome: a value, or the template that found nothing. */
export type Rendered =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly missing: string };

function lookup(ref: HookRef, scope: DeliveryScope): unknown {
  if (ref.root === 'headers') return scope.headers.get(ref.name) ?? MISSING;
  return readPath(scope.body, ref.path);
}

/** Renders one template: a whole template keeps the value's type; text makes a string. */
export function renderHookTemplate(t: HookTemplate, scope: DeliveryScope): Rendered {
  if (t.whole) {
    const p = t.parts[0] as Extract<HookTemplatePart, { kind: 'ref' }>;
    const v = lookup(p.ref, scope);
    return v === MISSING ? { ok: false, missing: `{{${p.source}}}` } : { ok: true, value: v };
  }
  let out = '';
  for (const p of t.parts) {
    if (p.kind === 'text') {
      out += p.text;
      continue;
    }
    const v = lookup(p.ref, scope);
    if (v === MISSING) return { ok: false, missing: `{{${p.source}}}` };
    out += typeof v === 'string' ? v : canonicalize(v);
  }
  return { ok: true, value: out };
}

/** Parses a JSON value whose string leaves are templates; `bad` is told each problem and its path. */
export function parseTemplateValue(
  v: unknown,
  path: readonly PathSegment[],
  bad: (path: readonly PathSegment[], problem: string) => void,
): unknown {
  if (typeof v === 'string') {
    const t = parseHookTemplate(v);
    if (typeof t === 'string') {
      bad(path, t);
      return v;
    }
    return t;
  }
  if (Array.isArray(v)) return v.map((x, i) => parseTemplateValue(x, [...path, i], bad));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: parseTemplateValue(x, [...path, k], bad),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

/**
 * Renders a template value: a whole template that finds nothing leaves its key out (a list item
 * becomes a problem), text that finds nothing is a problem; `path` names the field in problems.
 */
export function renderTemplateValue(
  v: unknown,
  scope: DeliveryScope,
  path: string,
): { ok: true; value: unknown } | { ok: false; field: string; missing: string } {
  if (v instanceof HookTemplate) {
    const r = renderHookTemplate(v, scope);
    if (r.ok) return r;
    return v.whole ? { ok: true, value: undefined } : { ok: false, field: path, missing: r.missing };
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const [i, x] of v.entries()) {
      const r = renderTemplateValue(x, scope, `${path}[${i}]`);
      if (!r.ok) return r;
      if (r.value === undefined)
        return { ok: false, field: `${path}[${i}]`, missing: (x as HookTemplate).parts.map(show).join('') };
      out.push(r.value);
    }
    return { ok: true, value: out };
  }
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = renderTemplateValue(x, scope, `${path}.${k}`);
      if (!r.ok) return r;
      if (r.value !== undefined)
        Object.defineProperty(out, k, {
          value: r.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return { ok: true, value: out };
  }
  return { ok: true, value: v };
}

const show = (p: HookTemplatePart) => (p.kind === 'text' ? p.text : `{{${p.source}}}`);
