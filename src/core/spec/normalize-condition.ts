/**
 * A normal form of a parsed condition, so that two ways of writing the same test compare equal:
 * `and`/`or` flattened, their items deduplicated and sorted, `not` pushed inward (De Morgan,
 * double negation, `not (a == b)` is `a != b`), a comparison written with its field on the left
 * (`5 > payload.a` is `payload.a < 5`). Parentheses and quotes are already gone in the parse.
 *
 * Sound, not complete: every rewrite holds under evaluate-condition.ts's semantics for every
 * event, so equal normal forms always mean the same condition; two equivalent conditions may
 * still differ here. It never rewrites `not (a >= 5)` as `a < 5`: a missing or non-numeric field
 * makes the first true and the second false. Pure.
 */
import type { CompareOp, Condition, Operand } from './parse-condition.ts';
import { parseCondition } from './parse-condition.ts';

/** The comparison that holds when `x op y` does, with its operands swapped. */
const MIRROR: Record<CompareOp, CompareOp> = {
  '==': '==',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

/** A total order on conditions (their normal forms' JSON text). */
export const conditionKey = (c: Condition | Operand): string => JSON.stringify(c);

export function normalizeCondition(c: Condition): Condition {
  switch (c.kind) {
    case 'and':
    case 'or':
      return junction(c.kind, c.items.map(normalizeCondition));
    case 'not':
      return negate(normalizeCondition(c.item));
    case 'truthy':
      return { kind: 'truthy', operand: operand(c.operand) };
    case 'compare':
      return compare(c.op, operand(c.left), operand(c.right));
  }
}

/** Whether two condition texts are the same condition (by normal form); false if either does not parse. */
export function sameCondition(
  a: string,
  b: string,
  parse: (src: string) => Condition = parseCondition,
): boolean {
  try {
    return conditionKey(normalizeCondition(parse(a))) === conditionKey(normalizeCondition(parse(b)));
  } catch {
    return false;
  }
}

/** Flattened, without repeats, in key order; one item alone is that item. */
function junction(kind: 'and' | 'or', items: readonly Condition[]): Condition {
  const flat = items.flatMap((i) => (i.kind === kind ? i.items : [i]));
  const byKey = new Map(flat.map((i) => [conditionKey(i), i]));
  const sorted = [...byKey.keys()].sort().map((k) => byKey.get(k)!);
  return sorted.length === 1 ? sorted[0]! : { kind, items: sorted };
}

/** The normal form of `not c`, for `c` in normal form. */
function negate(c: Condition): Condition {
  switch (c.kind) {
    case 'not':
      return c.item;
    case 'and':
      return junction('or', c.items.map(negate));
    case 'or':
      return junction('and', c.items.map(negate));
    case 'compare':
      // `!=` is defined as not `==`; the ordering comparisons have no such complement.
      if (c.op === '==') return { ...c, op: '!=' };
      if (c.op === '!=') return { ...c, op: '==' };
      return { kind: 'not', item: c };
    case 'truthy':
      return { kind: 'not', item: c };
  }
}

function operand(o: Operand): Operand {
  return o.kind === 'path' ? { kind: 'path', path: [...o.path] } : { kind: 'literal', value: o.value };
}

/** A field before a literal; otherwise the smaller operand first (equality and order are symmetric). */
function compare(op: CompareOp, left: Operand, right: Operand): Condition {
  const swap = left.kind !== right.kind ? left.kind === 'literal' : conditionKey(left) > conditionKey(right);
  return swap
    ? { kind: 'compare', op: MIRROR[op], left: right, right: left }
    : { kind: 'compare', op, left, right };
}
