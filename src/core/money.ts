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

/**
 * 5000 -> "50", 4250 -> "42.50", -150 -> "-1.50": integer arithmetic on the cents, never a
 * division that a double could round (any safe integer prints exactly).
 */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) return String(cents / 100);
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = String(Math.floor(abs / 100));
  const part = abs % 100;
  return part === 0 ? `${sign}${whole}` : `${sign}${whole}.${String(part).padStart(2, '0')}`;
}

/**
 * A USD amount as a person reads it: a 2-decimal amount as formatCents prints its cents (42.5 ->
 * "42.50"); any other number as written (49.999 stays "49.999": never rounded to a cent it is not).
 */
export function formatUsd(usd: number): string {
  return isUsdAmount(usd) ? formatCents(usdToCents(usd)) : String(usd);
}

/** 1234567 micro-USD -> "1.234567", exactly. */
export function formatMicroUsd(micro: number): string {
  if (!Number.isSafeInteger(micro)) return (micro / 1e6).toFixed(6);
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return `${sign}${Math.floor(abs / 1e6)}.${String(abs % 1e6).padStart(6, '0')}`;
}
