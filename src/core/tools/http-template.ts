/**
 * The templates of an HTTP tool's URL, headers and body: `{{args.path}}` reads an argument,
 * `{{args}}` the whole argument object (a JSON body leaf only), `{{idempotencyKey}}` the step's
 * idempotency key, `{{secret.NAME}}` a secret the
 * adapter reads from the environment at call time. Rendering is pure: the secret values are
 * handed in, go only into the request it returns, and `secretMask` (secret-mask.ts) masks them in anything
 * else (an error, a response excerpt, an output).
 */
import { canonicalize } from '../canonical/index.ts';

export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'arg'; readonly path: readonly string[] }
  | { readonly kind: 'args-whole' }
  | { readonly kind: 'secret'; readonly name: string }
  /** `{{idempotencyKey}}`: the step's idempotency key (derived from run, step and attempt). */
  | { readonly kind: 'key' };

export type TemplateParse =
  | { readonly ok: true; readonly parts: TemplatePart[] }
  | { readonly ok: false; readonly problem: string };

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** An HTTP header's name (RFC 9110 token), at most 100 characters. */
export const HTTP_HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function parseHttpTemplate(text: string): TemplateParse {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      parts.push({ kind: 'text', text: text.slice(i) });
      break;
    }
    if (open > i) parts.push({ kind: 'text', text: text.slice(i, open) });
    const close = text.indexOf('}}', open + 2);
    if (close < 0) return { ok: false, problem: `"{{" at ${open} is never closed by "}}"` };
    const ref = text.slice(open + 2, close).trim();
    if (ref === 'args') parts.push({ kind: 'args-whole' });
    else if (ref === 'idempotencyKey') parts.push({ kind: 'key' });
    else if (ref.startsWith('args.')) {
      const path = ref.slice(5).split('.');
      if (path.some((s) => !SEGMENT.test(s)))
        return { ok: false, problem: `{{${ref}}}: not an argument path` };
      parts.push({ kind: 'arg', path });
    } else if (ref.startsWith('secret.')) {
      const name = ref.slice(7);
      if (!SECRET_NAME.test(name))
        return { ok: false, problem: `{{${ref}}}: expected an environment variable name` };
      parts.push({ kind: 'secret', name });
    } else {
      return {
        ok: false,
        problem: `{{${ref}}}: a template reads only args.<name>, secret.<NAME> or idempotencyKey`,
      };
    }
    i = close + 2;
  }
  return { ok: true, parts: parts.length === 0 ? [{ kind: 'text', text: '' }] : parts };
}

/** A header whose value is a template. */
export interface HeaderTemplate {
  readonly name: string;
  readonly value: readonly TemplatePart[];
}

/**
 * A mapping of header names to templates, checked: each name a valid header name and none that
 * the sender sets itself (`reserved`, lower-case, refused with `reservedWhy`), each value a string
 * that `template` parses and checks for what that header may read. `bad` throws.
 */
export function parseHeaderTemplates(
  value: unknown,
  field: string,
  o: {
    readonly reserved: ReadonlySet<string>;
    readonly reservedWhy: string;
    readonly template: (field: string, text: string) => readonly TemplatePart[];
  },
  bad: (field: string, problem: string) => never,
): HeaderTemplate[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return bad(field, 'expected a mapping of header names to templates');
  return Object.entries(value).map(([h, v]) => {
    const f = `${field}.${h}`;
    if (!HTTP_HEADER_NAME.test(h)) bad(f, 'not a valid header name');
    if (o.reserved.has(h.toLowerCase())) bad(f, o.reservedWhy);
    if (typeof v !== 'string') bad(f, 'expected a string template');
    return { name: h, value: o.template(f, v as string) };
  });
}

/** A string leaf of a JSON body template, parsed. */
export class TemplateLeaf {
  constructor(readonly parts: readonly TemplatePart[]) {}
}

/** What rendering reads: the arguments and the secrets' values by name. */
export interface RenderInput {
  readonly args: Readonly<Record<string, unknown>>;
  readonly secrets: ReadonlyMap<string, string>;
  /** The call's idempotency key, for `{{idempotencyKey}}` (empty when absent). */
  readonly idempotencyKey?: string;
}

function argAt(args: Readonly<Record<string, unknown>>, path: readonly string[]): unknown {
  let v: unknown = args;
  for (const s of path) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, s)) return undefined;
    v = (v as Record<string, unknown>)[s];
  }
  return v;
}

/** A value as text in a template: strings as they are, anything else as canonical JSON, absent as "". */
function asText(v: unknown): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : canonicalize(v);
}

/** Renders a text template; `encode` applies to every substituted value (URL components). */
export function renderText(
  parts: readonly TemplatePart[],
  input: RenderInput,
  encode: (s: string) => string = (s) => s,
): string {
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') out += p.text;
    else if (p.kind === 'arg') out += encode(asText(argAt(input.args, p.path)));
    else if (p.kind === 'args-whole') out += encode(canonicalize(input.args));
    else if (p.kind === 'key') out += encode(input.idempotencyKey ?? '');
    else out += encode(secretValue(input, p.name));
  }
  return out;
}

function secretValue(input: RenderInput, name: string): string {
  const v = input.secrets.get(name);
  if (v === undefined) throw new Error(`secret ${name} was not read before rendering`);
  return v;
}

/**
 * Renders a JSON body template: a leaf that is exactly one `{{args.x}}` (or `{{args}}`) keeps the
 * argument's JSON type (an absent one drops its key), any other leaf becomes a string.
 */
export function renderJson(template: unknown, input: RenderInput): unknown {
  if (template instanceof TemplateLeaf) {
    const [only, ...rest] = template.parts;
    if (only && rest.length === 0 && only.kind === 'arg') return argAt(input.args, only.path);
    if (only && rest.length === 0 && only.kind === 'args-whole') return input.args;
    return renderText(template.parts, input);
  }
  if (Array.isArray(template)) return template.map((x) => renderJson(x, input) ?? null);
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(template)) {
      const v = renderJson(x, input);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  return template;
}
