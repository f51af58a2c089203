import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ToolDescriptor } from './tool-descriptor.ts';
import { type ArgProblem, formatArgProblem, validateArgs } from './validate-args.ts';

const refund: ToolDescriptor = {
  name: 'issue_refund',
  description: 'Refunds part or all of an order',
  destructive: true,
  effect: 'external',
  idempotent: false,
  scopes: ['payments:refund'],
  cost: { fromArg: 'amount_usd' },
  args: {
    type: 'object',
    required: ['order_id', 'amount_usd'],
    additionalProperties: false,
    properties: {
      order_id: { type: 'string', minLength: 3, pattern: '^order-' },
      amount_usd: { type: 'number', exclusiveMinimum: 0, maximum: 500 },
      reason: { enum: ['damaged', 'late', 'other'] },
      currency: { const: 'USD', default: 'USD' },
      notify: { type: 'boolean', default: true },
      email: { type: 'string', format: 'email' },
      items: {
        type: 'array',
        maxItems: 3,
        items: {
          type: 'object',
          required: ['sku'],
          properties: {
            sku: { type: 'string' },
            qty: { type: 'integer', minimum: 1 },
            note: { type: 'string', maxLength: 10 },
          },
        },
      },
    },
  },
};

const valid = { order_id: 'order-1042', amount_usd: 42.5 };

function only(args: Record<string, unknown>): ArgProblem {
  const problems = validateArgs(refund, args);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  return problems[0]!;
}

