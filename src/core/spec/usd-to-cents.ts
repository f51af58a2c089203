/**
 * Dollars with at most two decimals -> exact integer cents.
 *
 * A 2-decimal literal parses to the double nearest its decimal value, and so does `cents / 100`;
 * the round trip is therefore an exact test. Never rounds a third decimal away silently.
 */
import { ErrorCode, KeelError } from '../errors.ts';

/** True for a finite number >= 0 with at most 2 decimals whose cents fit a safe integer. */
export function isUsdAmount(usd: unknown): usd is number {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return false;
  const cents = Math.round(usd * 100);
  return Number.isSafeInteger(cents) && cents / 100 === usd;
}

/** 0.29 -> 29, 50 -> 5000. Throws `usage` for negatives, NaN or a third decimal. */
export function usdToCents(usd: number): number {
  if (!isUsdAmount(usd)) {
    throw new KeelError(ErrorCode.usage, `expected a number >= 0 with at most 2 decimals, got ${usd}`, {
      usd,
    });
  }
  return Math.round(usd * 100) + 0;
}
