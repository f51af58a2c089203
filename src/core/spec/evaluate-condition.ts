/**
 * Evaluating a parsed condition against an event: total, deterministic, never throws.
 *
 * Semantics: a missing field equals null (and only null) under ==/!=; <, <=, >, >= hold only
 * between two numbers or two strings (code-unit order, no locale), so any other pairing, missing
 * fields included, is false. A bare operand means "is truthy" (JS truthiness; missing is false).
 * Objects and arrays compare structurally. Never reads anything but the value it is given (an
 * event, or the facts a policy evaluates against).
 */
import type { EventLike } from './event-like.ts';
import type { CompareOp, Condition, Operand } from './parse-condition.ts';
import { MISSING, readPath } from './read-path.ts';

/** The data a condition's paths read: an event, or any plain JSON mapping (policy facts). */
export type ConditionRoot = EventLike | Readonly<Record<string, unknown>>;

export function evaluateCondition(c: Condition, event: ConditionRoot): boolean {
  switch (c.kind) {
    case 'or':
      return c.items.some((item) => evaluateCondition(item, event));
    case 'and':
      return c.items.every((item) => evaluateCondition(item, event));
    case 'not':
      return !evaluateCondition(c.item, event);
    case 'truthy':
      return isTruthy(operandValue(c.operand, event));
    case 'compare':
      return compare(c.op, operandValue(c.left, event), operandValue(c.right, event));
  }
}

function operandValue(o: Operand, event: ConditionRoot): unknown {
  return o.kind === 'literal' ? o.value : readPath(event, o.path);
}

function isTruthy(v: unknown): boolean {
  if (v === MISSING) return false;
  return typeof v === 'object' ? v !== null : Boolean(v);
}

function compare(op: CompareOp, a: unknown, b: unknown): boolean {
  if (op === '==') return jsonEqual(a, b);
  if (op === '!=') return !jsonEqual(a, b);
  const bothNumbers = typeof a === 'number' && typeof b === 'number';
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  if (!bothNumbers && !bothStrings) return false;
  const x = a as number | string;
  const y = b as number | string;
  if (op === '<') return x < y;
  if (op === '<=') return x <= y;
  if (op === '>') return x > y;
  return x >= y;
}

/** Strict equality for scalars, structural for arrays/objects; MISSING counts as null. */
function jsonEqual(a: unknown, b: unknown, depth = 0): boolean {
  const x = a === MISSING ? null : a;
  const y = b === MISSING ? null : b;
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || depth > 100) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  try {
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    return kx.every(
      (k) =>
        Object.hasOwn(y, k) &&
        jsonEqual(
          readPath(x, [Array.isArray(x) ? Number(k) : k]),
          readPath(y, [Array.isArray(y) ? Number(k) : k]),
          depth + 1,
        ),
    );
  } catch {
    return false;
  }
}
