/**
 * The problem collector that spec validation writes into, and its small typed-field readers.
 *
 * Owns "report a problem at this field" (with line/column when a locator for the source text is
 * known) and the reusable shape checks: mapping, known keys, strings, positive integers.
 * Never throws and never stops at the first problem: validation reports everything at once.
 */
import type { KeelError } from '../errors.ts';
import { MAX_INT32 } from '../int-range.ts';
import { excerpt } from './input-limits.ts';
import { isWellFormed } from './is-well-formed.ts';
import {
  describeValue,
  type FieldPath,
  formatFieldPath,
  type SpecProblem,
  specInvalidError,
} from './spec-problem.ts';

/** Where a field sits in the source text; `charIndex` is an offset inside a string scalar. */
export type Locate = (
  path: FieldPath,
  at: 'key' | 'value',
  charIndex?: number,
) => { line: number; column: number } | undefined;

export interface ReportAt {
  at?: 'key' | 'value';
  charIndex?: number;
  /** Locate here instead of at the field (e.g. the parent mapping of a missing field). */
  locatePath?: FieldPath;
}

/** Problems kept in full; past this many only a count is kept, so a refusal never floods its reader. */
export const MAX_PROBLEMS = 50;
/** Characters of a problem's message, and of each key in its field, that a refusal echoes. */
const MAX_MESSAGE = 300;
const MAX_KEY = 60;

export class SpecChecker {
  readonly problems: SpecProblem[] = [];
  /** Problems found past MAX_PROBLEMS: counted, not kept. */
  omitted = 0;

  constructor(
    readonly file: string,
    private readonly locate?: Locate,
  ) {}

  /** Every problem found so far, kept or not: grows with each report. */
  get found(): number {
    return this.problems.length + this.omitted;
  }

  report(path: FieldPath, message: string, where: ReportAt = {}): void {
    this.add(() => {
      const pos = this.locate?.(where.locatePath ?? path, where.at ?? 'value', where.charIndex);
      const field = formatFieldPath(path.map((s) => (typeof s === 'string' ? excerpt(s, MAX_KEY) : s)));
      return { field, message, ...(pos ? { line: pos.line, column: pos.column } : {}) };
    });
  }

  /**
   * Adds the problem `make` describes, unless MAX_PROBLEMS are kept already (then it is counted,
   * and `make`, which may have to search the document, is never called).
   */
  add(make: () => Omit<SpecProblem, 'file'>): void {
    if (this.problems.length >= MAX_PROBLEMS) {
      this.omitted++;
      return;
    }
    const p = make();
    this.problems.push({
      file: this.file,
      ...(p.line === undefined ? {} : { line: p.line }),
      ...(p.column === undefined ? {} : { column: p.column }),
      field: excerpt(p.field, MAX_MESSAGE),
      message: excerpt(p.message, MAX_MESSAGE),
    });
  }

  /** A required field is absent: reported at the mapping that should hold it. */
  missing(path: FieldPath, what: string): void {
    this.report(path, `is missing; expected ${what}`, { locatePath: path.slice(0, -1) });
  }

  /** The one `spec_invalid` error carrying every kept problem (and the count of the others). */
  error(): KeelError {
    return specInvalidError(this.sorted(), this.omitted);
  }

  /** Problems in document order when lines are known (stable otherwise). */
  sorted(): SpecProblem[] {
    return [...this.problems].sort(
      (a, b) =>
        (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER) ||
        (a.column ?? 0) - (b.column ?? 0),
    );
  }
}

export type Obj = Record<string, unknown>;

export function isMapping(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a field; an optional field set to null counts as left out. */
export function field(obj: Obj, key: string): unknown {
  return Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined;
}

/** Reports every key not in `allowed`, suggesting the nearest allowed key for likely typos. */
export function checkKeys(c: SpecChecker, obj: Obj, path: FieldPath, allowed: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (allowed.includes(k)) continue;
    const near = allowed.find((a) => isNear(a, k));
    const hint = near ? `did you mean "${near}"?` : `expected ${allowed.join(', ')}`;
    c.report([...path, k], `unknown field; ${hint}`, { at: 'key' });
  }
}

export function expectMapping(c: SpecChecker, v: unknown, path: FieldPath): Obj | undefined {
  if (isMapping(v)) return v;
  c.report(path, `expected a mapping, got ${describeValue(v)}`);
  return undefined;
}

/** A required (or, with `optional`, possibly absent) non-empty string matching `pattern`. */
export function readString(
  c: SpecChecker,
  obj: Obj,
  path: FieldPath,
  opts: { what: string; optional?: boolean; pattern?: RegExp; allowEmpty?: boolean },
): string | undefined {
  const key = path[path.length - 1] as string;
  const v = field(obj, key);
  if (v === undefined) {
    if (!opts.optional) c.missing(path, opts.what);
    return undefined;
  }
  const ok =
    typeof v === 'string' &&
    isWellFormed(v) &&
    (opts.allowEmpty || v !== '') &&
    (!opts.pattern || opts.pattern.test(v));
  if (!ok) {
    c.report(path, `expected ${opts.what}, got ${describeValue(v)}`);
    return undefined;
  }
  return v;
}

/**
 * A required whole number from 1 to `max` (MAX_INT32 by default: what a store's integer column
 * holds, so a version of 2147483648 is refused here, the same on every store).
 */
export function readPositiveInt(
  c: SpecChecker,
  obj: Obj,
  path: FieldPath,
  what: string,
  max: number = MAX_INT32,
): number | undefined {
  const key = path[path.length - 1] as string;
  const v = field(obj, key);
  if (v === undefined) {
    c.missing(path, what);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    c.report(path, `expected ${what}, got ${describeValue(v)}`);
    return undefined;
  }
  if (v > max) {
    c.report(path, `expected ${what} of at most ${max}, got ${v}`);
    return undefined;
  }
  return v;
}

/** Likely typo: within 2 edits, or one a prefix of the other (`maxCost` for `maxCostUsd`). */
export function isNear(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (Math.min(x.length, y.length) >= 3 && (x.startsWith(y) || y.startsWith(x))) return true;
  return editDistance(x, y) <= 2;
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
