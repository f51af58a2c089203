/**
 * The comparisons of a draft's test with a literal, as they act on an event: `payload.claim_type
 * != "home"`, `payload.score < 85`, at any depth, with an operator under a "not" turned (`not
 * (payload.plan == "premium")` leaves premium out, as `!=` does) and a literal written first read
 * the other way round (`85 > payload.score` is `payload.score < 85`), each with where it sits: in
 * which item of the top-level "and", under an "or", under a "not". The draft-level checks
 * (never-runs.ts, dropped-exclusions.ts, constants-over-events.ts, alternatives-not-said.ts,
 * refused-values.ts), the grammar's readers of the drafted trigger (or-between-tests.ts,
 * repeated-bounds.ts, strict-bounds.ts) and the values a tenant's workflows test (tested-values.ts)
 * read tests through this one parse rather than each through a pattern of its own. Pure.
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
  /** Which item of the top-level "and" it is in, from 0 (the comparisons of `(a or b)` share one). */
  readonly conjunct: number;
  /** Whether an "or" is above it: one of alternatives, which may not hold for every event let in. */
  readonly underOr: boolean;
  /** Whether a "not" is above it (its operator then reads as it acts, turned once for each). */
  readonly underNot: boolean;
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
  return c ? conjunctsOf(c).flatMap((item, conjunct) => comparisonsIn(item, { ...STATED, conjunct })) : [];
}

/** The items of a test's top-level "and" (an "and" in brackets among them read as its items). */
function conjunctsOf(c: Condition): Condition[] {
  return c.kind === 'and' ? c.items.flatMap(conjunctsOf) : [c];
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
    const equal = c.items.flatMap((i) => (i.kind === 'compare' ? comparisonsIn(i, STATED) : []));
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

/** Where a part of a test sits; `negated` is whether an odd number of "not"s is above it. */
type Place = Omit<Comparison, 'path' | 'op' | 'value'> & { readonly negated: boolean };

const STATED: Place = { stated: true, conjunct: 0, underOr: false, underNot: false, negated: false };

function comparisonsIn(c: Condition, at: Place): Comparison[] {
  switch (c.kind) {
    case 'and':
    case 'or': {
      const inner = c.kind === 'or' ? { ...at, stated: false, underOr: true } : at;
      return c.items.flatMap((i) => comparisonsIn(i, inner));
    }
    case 'not':
      return comparisonsIn(c.item, { ...at, stated: false, underNot: true, negated: !at.negated });
    case 'compare': {
      const swapped = c.left.kind === 'literal';
      const [path, literal] = swapped ? [c.right, c.left] : [c.left, c.right];
      if (path.kind !== 'path' || literal.kind !== 'literal') return [];
      const op = swapped ? SWAPPED[c.op] : c.op;
      const { negated, ...place } = at;
      return [{ path: path.path.join('.'), op: negated ? TURNED[op] : op, value: literal.value, ...place }];
    }
    default:
      return [];
  }
}

/** The payload field a comparison tests (`claim_type` of `payload.claim_type`); undefined for others. */
export const payloadField = (c: Comparison): string | undefined => /^payload\.([^.]+)$/.exec(c.path)?.[1];
