/**
 * Money: dollars in documents, integer cents in the ledger and in every comparison.
 *
 * A 2-decimal literal parses to the double nearest its decimal value, and so does `cents / 100`;
 * the round trip is therefore an exact test. Limits are converted exactly or refused; costs drawn
 * from tool arguments round up, so a spend cap is never under-counted.
 */
import { ErrorCode, KeelError } from './errors.ts';

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

/**
 * The cost, in cents, of an amount a tool argument names: exact for 2-decimal amounts, rounded up
 * otherwise (0.001 -> 1 cent), and the magnitude of a negative amount. Never less than the amount.
 */
export function costCentsOf(usd: number): number {
  const abs = Math.abs(usd);
  if (isUsdAmount(abs)) return Math.round(abs * 100) + 0;
  return Math.ceil(abs * 100);
}

/** 5000 -> "50", 4250 -> "42.50". */
export function formatCents(cents: number): string {
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}
