/**
 * Reading a value at a path inside plain JSON data, for conditions and templates.
 *
 * Owns the one rule for "is this field there": own enumerable data of plain objects, array indexes
 * by number only. Never reads prototypes (`constructor`, `__proto__`), never runs getters' side
 * effects into an exception: anything unreadable is simply MISSING.
 */

/** The absence of a value: distinct from `null`, which is a value. */
export const MISSING: unique symbol = Symbol('missing');
export type Missing = typeof MISSING;

/** One step of a path: a field name, or an array index. */
export type PathSegment = string | number;

/** The value at `path` under `root`, or MISSING. `undefined` reads as MISSING. */
export function readPath(root: unknown, path: readonly PathSegment[]): unknown | Missing {
  let cur: unknown = root;
  for (const seg of path) {
    cur = readField(cur, seg);
    if (cur === MISSING) return MISSING;
  }
  return cur === undefined ? MISSING : cur;
}

function readField(container: unknown, seg: PathSegment): unknown | Missing {
  try {
    if (typeof container !== 'object' || container === null) return MISSING;
    if (Array.isArray(container)) {
      if (typeof seg !== 'number' || seg >= container.length) return MISSING;
      const v: unknown = container[seg];
      return v === undefined ? MISSING : v;
    }
    if (typeof seg !== 'string' || !Object.hasOwn(container, seg)) return MISSING;
    const desc = Object.getOwnPropertyDescriptor(container, seg);
    if (!desc || !('value' in desc) || desc.value === undefined) return MISSING;
    return desc.value;
  } catch {
    // Proxies and other exotic objects may throw on inspection; an unreadable field is absent.
    return MISSING;
  }
}
