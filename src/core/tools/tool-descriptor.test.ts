import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import {
  checkToolDescriptor,
  parseToolDescriptor,
  TOOL_EFFECTS,
  type ToolDescriptor,
} from './tool-descriptor.ts';

const good: ToolDescriptor = {
  name: 'issue_refund',
  description: 'Refunds an order',
  args: {
    type: 'object',
    properties: { amount_usd: { type: 'number' } },
    required: ['amount_usd'],
  },
  destructive: true,
  effect: 'external',
  idempotent: false,
  scopes: ['payments:refund'],
  cost: { fixedUsd: 0.05, fromArg: 'amount_usd' },
};

function refused(d: unknown): { field: string; message: string } {
  try {
    parseToolDescriptor(d);
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    assert.equal(e.code, ErrorCode.usage);
    const field = e.details.field as string;
    assert.ok(e.message.includes(`${field}: `), e.message);
    assert.equal(typeof e.details.problem, 'string');
    return { field, message: e.message };
  }
  return assert.fail(`expected ${JSON.stringify(d)} to be refused`);
}

describe('parseToolDescriptor', () => {
  it('accepts a well-formed descriptor, with or without a cost', () => {
    assert.deepEqual(parseToolDescriptor(good), good);
    const { cost: _cost, ...free } = good;
    const read = { ...free, name: 'mcp.orders.get_order-v2', destructive: false, effect: 'read' };
    assert.deepEqual(parseToolDescriptor(read), read);
    for (const effect of ['write', 'external'] as const)
      assert.equal(parseToolDescriptor({ ...good, effect }).effect, effect);
    assert.equal(parseToolDescriptor({ ...good, approval: 'always' }).approval, 'always');
    assert.deepEqual(TOOL_EFFECTS, ['read', 'write', 'external']);
  });

  it('normalises the cost shorthand: cost: 5 is {fixedUsd: 5}, and an empty cost is none', () => {
    assert.deepEqual(parseToolDescriptor({ ...good, cost: 5 }).cost, { fixedUsd: 5 });
    assert.deepEqual(parseToolDescriptor({ ...good, cost: 19.99 }).cost, { fixedUsd: 19.99 });
    assert.equal(parseToolDescriptor({ ...good, cost: {} }).cost, undefined);
    assert.deepEqual(parseToolDescriptor({ ...good, cost: { fromResult: 'usage.cost_usd' } }).cost, {
      fromResult: 'usage.cost_usd',
    });
  });

  it('keeps only declared fields, never a caller object it was given', () => {
    const scopes = ['a'];
    const d = parseToolDescriptor({ ...good, scopes });
    scopes.push('b');
    assert.deepEqual(d.scopes, ['a']);
  });

  const refusals: readonly [string, Record<string, unknown>, string, RegExp?][] = [
    ['an empty name', { name: '' }, 'name'],
    ['a name starting with a digit', { name: '1refund' }, 'name'],
    ['a name with a space', { name: 'issue refund' }, 'name'],
    ['a name longer than 128 characters', { name: `a${'b'.repeat(128)}` }, 'name'],
    ['a name that is not a string', { name: 42 }, 'name'],
    ['args that are not an object schema', { args: { type: 'array' } }, 'args'],
    ['missing args', { args: undefined }, 'args', /missing/],
    ['null args', { args: null }, 'args'],
    ['args ajv cannot compile', { args: { type: 'object', properties: { a: { type: 'nope' } } } }, 'args'],
    ['a result that is not a schema', { result: 'ok' }, 'result'],
    ['a destructive flag that is not a boolean', { destructive: 'yes' }, 'destructive'],
    ['an unknown effect', { effect: 'delete' }, 'effect', /one of read, write, external/],
    ['an idempotent flag that is not a boolean', { idempotent: 1 }, 'idempotent'],
    ['scopes that are not an array', { scopes: 'payments:refund' }, 'scopes'],
    ['scopes holding a non-string', { scopes: ['payments:refund', 7] }, 'scopes[1]'],
    ['a negative fixed cost', { cost: { fixedUsd: -1 } }, 'cost.fixedUsd'],
    ['a NaN fixed cost', { cost: { fixedUsd: Number.NaN } }, 'cost.fixedUsd'],
    ['an infinite fixed cost', { cost: { fixedUsd: Number.POSITIVE_INFINITY } }, 'cost.fixedUsd'],
    ['a fixed cost given as a string', { cost: { fixedUsd: '0.05' } }, 'cost.fixedUsd'],
    ['a fixed cost with a third decimal', { cost: { fixedUsd: 0.001 } }, 'cost.fixedUsd', /2 decimals/],
    ['a shorthand cost with a third decimal', { cost: 0.005 }, 'cost', /2 decimals/],
    ['a negative shorthand cost', { cost: -5 }, 'cost'],
    ['a cost that is text', { cost: '5' }, 'cost', /\{fixedUsd, fromArg, fromResult\}/],
    [
      'cost.fixed (not fixedUsd)',
      { cost: { fixed: 5 } },
      'cost.fixed',
      /unknown field; did you mean "fixedUsd"\?/,
    ],
    ['cost.usd', { cost: { usd: 5 } }, 'cost.usd', /unknown field/],
    ['a cost argument path', { cost: { fromArg: 'payment.amount' } }, 'cost.fromArg'],
    ['an unknown approval mode', { approval: 'sometimes' }, 'approval'],
    ['an approval flag given as a boolean', { approval: true }, 'approval'],
    ['an unknown field', { simulated: true }, 'simulated', /unknown field/],
    ['a misspelt field', { destructve: true }, 'destructve', /did you mean "destructive"\?/],
    // Contradictions.
    ['a destructive read', { effect: 'read', destructive: true, cost: undefined }, 'destructive', /read/],
    ['a read that moves money', { effect: 'read', destructive: false }, 'cost.fromArg', /read/],
    [
      'a cost argument args does not declare',
      { cost: { fromArg: 'amount' } },
      'cost.fromArg',
      /not a property/,
    ],
    [
      'a cost argument declared as text',
      { args: { type: 'object', properties: { amount_usd: { type: 'string' } }, required: ['amount_usd'] } },
      'cost.fromArg',
      /type number/,
    ],
    [
      'a cost argument of no declared type',
      { args: { type: 'object', properties: { amount_usd: {} }, required: ['amount_usd'] } },
      'cost.fromArg',
    ],
    [
      'an optional cost argument',
      { args: { type: 'object', properties: { amount_usd: { type: 'number' } } } },
      'cost.fromArg',
      /required/,
    ],
  ];
  for (const [what, patch, field, message] of refusals) {
    it(`refuses ${what}, naming ${field}`, () => {
      const r = refused({ ...good, ...patch });
      assert.equal(r.field, field, r.message);
      if (message) assert.match(r.message, message);
    });
  }

  it('refuses something that is not a descriptor at all with a usage error, not a TypeError', () => {
    assert.equal(refused(null).field, '(tool)');
    assert.equal(refused(undefined).field, '(tool)');
    assert.equal(refused([good]).field, '(tool)');
  });

  it('names the tool in the error, or the label until its name is known', () => {
    assert.match(refused({ ...good, effect: 'delete' }).message, /^tool "issue_refund": effect: /);
    assert.throws(
      () => parseToolDescriptor({ ...good, name: 7 }, { label: 'tools[3]' }),
      (e: unknown) => isKeelError(e) && /^tools\[3\]: name: /.test(e.message),
    );
    assert.throws(
      () => parseToolDescriptor({ ...good, handlr: () => 1 }, { alsoKnown: ['handler'] }),
      /handlr: unknown field; did you mean "handler"\?/,
    );
  });

  it('returns a refusal as a value from checkToolDescriptor', () => {
    assert.deepEqual(checkToolDescriptor({ ...good, cost: { fixed: 5 } }), {
      ok: false,
      field: 'cost.fixed',
      problem: 'unknown field; did you mean "fixedUsd"?',
    });
  });
});
