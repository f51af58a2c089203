/**
 * JSON Schema's `multipleOf`, decided exactly in decimal: 19.99 is a multiple of 0.01 (ajv's own
 * check divides doubles and refuses it, as it does $4.35 and $1.13).
 *
 * A number is judged by its shortest decimal form (`String(x)`: the digits it was written with,
 * for any JSON or YAML literal), never by its binary value, and the divisor likewise; the test
 * itself is integer arithmetic on BigInts. Pure.
 */

/** A finite number's shortest decimal form as `digits * 10^exp`: 19.99 -> {1999n, -2}, 1e21 -> {1n, 21}. */
export function decimalOf(x: number): { readonly digits: bigint; readonly exp: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
  if (!m || !Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  const [, sign, whole, frac = '', e = '0'] = m;
  return { digits: BigInt(`${sign}${whole}${frac}`), exp: Number(e) - frac.length };
}

/**
 * Whether `value` is an integer multiple of `divisor` (> 0), both read as the decimals they are
 * written as. False for a value that is not a finite number.
 */
export function isExactMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !(Number.isFinite(divisor) && divisor > 0)) return false;
  const a = decimalOf(value);
  const b = decimalOf(divisor);
  const exp = Math.min(a.exp, b.exp);
  const scaledA = a.digits * 10n ** BigInt(a.exp - exp);
  const scaledB = b.digits * 10n ** BigInt(b.exp - exp);
  return scaledA % scaledB === 0n;
}
