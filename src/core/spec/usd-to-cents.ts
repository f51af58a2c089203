/**
 * Dollars with at most two decimals -> exact integer cents.
 *
 * A 2-decimal literal parses to the double nearest its decimal value, and so does `cents / 100`;
 * the round trip is therefore an exact test. Never rounds a third decimal away silently.
 */
import { ErrorCode, KeelError } from '../errors.ts';

/**
 * Largest accepted amount: ten trillion dollars. Below it a double resolves cents exactly; above
 * it (from about 7e13) neighbouring 2-decimal amounts share one double and cents become guesses.
 */
export const MAX_USD = 1e13;

/** True for a finite number in [0, MAX_USD] with at most 2 decimals. */
export function isUsdAmount(usd: unknown): usd is number {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0 || usd > MAX_USD) return false;
  return Math.round(usd * 100) / 100 === usd;
}

/** 0.29 -> 29, 50 -> 5000. Throws `usage` for negatives, NaN, a third decimal or more than MAX_USD. */
export function usdToCents(usd: number): number {
  if (!isUsdAmount(usd)) {
    throw new KeelError(ErrorCode.usage, `expected a number >= 0 with at most 2 decimals, got ${usd}`, {
      usd,
    });
  }
  return Math.round(usd * 100) + 0;
}
