import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { costCentsOf, formatCents } from '../money.ts';
import { callCost, costArgProblem, costCents, resultCostCents, resultCostProblem } from './tool-cost.ts';
import type { ToolCost, ToolDescriptor } from './tool-descriptor.ts';

function tool(cost?: ToolCost): ToolDescriptor {
  return {
    name: 'issue_refund',
    description: 'Refunds an order',
    args: { type: 'object' },
    destructive: true,
    effect: 'external',
    idempotent: false,
    scopes: [],
    ...(cost ? { cost } : {}),
  };
}

/** The amount `cents / 100` written as a two-decimal literal and parsed, the way it arrives in JSON. */
function dollars(cents: number): number {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return Number(`${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`);
}

// Up to ten trillion dollars, where a double still tells neighbouring cents apart.
const cents = fc.integer({ min: -1e15, max: 1e15 });

describe('costCentsOf', () => {
  it('turns 0.29 into exactly 29 (where 0.29 * 100 is 28.999999999999996)', () => {
    assert.equal(0.29 * 100, 28.999999999999996);
    assert.equal(costCentsOf(0.29), 29);
    assert.equal(costCentsOf(-0.29), 29, 'the magnitude counts');
  });

  it('rounds a third decimal up, so a cap is never under-counted', () => {
    assert.equal(costCentsOf(1.001), 101);
    assert.equal(costCentsOf(0.001), 1);
  });

  it('is exact for every two-decimal amount', () => {
    fc.assert(
      fc.property(cents, (c) => {
        assert.equal(costCentsOf(dollars(c)), Math.abs(c));
      }),
      { numRuns: 5000 },
    );
  });

  it('never counts less than the amount', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (usd) => {
        assert.ok(costCentsOf(usd) / 100 >= Math.abs(usd) - 1e-9);
      }),
    );
  });
});

describe('costCents', () => {
  it('is 0 for a tool without a cost', () => {
    assert.equal(costCents(tool(), { amount_usd: 42 }), 0);
    assert.equal(costCents(tool({}), {}), 0);
  });

  it('charges the fixed cost in exact cents', () => {
    assert.equal(costCents(tool({ fixedUsd: 0.29 }), {}), 29);
    assert.equal(costCents(tool({ fixedUsd: 0 }), {}), 0);
  });

  it('charges the value of the named argument in exact cents', () => {
    assert.equal(costCents(tool({ fromArg: 'amount_usd' }), { amount_usd: 0.29 }), 29);
    assert.equal(costCents(tool({ fromArg: 'amount_usd' }), { amount_usd: 500 }), 50000);
  });

  it('adds the fixed cost and the argument value without floating-point drift (0.1 + 0.2 is 30 cents)', () => {
    assert.equal(costCents(tool({ fixedUsd: 0.1, fromArg: 'amount_usd' }), { amount_usd: 0.2 }), 30);
  });

  it('counts a negative amount by its size, so a sign flip cannot dodge the spend cap', () => {
    assert.equal(costCents(tool({ fromArg: 'amount_usd' }), { amount_usd: -42.5 }), 4250);
  });

  it('charges nothing for a missing or non-numeric argument (costArgProblem refuses such a call first)', () => {
    const t = tool({ fixedUsd: 1, fromArg: 'amount_usd' });
    assert.equal(costCents(t, {}), 100);
    assert.equal(costCents(t, { amount_usd: '42' }), 100);
    assert.equal(costCents(t, { amount_usd: Number.NaN }), 100);
    assert.equal(costCents(t, { amount_usd: Number.POSITIVE_INFINITY }), 100);
  });

  it('is exact for every pair of two-decimal fixed cost and argument amounts', () => {
    const nonNegative = fc.integer({ min: 0, max: 1e13 });
    fc.assert(
      fc.property(nonNegative, nonNegative, (fixed, amount) => {
        assert.equal(
          costCents(tool({ fixedUsd: dollars(fixed), fromArg: 'amount_usd' }), {
            amount_usd: dollars(amount),
          }),
          fixed + amount,
        );
      }),
      { numRuns: 3000 },
    );
  });
});

