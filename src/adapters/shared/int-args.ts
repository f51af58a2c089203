/**
 * The whole numbers a caller hands a store for its 32-bit integer columns (a version, a seq),
 * checked the same way by both adapters before any SQL runs: past MAX_INT32 PostgreSQL would fail
 * the query (and SQLite would not), so the store contract refuses it as a usage error naming the
 * field, on every store. Never touches the database.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { intRangeProblem, MAX_INT32 } from '../../core/int-range.ts';

/** Throws `usage` naming `field` when `v` (if given) is not a whole number from `min` to MAX_INT32. */
export function checkIntArg(field: string, v: number | undefined, min = 1): void {
  if (v === undefined) return;
  const problem = intRangeProblem(v, min, MAX_INT32);
  if (problem) throw new KeelError(ErrorCode.usage, `${field}: ${problem}`, { field });
}