describe('validateArgs', () => {
  it('returns no problems for valid arguments', () => {
    assert.deepEqual(validateArgs(refund, valid), []);
    assert.deepEqual(
      validateArgs(refund, {
        ...valid,
        reason: 'late',
        currency: 'USD',
        email: 'dana@acme.test',
        items: [{ sku: 'MUG-01', qty: 2, note: 'chipped' }],
      }),
      [],
    );
  });

  it('reports a missing required field as missing, expecting a value and getting nothing', () => {
    assert.deepEqual(only({ order_id: 'order-1042' }), {
      field: 'amount_usd',
      problem: 'missing',
      expected: 'a value',
      got: 'nothing',
    });
  });

  it('reports every missing field, not just the first', () => {
    assert.deepEqual(
      validateArgs(refund, {}).map((p) => [p.field, p.problem]),
      [
        ['order_id', 'missing'],
        ['amount_usd', 'missing'],
      ],
    );
  });

  it('reports a wrong type as type_mismatch, showing the value it got', () => {
    assert.deepEqual(only({ ...valid, amount_usd: '12' }), {
      field: 'amount_usd',
      problem: 'type_mismatch',
      expected: 'number',
      got: 'string "12"',
    });
    assert.deepEqual(only({ ...valid, notify: null }), {
      field: 'notify',
      problem: 'type_mismatch',
      expected: 'boolean',
      got: 'null',
    });
    assert.deepEqual(only({ ...valid, items: { sku: 'a' } }), {
      field: 'items',
      problem: 'type_mismatch',
      expected: 'array',
      got: 'object',
    });
  });

  it('reports numbers, lengths and counts beyond their limits as out_of_range, naming the limit', () => {
    assert.deepEqual(only({ ...valid, amount_usd: 900 }), {
      field: 'amount_usd',
      problem: 'out_of_range',
      expected: 'maximum 500',
      got: 'number 900',
    });
    assert.deepEqual(only({ ...valid, amount_usd: 0 }), {
      field: 'amount_usd',
      problem: 'out_of_range',
      expected: 'exclusiveMinimum 0',
      got: 'number 0',
    });
    const tooMany = { ...valid, items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }, { sku: 'd' }] };
    assert.deepEqual(only(tooMany), {
      field: 'items',
      problem: 'out_of_range',
      expected: 'maxItems 3',
      got: 'array',
    });
  });

  it('reports a value outside an enum or const as not_allowed, listing what is allowed', () => {
    assert.deepEqual(only({ ...valid, reason: 'bored' }), {
      field: 'reason',
      problem: 'not_allowed',
      expected: 'one of ["damaged","late","other"]',
      got: 'string "bored"',
    });
    const p = only({ ...valid, currency: 'EUR' });
    assert.equal(p.problem, 'not_allowed');
    assert.match(p.expected, /"USD"/);
  });

  it('reports a field the schema does not declare as unexpected', () => {
    assert.deepEqual(only({ ...valid, amount: 42.5 }), {
      field: 'amount',
      problem: 'unexpected',
      expected: 'no such field',
      got: 'number 42.5',
    });
  });

  it('reports a string that breaks its format as invalid_format', () => {
    assert.deepEqual(only({ ...valid, email: 'not-an-email' }), {
      field: 'email',
      problem: 'invalid_format',
      expected: 'format email',
      got: 'string "not-an-email"',
    });
  });

  it('reports other keywords (pattern) as invalid with ajv’s explanation', () => {
    const p = only({ ...valid, order_id: 'ord-1' });
    assert.equal(p.field, 'order_id');
    assert.equal(p.problem, 'invalid');
    assert.match(p.expected, /pattern/);
  });

  it('names nested fields with dots and indexes, like items[0].note', () => {
    const problems = validateArgs(refund, { ...valid, items: [{ sku: 'MUG-01', note: 42 }, { qty: 0 }] });
    assert.deepEqual(problems, [
      { field: 'items[0].note', problem: 'type_mismatch', expected: 'string', got: 'number 42' },
      { field: 'items[1].sku', problem: 'missing', expected: 'a value', got: 'nothing' },
      { field: 'items[1].qty', problem: 'out_of_range', expected: 'minimum 1', got: 'number 0' },
    ]);
  });

  it('unescapes JSON Pointer segments in field names', () => {
    const tool: ToolDescriptor = {
      ...refund,
      args: {
        type: 'object',
        properties: { 'a/b': { type: 'object', properties: { 'c~d': { type: 'string' } } } },
      },
    };
    assert.deepEqual(validateArgs(tool, { 'a/b': { 'c~d': 1 } }), [
      { field: 'a/b.c~d', problem: 'type_mismatch', expected: 'string', got: 'number 1' },
    ]);
  });

  it('shortens long values it shows as got', () => {
    const p = only({ ...valid, order_id: `order-${'x'.repeat(100)}`, amount_usd: 'a'.repeat(100) });
    assert.equal(p.field, 'amount_usd');
    assert.ok(p.got.length < 60, p.got);
    assert.match(p.got, /^string "a+\.\.\.$/);
  });

  it('does not mutate the arguments: no defaults filled in, no types coerced, no fields removed', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            order_id: fc.oneof(fc.string(), fc.integer()),
            amount_usd: fc.oneof(fc.double({ noNaN: true }), fc.string(), fc.constant('12')),
            extra: fc.jsonValue(),
            items: fc.array(
              fc.record(
                { sku: fc.oneof(fc.string(), fc.integer()), note: fc.jsonValue() },
                { requiredKeys: [], noNullPrototype: true },
              ),
            ),
          },
          { requiredKeys: [], noNullPrototype: true },
        ),
        (args) => {
          const before = structuredClone(args);
          validateArgs(refund, args);
          assert.deepStrictEqual(args, before);
        },
      ),
      { numRuns: 300 },
    );
    const args = { order_id: 'order-1042', amount_usd: '12' };
    validateArgs(refund, args);
    assert.deepStrictEqual(args, { order_id: 'order-1042', amount_usd: '12' });
    assert.equal(Object.hasOwn(args, 'currency'), false);
  });

  it('validates frozen arguments without throwing', () => {
    const args = Object.freeze({ ...valid, items: Object.freeze([Object.freeze({ sku: 'a' })]) });
    assert.deepEqual(validateArgs(refund, args), []);
  });

  it('gives the same answer when a descriptor is validated against again (cached validator)', () => {
    const first = validateArgs(refund, { amount_usd: 'x' });
    assert.deepEqual(validateArgs(refund, { amount_usd: 'x' }), first);
    assert.deepEqual(validateArgs(refund, valid), []);
  });
});

describe('formatArgProblem', () => {
  it('says a missing field is missing', () => {
    assert.equal(
      formatArgProblem({ field: 'amount_usd', problem: 'missing', expected: 'a value', got: 'nothing' }),
      'amount_usd is missing',
    );
  });

  it('spells every underscore of the problem as a space', () => {
    assert.equal(
      formatArgProblem({
        field: 'amount_usd',
        problem: 'out_of_range',
        expected: 'maximum 500',
        got: 'number 900',
      }),
      'amount_usd: out of range (expected maximum 500, got number 900)',
    );
    assert.equal(
      formatArgProblem({
        field: 'amount_usd',
        problem: 'type_mismatch',
        expected: 'number',
        got: 'string "12"',
      }),
      'amount_usd: type mismatch (expected number, got string "12")',
    );
  });
});
