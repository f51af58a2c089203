/**
 * Step args must be plain JSON that canonical form accepts; this finds, by field, what is not.
 *
 * Reports non-finite numbers, -0, unsafe integers, lone surrogates, cycles (YAML aliases can make
 * them) and non-plain objects, and returns a detached plain copy. Never coerces a bad value.
 */
import { isWellFormed } from './is-well-formed.ts';
import type { PathSegment } from './read-path.ts';
import type { SpecChecker } from './spec-checker.ts';

export function checkJsonValue(
  c: SpecChecker,
  v: unknown,
  path: PathSegment[],
  ancestors: Set<object> = new Set(),
): unknown {
  switch (typeof v) {
    case 'string':
      if (!isWellFormed(v)) c.report(path, 'string contains a lone surrogate (invalid Unicode)');
      return v;
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) c.report(path, `${v} is not a JSON number`);
      else if (Object.is(v, -0)) c.report(path, '-0 is not allowed; use 0');
      else if (Number.isInteger(v) && !Number.isSafeInteger(v)) {
        c.report(path, `${v} is too large to be exact; use a string for big numbers`);
      }
      return v;
    case 'object': {
      if (v === null) return null;
      if (ancestors.has(v)) {
        c.report(path, 'refers to itself (a YAML alias inside its own anchor)');
        return null;
      }
      const proto = Object.getPrototypeOf(v);
      if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
        c.report(path, 'is not a plain JSON value');
        return null;
      }
      ancestors.add(v);
      const out = Array.isArray(v)
        ? v.map((x, i) => checkJsonValue(c, x, [...path, i], ancestors))
        : copyObject(c, v, path, ancestors);
      ancestors.delete(v);
      return out;
    }
    default:
      c.report(path, `a ${typeof v} is not a JSON value`);
      return null;
  }
}

function copyObject(
  c: SpecChecker,
  v: object,
  path: PathSegment[],
  ancestors: Set<object>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (!isWellFormed(k))
      c.report([...path, k], 'key contains a lone surrogate (invalid Unicode)', { at: 'key' });
    const value = checkJsonValue(c, x, [...path, k], ancestors);
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
