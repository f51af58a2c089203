import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode } from './errors.ts';
import { isUsdAmount, MAX_USD, usdToCents } from './money.ts';

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