describe('callCost', () => {
  it('separates the fixed part from the argument part', () => {
    assert.deepEqual(callCost(tool({ fixedUsd: 1, fromArg: 'amount_usd' }), { amount_usd: 500 }), {
      totalCents: 50100,
      fixedCents: 100,
      argCents: 50000,
    });
  });
});

describe('formatCents', () => {
  it('prints whole dollars without decimals and anything else with two', () => {
    assert.equal(formatCents(5000), '50');
    assert.equal(formatCents(0), '0');
    assert.equal(formatCents(29), '0.29');
    assert.equal(formatCents(4250), '42.50');
    assert.equal(formatCents(5), '0.05');
    assert.equal(formatCents(-150), '-1.50');
  });

  it('round-trips through costCentsOf for every amount', () => {
    fc.assert(
      fc.property(cents, (c) => {
        assert.equal(costCentsOf(Number(formatCents(c))), Math.abs(c));
      }),
      { numRuns: 2000 },
    );
  });
});

it('resultCostCents reads the USD amount at cost.fromResult, 0 when absent or not a number', () => {
  const t = {
    name: 'metered',
    description: '',
    args: { type: 'object' },
    destructive: false,
    effect: 'external' as const,
    idempotent: false,
    scopes: [],
    cost: { fromResult: 'usage.cost_usd' },
  };
  assert.equal(resultCostCents(t, { usage: { cost_usd: 0.25 } }), 25);
  assert.equal(resultCostCents(t, { usage: { cost_usd: '0.25' } }), 0);
  assert.equal(resultCostCents(t, { usage: { cost_usd: -1 } }), 0);
  assert.equal(resultCostCents(t, { usage: null }), 0);
  assert.equal(resultCostCents(t, null), 0);
  assert.equal(resultCostCents({ ...t, cost: { fixedUsd: 1 } }, { usage: { cost_usd: 1 } }), 0);
});

describe('costArgProblem', () => {
  const t = tool({ fixedUsd: 1, fromArg: 'amount_usd' });
  it('is a problem when the cost argument is missing, not a finite number, or beyond exact cents', () => {
    assert.equal(costArgProblem(t, {})?.problem, 'missing');
    assert.equal(costArgProblem(t, { amount_usd: '42' })?.problem, 'type_mismatch');
    assert.equal(costArgProblem(t, { amount_usd: Number.NaN })?.problem, 'type_mismatch');
    assert.equal(costArgProblem(t, { amount_usd: { $secret: 'x' } })?.problem, 'type_mismatch');
    assert.equal(costArgProblem(t, { amount_usd: 1e14 })?.problem, 'out_of_range');
    assert.equal(costArgProblem(t, { amount_usd: -1e14 })?.problem, 'out_of_range');
    assert.equal(costArgProblem(t, {})?.field, 'amount_usd');
  });
  it('is nothing for a number, or for a tool whose cost names no argument', () => {
    assert.equal(costArgProblem(t, { amount_usd: 19.99 }), undefined);
    assert.equal(costArgProblem(t, { amount_usd: -5 }), undefined);
    assert.equal(costArgProblem(tool({ fixedUsd: 1 }), {}), undefined);
  });
});

it('resultCostProblem: a declared result cost must be there, as a USD amount >= 0', () => {
  const t = { ...tool({ fromResult: 'usage.cost_usd' }), effect: 'external' as const };
  assert.equal(resultCostProblem(t, { usage: { cost_usd: 0.25 } }), undefined);
  assert.equal(resultCostProblem(t, { usage: { cost_usd: 0 } }), undefined);
  for (const out of [{ usage: { cost_usd: '0.25' } }, { usage: { cost_usd: -1 } }, { usage: null }, null, {}])
    assert.match(resultCostProblem(t, out) ?? '', /^output usage\.cost_usd: expected the call's cost/);
  assert.equal(resultCostProblem(tool({ fixedUsd: 1 }), null), undefined);
});
