/**
 * The size limits Keel enforces on what it is handed: workflow specs (text or value), events and
 * request bodies. Each input is measured before anything costly runs on it (parsing past the
 * byte limit, validation, hashing, recursion), and a breach is one `payload_too_large` error that
 * names the limit, its value and where it was crossed.
 *
 * Owns the limit tables, the measuring walk (iterative: a value nested a million levels deep is
 * measured without recursion) and the short excerpts of input that error messages may echo.
 * Never changes the value measured; stops at the first breach, so measuring is bounded by the limits.
 */
import { ErrorCode, KeelError } from '../errors.ts';
import { visibleText } from '../visible-text.ts';
import type { PathSegment } from './read-path.ts';
import { formatFieldPath } from './spec-problem.ts';

export interface InputLimits {
  /** UTF-8 bytes of the input as sent or stored. */
  readonly maxBytes: number;
  /** Nesting of mappings and lists (a scalar at the top is depth 0, `{a: 1}` is depth 1). */
  readonly maxDepth: number;
  /** Mapping keys and list items in the whole input, at every depth (each counts one). */
  readonly maxKeys: number;
  /** Characters (UTF-16 units) in one string, keys included. */
  readonly maxStringLength: number;
}

export type LimitName = keyof InputLimits;

/**
 * A workflow spec: a reviewed document, small by nature (the support desk's are under 1 KiB). The
 * key limit also bounds parsing time (see measureSeparators): a few tens of milliseconds at most.
 */
export const SPEC_LIMITS: InputLimits = {
  maxBytes: 256 * 1024,
  maxDepth: 32,
  maxKeys: 5_000,
  maxStringLength: 64 * 1024,
};

/** A JSON request body or an event (its payload included). */
export const JSON_LIMITS: InputLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: 64,
  maxKeys: 50_000,
  maxStringLength: 1024 * 1024,
};

/** Where and how an input crossed a limit. */
export interface LimitBreach {
  readonly limit: LimitName;
  readonly max: number;
  /** What was measured, when known exactly (bytes, a string's length); depth and keys stop at max + 1. */
  readonly got?: number;
  /** The field where it was crossed (`steps[0].args.a`), or '' for the whole input. */
  readonly field: string;
  /** The same, as a path (for locating it in a source text). */
  readonly path: readonly PathSegment[];
  /** How it was measured, when not by the value itself (`counted before parsing: ...`). */
  readonly note?: string;
}

const WHAT: Record<LimitName, string> = {
  maxBytes: 'bytes',
  maxDepth: 'levels of nesting',
  maxKeys: 'keys and list items in all',
  maxStringLength: 'characters in one string',
};

/** UTF-8 length of a string, without allocating its encoding. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The byte-size breach of a text, if any. */
export function measureText(text: string, limits: InputLimits): LimitBreach | undefined {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: most texts are judged without counting.
  if (text.length * 3 <= limits.maxBytes) return undefined;
  const bytes = utf8Length(text);
  return bytes > limits.maxBytes
    ? { limit: 'maxBytes', max: limits.maxBytes, got: bytes, field: '', path: [] }
    : undefined;
}

/**
 * Before a text is parsed, its keys and list items are bounded by what could separate them: each
 * one after the first of its mapping or list needs a line break or a comma. More than twice
 * `maxKeys` of those is refused unread (as maxKeys), so parsing — a few microseconds per token —
 * stays short whatever the text; measureValue counts exactly afterwards.
 */
export function measureSeparators(text: string, limits: InputLimits): LimitBreach | undefined {
  const budget = 2 * limits.maxKeys;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x2c) n++;
  }
  if (n <= budget) return undefined;
  return {
    limit: 'maxKeys',
    max: limits.maxKeys,
    field: '',
    path: [],
    note: `counted before parsing: ${n} line breaks and commas, more than twice the limit`,
  };
}

/**
 * The first breach of depth, key count or string length in a plain value, if any. The walk is
 * iterative and stops at the first breach, so it is bounded by the limits, whatever the value
 * (a YAML alias makes a value a graph; each visit counts, so an alias bomb breaches maxKeys; a
 * cycle is left for validation to name).
 */
