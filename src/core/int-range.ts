/**
 * The range of the whole numbers Keel keeps in 32-bit integer columns — a workflow's version, a
 * ledger's seq — and the one check every edge makes before such a number goes anywhere near a
 * store: PostgreSQL's INTEGER holds at most 2,147,483,647 while SQLite's holds far more, so a
 * number past it is bad input, refused the same way whichever store is behind. Pure.
 */

/** The largest value of a 32-bit integer column (PostgreSQL INTEGER): 2^31 - 1. */
export const MAX_INT32 = 2_147_483_647;

/**
 * Why `v` is not a whole number from `min` to `max` (`expected a whole number from 1 to
 * 2147483647, got 2147483648`), or undefined when it is one.
 */
export function intRangeProblem(v: unknown, min: number, max: number = MAX_INT32): string | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max) return undefined;
  const shown = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);
  return `expected a whole number from ${min} to ${max}, got ${shown}`;
}
