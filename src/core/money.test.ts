import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode } from './errors.ts';
import { formatCents, formatMicroUsd, formatUsd, isUsdAmount, MAX_USD, usdToCents } from './money.ts';

describe('usdToCents', () => {
  it('converts exactly', () => {
    assert.equal(usdToCents(0.29), 29);
    assert.equal(usdToCents(50), 5000);
    assert.equal(usdToCents(0), 0);
    assert.ok(Object.is(usdToCents(-0), 0));
    assert.equal(usdToCents(1.1), 110);
    assert.equal(usdToCents(19.99), 1999);
  });

  it('round-trips every 2-decimal amount written as a decimal literal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_USD * 100 }), (cents) => {
        const literal = Number(`${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
        assert.equal(isUsdAmount(literal), true);
        assert.equal(usdToCents(literal), cents);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses negatives, a third decimal and non-finite numbers', () => {
    for (const v of [-0.01, 0.295, 0.001, Number.NaN, Number.POSITIVE_INFINITY, 1e300, MAX_USD + 1]) {
      assert.equal(isUsdAmount(v), false, String(v));
      assert.throws(() => usdToCents(v), { code: ErrorCode.usage });
    }
    assert.equal(isUsdAmount('5'), false);
  });
});

/** The reference: BigInt division, no double anywhere. */
function exactly(n: number, places: number): string {
  const unit = 10n ** BigInt(places);
  const v = BigInt(n);
  const abs = v < 0n ? -v : v;
  const frac = abs % unit;
  const head = `${v < 0n ? '-' : ''}${abs / unit}`;
  return frac === 0n && places === 2 ? head : `${head}.${frac.toString().padStart(places, '0')}`;
}

describe('formatting amounts', () => {
  it('formatCents prints any safe integer of cents exactly (no double division)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (c) => {
        assert.equal(formatCents(c), exactly(c, 2));
      }),
      { numRuns: 5000 },
    );
    assert.equal(formatCents(9_007_199_254_740_991), '90071992547409.91');
  });

  it('formatUsd prints a 2-decimal amount with its cents and anything else as written', () => {
    assert.equal(formatUsd(42.5), '42.50');
    assert.equal(formatUsd(50), '50');
    assert.equal(formatUsd(19.99), '19.99');
    assert.equal(formatUsd(49.999), '49.999');
  });

  it('formatMicroUsd prints micro-dollars exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (m) => {
        assert.equal(formatMicroUsd(m), exactly(m, 6));
      }),
      { numRuns: 3000 },
    );
  });
});