export function measureValue(value: unknown, limits: InputLimits): LimitBreach | undefined {
  const stack: { v: unknown; path: PathSegment[] }[] = [{ v: value, path: [] }];
  let keys = 0;
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { v, path } = top;
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength) return breachAt('maxStringLength', limits, path, v.length);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= limits.maxDepth) {
      // A value that contains itself (a YAML alias inside its own anchor) is not deep, it is
      // invalid: validation names it. Its branch is not measured further.
      if (isCycle(value, path)) continue;
      return breachAt('maxDepth', limits, path);
    }
    const list = Array.isArray(v);
    keys += list ? v.length : Object.keys(v).length;
    if (keys > limits.maxKeys) return breachAt('maxKeys', limits, path);
    const ks: readonly PathSegment[] = list ? Array.from(v, (_, i) => i) : Object.keys(v);
    for (let i = ks.length - 1; i >= 0; i--) {
      const k = ks[i]!;
      if (typeof k === 'string' && k.length > limits.maxStringLength)
        return breachAt('maxStringLength', limits, [...path, k], k.length);
      stack.push({ v: (v as Record<PathSegment, unknown>)[k], path: [...path, k] });
    }
  }
  return undefined;
}

/** True when the containers along `path` from `root` repeat (the value at `path` is its own ancestor). */
function isCycle(root: unknown, path: readonly PathSegment[]): boolean {
  const seen = new Set<unknown>();
  let v = root;
  for (const seg of path) {
    if (seen.has(v)) return true;
    seen.add(v);
    v = (v as Record<PathSegment, unknown>)[seg];
  }
  return seen.has(v);
}

function breachAt(limit: LimitName, limits: InputLimits, path: PathSegment[], got?: number): LimitBreach {
  return { limit, max: limits[limit], ...(got === undefined ? {} : { got }), field: fieldOf(path), path };
}

/** `payload_too_large` for a breach: `<what>: <field>: more than 32 levels of nesting (limit maxDepth)`. */
export function limitError(
  breach: LimitBreach,
  what: string,
  where: { line?: number; column?: number } = {},
): KeelError {
  const at =
    where.line === undefined ? '' : `:${where.line}${where.column === undefined ? '' : `:${where.column}`}`;
  const field = breach.field === '' ? '' : ` ${breach.field}:`;
  const got =
    breach.got === undefined
      ? `more than ${breach.max}`
      : `${breach.got}, more than the ${breach.max} allowed`;
  const note = breach.note === undefined ? '' : `; ${breach.note}`;
  return new KeelError(
    ErrorCode.payloadTooLarge,
    `${what}${at}:${field} ${got} ${WHAT[breach.limit]} (limit ${breach.limit}${note})`,
    {
      limit: breach.limit,
      max: breach.max,
      ...(breach.got === undefined ? {} : { got: breach.got }),
      field: breach.field === '' ? '(body)' : breach.field,
      ...where,
    },
  );
}

/** Throws `payload_too_large` when `value` breaches `limits`. */
export function checkValueLimits(value: unknown, limits: InputLimits, what: string): void {
  const breach = measureValue(value, limits);
  if (breach) throw limitError(breach, what);
}

/** Field paths in messages are excerpts too: a key of a megabyte is not echoed whole. */
function fieldOf(path: readonly PathSegment[]): string {
  return formatFieldPath(path.map((s) => (typeof s === 'string' ? excerpt(s, 40) : s)));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * At most `max` characters of an input string, for an error message (`abc…`), and well formed:
 * a lone surrogate (which has no UTF-8 form, so no canonical form) is shown as U+FFFD.
 */
export function excerpt(s: string, max = 60): string {
  let out = s;
  if (s.length > max) {
    // Never cut a surrogate pair in half.
    let end = max - 1;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    out = `${s.slice(0, end)}…`;
  }
  return out.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * A short JSON rendering of any input value for a message: strings excerpted (their direction
 * controls shown as escapes, visible-text.ts), containers summarised.
 */
export function quoteInput(v: unknown, max = 60): string {
  if (typeof v === 'string') {
    const q = visibleText(JSON.stringify(excerpt(v, max)));
    return v.length > max ? `${q} (${v.length} characters)` : q;
  }
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a mapping';
  if (v === undefined) return 'nothing';
  return excerpt(String(v), max);
}
