/**
 * The comparisons of a draft's test with a literal, as they act on an event: `payload.claim_type
 * != "home"`, `payload.score < 85`, at any depth, with an operator under a "not" turned (`not
 * (payload.plan == "premium")` leaves premium out, as `!=` does) and a literal written first read
 * the other way round (`85 > payload.score` is `payload.score < 85`). The draft-level checks read
 * tests through this one parse (never-runs.ts, dropped-exclusions.ts, constants-over-events.ts,
 * alternatives-not-said.ts) rather than each through a pattern of its own. Pure.
 */
import type { CompareOp, Condition, Literal } from '../spec/parse-condition.ts';
import { parseStepCondition } from '../spec/step-condition.ts';

export interface Comparison {
  /** The path compared, dotted: `payload.claim_type`. */
  readonly path: string;
  readonly op: CompareOp;
  readonly value: Literal;
  /** Whether it holds whenever the test does: the test itself, or an item of its top-level "and". */
  readonly stated: boolean;
}

/** The operator that holds exactly when `op` does not. */
const TURNED: Record<CompareOp, CompareOp> = {
  '==': '!=',
  '!=': '==',
  '<': '>=',
  '>=': '<',
  '>': '<=',
  '<=': '>',
};
/** The operator read with its operands swapped: `85 > x` is `x < 85`. */
const SWAPPED: Record<CompareOp, CompareOp> = {
  '==': '==',
  '!=': '!=',
  '<': '>',
  '>': '<',
  '<=': '>=',
  '>=': '<=',
};

/** The comparisons of `test` with a literal; none where it does not parse. */
export function comparisonsOf(test: string): Comparison[] {
  const c = parsed(test);
  return c ? comparisonsIn(c, false, true) : [];
}

/** A path tested for one of several values: `category == "spam" or category == "abuse"`. */
export interface Alternatives {
  readonly path: string;
  readonly values: readonly Literal[];
}

/** Each "or" of `test` (not under a "not") that tests one path for two values or more. */
export function alternativesOf(test: string): Alternatives[] {
  const out: Alternatives[] = [];
  const walk = (c: Condition) => {
    if (c.kind !== 'and' && c.kind !== 'or') return;
    c.items.forEach(walk);
    if (c.kind === 'and') return;
    const equal = c.items.flatMap((i) => (i.kind === 'compare' ? comparisonsIn(i, false, true) : []));
    for (const path of new Set(equal.filter((e) => e.op === '==').map((e) => e.path))) {
      const values = equal.filter((e) => e.op === '==' && e.path === path).map((e) => e.value);
      if (values.length > 1) out.push({ path, values });
    }
  };
  const c = parsed(test);
  if (c) walk(c);
  return out;
}

function parsed(test: string): Condition | undefined {
  try {
    return parseStepCondition(test);
  } catch {
    return undefined;
  }
}

function comparisonsIn(c: Condition, negated: boolean, stated: boolean): Comparison[] {
  switch (c.kind) {
    case 'and':
    case 'or':
      return c.items.flatMap((i) => comparisonsIn(i, negated, stated && c.kind === 'and'));
    case 'not':
      return comparisonsIn(c.item, !negated, false);
    case 'compare': {
      const swapped = c.left.kind === 'literal';
      const [path, literal] = swapped ? [c.right, c.left] : [c.left, c.right];
      if (path.kind !== 'path' || literal.kind !== 'literal') return [];
      const op = swapped ? SWAPPED[c.op] : c.op;
      return [{ path: path.path.join('.'), op: negated ? TURNED[op] : op, value: literal.value, stated }];
    }
    default:
      return [];
  }
}

/** The payload field a comparison tests (`claim_type` of `payload.claim_type`); undefined for others. */
export const payloadField = (c: Comparison): string | undefined => /^payload\.([^.]+)$/.exec(c.path)?.[1];
