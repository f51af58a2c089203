/**
 * RFC 8785 (JCS) canonical JSON.
 *
 * Owns the one byte form that every hash in Keel is computed over. Refuses, with the path of the
 * offending value, anything that has no single JSON meaning: NaN, ±Infinity, -0, integers outside
 * the safe range, lone UTF-16 surrogates, `undefined`, functions, symbols, bigints and non-plain
 * objects. Never falls back to a lossy encoding: two values, one hash, would break the ledger.
 */
import { ErrorCode, KeelError } from '../errors.ts';
import { RecentStrings } from './recent-strings.ts';

/** JSON values Keel can hash. */
export type Canonical =
  | null
  | boolean
  | number
  | string
  | readonly Canonical[]
  | { readonly [k: string]: Canonical };

/** Canonical forms of deep-frozen values, by identity: they cannot change, so neither can their form. */
const KNOWN = new WeakMap<object, string>();

/**
 * Deep-freezes `value` and remembers its canonical form, so every later `canonicalize` (and hash)
 * of a value containing it splices that text in instead of encoding it again. For large values
 * recorded over and over (a writ chain in every run's root). Throws like `canonicalize`.
 */
export function freezeCanonical<T extends object>(value: T): T {
  const text = canonicalize(value);
  deepFreeze(value);
  KNOWN.set(value, text);
  return value;
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

export function canonicalize(value: unknown): string {
  try {
    return fast(value, 0);
  } catch (e) {
    if (e !== SLOW) throw e;
    // Something is off (or very deep): the careful encoder finds it and names its path.
    return encode(value, '$', new Set());
  }
}

/**
 * The JSON forms of recently encoded large strings. One large string is encoded many times in a
 * run (a 100 KiB answer: in its event's check, the run's id, each entry holding it and its blob,
 * the step's proposal id), and encoding is a pure function of the string. Well-formed strings
 * only: one with a lone surrogate is never kept, so it still fails with its path.
 */
const LARGE_STRINGS = new RecentStrings<string>(4096, 16, 4 * 1024 * 1024);

/** Thrown by the fast encoder when the careful one must take over. */
const SLOW = Symbol('slow');
const MAX_FAST_DEPTH = 256;

/**
 * The hot path: no path strings, no cycle set. Any value it is unsure of (and nesting deeper than
 * MAX_FAST_DEPTH, which also catches cycles) sends the whole value to `encode`.
 */
function fast(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string': {
      const known = LARGE_STRINGS.get(value);
      if (known !== undefined) return known;
      if (LONE_SURROGATE.test(value)) throw SLOW;
      const text = JSON.stringify(value);
      LARGE_STRINGS.set(value, text);
      return text;
    }
    case 'number':
      if (
        !Number.isFinite(value) ||
        Object.is(value, -0) ||
        (Number.isInteger(value) && !Number.isSafeInteger(value))
      ) {
        throw SLOW;
      }
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      const known = KNOWN.get(value);
      if (known !== undefined) return known;
      if (depth > MAX_FAST_DEPTH) throw SLOW;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          out += fast(value[i], depth + 1);
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw SLOW;
      // Keys and values in one pass each (no keyed load per key: payloads come in many shapes),
      // visited in key order (UTF-16 code units, as RFC 8785 and Array.prototype.sort order them).
      const keys = Object.keys(value);
      const values = Object.values(value);
      const order = keyOrder(keys);
      let out = '{';
      for (let i = 0; i < order.length; i++) {
        const at = order[i]!;
        const k = keys[at]!;
        if (LONE_SURROGATE.test(k)) throw SLOW;
        if (i > 0) out += ',';
        out += `${JSON.stringify(k)}:${fast(values[at], depth + 1)}`;
      }
      return `${out}}`;
    }
    default:
      throw SLOW;
  }
}

/** Indexes of `keys` in sorted key order: insertion sort for the handful of keys most objects have. */
function keyOrder(keys: readonly string[]): number[] {
  if (keys.length > 16) return keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
  const order: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i;
    while (j > 0 && keys[order[j - 1]!]! > k) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = i;
  }
  return order;
}

function fail(path: string, problem: string): never {
  throw new KeelError(ErrorCode.canonicalInvalid, `cannot canonicalize ${path}: ${problem}`, {
    path,
    problem,
  });
}

// In `u` mode a well-formed surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function encodeString(s: string, path: string): string {
  if (LONE_SURROGATE.test(s)) fail(path, 'string contains a lone surrogate');
  return JSON.stringify(s);
}

function encodeNumber(n: number, path: string): string {
  if (!Number.isFinite(n)) fail(path, `${n} is not a finite number`);
  if (Object.is(n, -0)) fail(path, '-0 has no canonical form; use 0');
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    fail(path, `${n} is outside the safe integer range; use a decimal string`);
  }
  // ECMAScript Number serialisation is exactly what RFC 8785 prescribes.
  return JSON.stringify(n);
}

/** `ancestors` holds the objects and arrays on the path to `value`, so a cycle is refused, not overflowed. */
function encode(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return encodeString(value, path);
    case 'number':
      return encodeNumber(value, path);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (ancestors.has(value)) fail(path, 'the value contains itself (a cycle)');
      if (Array.isArray(value)) {
        ancestors.add(value);
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          // Holes in sparse arrays read as undefined and are refused like any other undefined.
          out += encode(value[i], `${path}[${i}]`, ancestors);
        }
        ancestors.delete(value);
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        fail(path, `${proto?.constructor?.name ?? 'object'} is not a plain JSON object`);
      }
      const obj = value as Record<string, unknown>;
      // Default sort compares UTF-16 code units, which is the order RFC 8785 §3.2.3 requires.
      const keys = Object.keys(obj).sort();
      ancestors.add(obj);
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (i > 0) out += ',';
        out += `${encodeString(k, `${path}.${k}`)}:${encode(obj[k], `${path}.${k}`, ancestors)}`;
      }
      ancestors.delete(obj);
      return `${out}}`;
    }
    case 'undefined':
      return fail(path, 'undefined has no JSON form; omit the field or use null');
    default:
      return fail(path, `a ${typeof value} has no JSON form`);
  }
}
