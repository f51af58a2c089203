import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decimalOf, isExactMultipleOf } from './exact-multiple-of.ts';
import { validateValue } from './validate-args.ts';

/** The support-desk refund's (and three templates') money schema. */
const money = { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 };

/** `cents / 100` written as a 2-decimal literal and parsed, the way it arrives in JSON or YAML. */
const dollars = (cents: number) =>
  Number(`${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);

/** `n / 1000` written as a 3-decimal literal. */
const mills = (n: number) => Number(`${Math.floor(n / 1000)}.${String(n % 1000).padStart(3, '0')}`);

describe('exact multipleOf', () => {
  it('accepts every cent amount from $0.01 to $150.00 (ajv divided doubles and refused 2,230 of them)', () => {
    const refused: number[] = [];
    for (let c = 1; c <= 15_000; c++)
      if (validateValue(money, dollars(c)).length > 0) refused.push(dollars(c));
    assert.deepEqual(refused.slice(0, 10), []);
    assert.equal(refused.length, 0);
    for (const v of [19.99, 4.35, 1.13]) assert.deepEqual(validateValue(money, v), [], String(v));
  });

  it('accepts every 2-decimal amount, up to ten trillion dollars', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e15 }), (c) => {
        assert.deepEqual(validateValue(money, dollars(c)), []);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every 3-decimal amount that is not a whole number of cents, naming the field', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }).filter((n) => n % 10 !== 0),
        (n) => {
          const problems = validateValue(
            { type: 'object', properties: { amount_usd: money } },
            {
              amount_usd: mills(n),
            },
          );
          assert.equal(problems.length, 1, String(mills(n)));
          assert.equal(problems[0]!.field, 'amount_usd');
          assert.equal(problems[0]!.expected, 'must be multiple of 0.01');
        },
      ),
      { numRuns: 3000 },
    );
    assert.equal(validateValue(money, 0.1 + 0.2).length, 1, '0.30000000000000004 is not a cent amount');
  });

  it('agrees with integer arithmetic for any decimals a * 10^-p and b * 10^-q', () => {
    const decimal = fc.record({
      digits: fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
      scale: fc.integer({ min: 0, max: 6 }),
    });
    const write = (d: { digits: bigint; scale: number }) => {
      const sign = d.digits < 0n ? '-' : '';
      const s = (d.digits < 0n ? -d.digits : d.digits).toString().padStart(d.scale + 1, '0');
      return Number(`${sign}${s.slice(0, s.length - d.scale)}${d.scale ? `.${s.slice(-d.scale)}` : ''}`);
    };
    fc.assert(
      fc.property(
        decimal,
        decimal.filter((d) => d.digits > 0n),
        (a, b) => {
          const scale = Math.max(a.scale, b.scale);
          const A = a.digits * 10n ** BigInt(scale - a.scale);
          const B = b.digits * 10n ** BigInt(scale - b.scale);
          assert.equal(isExactMultipleOf(write(a), write(b)), A % B === 0n, `${write(a)} / ${write(b)}`);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('reads exponent forms and refuses what is not a finite number', () => {
    assert.deepEqual(decimalOf(1e21), { digits: 1n, exp: 21 });
    assert.deepEqual(decimalOf(1.5e-7), { digits: 15n, exp: -8 });
    assert.deepEqual(decimalOf(-19.99), { digits: -1999n, exp: -2 });
    assert.equal(isExactMultipleOf(1e21, 0.01), true);
    assert.equal(isExactMultipleOf(1.5e-7, 1e-8), true);
    assert.equal(isExactMultipleOf(1.5e-7, 1e-7), false);
    assert.equal(isExactMultipleOf(7, 7), true);
    assert.equal(isExactMultipleOf(0, 0.01), true);
    assert.equal(isExactMultipleOf(Number.NaN, 0.01), false);
    assert.equal(isExactMultipleOf(1, 0), false);
  });

  it('still refuses a schema whose multipleOf is not a number > 0', () => {
    assert.throws(() => validateValue({ type: 'number', multipleOf: 0 }, 1), /multipleOf must be > 0/);
  });
});
