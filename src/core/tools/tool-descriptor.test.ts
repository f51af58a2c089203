import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { assertToolDescriptor, TOOL_EFFECTS, type ToolDescriptor } from './tool-descriptor.ts';

const good: ToolDescriptor = {
  name: 'issue_refund',
  description: 'Refunds an order',
  args: { type: 'object', properties: { amount_usd: { type: 'number' } } },
  destructive: true,
  effect: 'external',
  idempotent: false,
  scopes: ['payments:refund'],
  cost: { fixedUsd: 0.05, fromArg: 'amount_usd' },
};

function refusedField(d: unknown): string {
  try {
    assertToolDescriptor(d as ToolDescriptor);
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    assert.equal(e.code, ErrorCode.usage);
    const field = e.details.field as string;
    assert.ok(e.message.includes(field), e.message);
    assert.equal(typeof e.details.problem, 'string');
    return field;
  }
  return assert.fail('expected the descriptor to be refused');
}

describe('assertToolDescriptor', () => {
  it('accepts a well-formed descriptor, with or without a cost', () => {
    assert.doesNotThrow(() => assertToolDescriptor(good));
    const { cost: _cost, ...free } = good;
    assert.doesNotThrow(() =>
      assertToolDescriptor({ ...free, name: 'mcp.orders.get_order-v2', destructive: false, effect: 'read' }),
    );
    for (const effect of TOOL_EFFECTS) assert.doesNotThrow(() => assertToolDescriptor({ ...good, effect }));
    assert.doesNotThrow(() => assertToolDescriptor({ ...good, approval: 'always' }));
  });

  const refusals: readonly [string, Record<string, unknown>, string][] = [
    ['an empty name', { name: '' }, 'name'],
    ['a name starting with a digit', { name: '1refund' }, 'name'],
    ['a name with a space', { name: 'issue refund' }, 'name'],
    ['a name longer than 128 characters', { name: `a${'b'.repeat(128)}` }, 'name'],
    ['a name that is not a string', { name: 42 }, 'name'],
    ['args that are not an object schema', { args: { type: 'array' } }, 'args'],
    ['missing args', { args: undefined }, 'args'],
    ['null args', { args: null }, 'args'],
    ['a destructive flag that is not a boolean', { destructive: 'yes' }, 'destructive'],
    ['an unknown effect', { effect: 'delete' }, 'effect'],
    ['an idempotent flag that is not a boolean', { idempotent: 1 }, 'idempotent'],
    ['scopes that are not an array', { scopes: 'payments:refund' }, 'scopes'],
    ['scopes holding a non-string', { scopes: ['payments:refund', 7] }, 'scopes'],
    ['a negative fixed cost', { cost: { fixedUsd: -1 } }, 'cost.fixedUsd'],
    ['a NaN fixed cost', { cost: { fixedUsd: Number.NaN } }, 'cost.fixedUsd'],
    ['an infinite fixed cost', { cost: { fixedUsd: Number.POSITIVE_INFINITY } }, 'cost.fixedUsd'],
    ['a fixed cost given as a string', { cost: { fixedUsd: '0.05' } }, 'cost.fixedUsd'],
    ['an unknown approval mode', { approval: 'sometimes' }, 'approval'],
    ['an approval flag given as a boolean', { approval: true }, 'approval'],
  ];
  for (const [what, patch, field] of refusals) {
    it(`refuses ${what}, naming ${field}`, () => {
      assert.equal(refusedField({ ...good, ...patch }), field);
    });
  }

  it('refuses something that is not a descriptor at all with a usage error, not a TypeError', () => {
    assert.equal(refusedField(null), 'name');
    assert.equal(refusedField(undefined), 'name');
  });

  it('names the tool in the error', () => {
    assert.throws(
      () => assertToolDescriptor({ ...good, effect: 'delete' as never }),
      (e: unknown) => isKeelError(e) && e.details.tool === 'issue_refund' && /issue_refund/.test(e.message),
    );
  });
});
