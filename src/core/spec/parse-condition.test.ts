import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode } from '../errors.ts';
import { type Condition, type Operand, parseCondition } from './parse-condition.ts';

const path = (...p: string[]): Operand => ({ kind: 'path', path: p });
const lit = (value: string | number | boolean | null): Operand => ({ kind: 'literal', value });
const cmp = (left: Operand, op: '==' | '<', right: Operand): Condition => ({
  kind: 'compare',
  op,
  left,
  right,
});

function syntaxError(src: string): { position: number; message: string } {
  try {
    parseCondition(src);
  } catch (e) {
    const err = e as { code: string; details: { position: number; message: string } };
    assert.equal(err.code, ErrorCode.specInvalid);
    return err.details;
  }
  return assert.fail(`expected a syntax error for ${src}`);
}

/** Prints an AST back to source, fully parenthesised where needed. */
function print(c: Condition): string {
  const operand = (o: Operand) => (o.kind === 'path' ? o.path.join('.') : JSON.stringify(o.value));
  switch (c.kind) {
    case 'or':
    case 'and':
      return c.items.map((i) => `(${print(i)})`).join(` ${c.kind} `);
    case 'not':
      return `not (${print(c.item)})`;
    case 'truthy':
      return operand(c.operand);
    case 'compare':
      return `${operand(c.left)} ${c.op} ${operand(c.right)}`;
  }
}

const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/);
const operandArb: fc.Arbitrary<Operand> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('payload', 'subject', 'type', 'source', 'tenant', 'id', 'time'),
      fc.array(ident, { maxLength: 3 }),
    )
    .map(([root, rest]) => path(root, ...(root === 'payload' ? rest : []))),
  fc
    .oneof(
      fc.string({ unit: 'binary' }).filter((s) => !/[\uD800-\uDFFF]/u.test(s)),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    )
    .filter((v) => !Object.is(v, -0))
    .map(lit),
);
const conditionArb: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    operandArb.map((operand): Condition => ({ kind: 'truthy', operand })),
    fc
      .record({
        kind: fc.constant('compare' as const),
        op: fc.constantFrom('==', '!=', '<', '<=', '>', '>=' as const),
        left: operandArb,
        right: operandArb,
      })
      .map((r): Condition => ({ ...r })),
    tie('c').map((item): Condition => ({ kind: 'not', item })),
    fc
      .record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        items: fc.array(tie('c'), { minLength: 2, maxLength: 3 }),
      })
      .map((r): Condition => ({ ...r })),
  ),
})).c;

describe('parseCondition', () => {
  it('parses comparisons and literals of every kind', () => {
    assert.deepEqual(
      parseCondition('payload.amount_usd < 50'),
      cmp(path('payload', 'amount_usd'), '<', lit(50)),
    );
    assert.deepEqual(parseCondition(`subject == 'T-1'`), cmp(path('subject'), '==', lit('T-1')));
    assert.deepEqual(parseCondition('payload.x == -1.5e2'), cmp(path('payload', 'x'), '==', lit(-150)));
    assert.deepEqual(parseCondition('payload.x==null'), cmp(path('payload', 'x'), '==', lit(null)));
    assert.deepEqual(parseCondition('"a\\"b\\n\\u0041" == type'), cmp(lit('a"b\nA'), '==', path('type')));
    for (const op of ['==', '!=', '<', '<=', '>', '>='] as const) {
      assert.deepEqual(parseCondition(`payload.a ${op} true`), {
        kind: 'compare',
        op,
        left: path('payload', 'a'),
        right: lit(true),
      });
    }
  });

  it('reads a bare operand as truthiness', () => {
    assert.deepEqual(parseCondition('payload.vip'), { kind: 'truthy', operand: path('payload', 'vip') });
    assert.deepEqual(parseCondition('false'), { kind: 'truthy', operand: lit(false) });
  });

  it('accepts the event. prefix and keywords as later path segments', () => {
    assert.deepEqual(parseCondition('event.payload.not.and'), {
      kind: 'truthy',
      operand: path('payload', 'not', 'and'),
    });
    assert.deepEqual(parseCondition('event.subject'), { kind: 'truthy', operand: path('subject') });
  });

  it('binds not tighter than and, and tighter than or; parentheses override', () => {
    const a = { kind: 'truthy', operand: path('payload', 'a') } as const;
    const b = { kind: 'truthy', operand: path('payload', 'b') } as const;
    const c = { kind: 'truthy', operand: path('payload', 'c') } as const;
    assert.deepEqual(parseCondition('payload.a or payload.b and payload.c'), {
      kind: 'or',
      items: [a, { kind: 'and', items: [b, c] }],
    });
    assert.deepEqual(parseCondition('(payload.a or payload.b) and payload.c'), {
      kind: 'and',
      items: [{ kind: 'or', items: [a, b] }, c],
    });
    assert.deepEqual(parseCondition('not payload.a and payload.b'), {
      kind: 'and',
      items: [{ kind: 'not', item: a }, b],
    });
    assert.deepEqual(parseCondition('not not (payload.a)'), { kind: 'not', item: { kind: 'not', item: a } });
    assert.deepEqual(parseCondition('payload.a or payload.b or payload.c'), { kind: 'or', items: [a, b, c] });
  });

  it('reports syntax errors with the 0-based position', () => {
    const cases: [string, number, RegExp][] = [
      ['', 0, /expected a field.*got the end/],
      ['payload.a <', 11, /got the end of the condition/],
      ['payload.a = 1', 10, /use "==" to compare/],
      ['payload.a == 1 payload.b', 15, /expected "and", "or" or the end/],
      ['(payload.a', 10, /expected "\)" to close "\(" at character 1/],
      ['payload.', 8, /field name after "\."/],
      ['amount < 5', 0, /unknown field "amount"/],
      ['event', 0, /unknown field "event"/],
      ['subject.id == 1', 0, /"subject" is a string and has no field "id"/],
      ['payload.a == "open', 13, /string is not closed/],
      ['payload.a == "\\q"', 14, /unknown escape/],
      ['payload.a == 1e999', 13, /out of range/],
      ['payload.a && payload.b', 10, /unexpected "&"/],
      ['and', 0, /got "and"/],
      [`${'('.repeat(100)}payload.a${')'.repeat(100)}`, 65, /nested more than 64/],
    ];
    for (const [src, position, message] of cases) {
      const e = syntaxError(src);
      assert.equal(e.position, position, src);
      assert.match(e.message, message, src);
    }
    assert.throws(() => parseCondition('payload.a <'), { message: /\(at character 12\)$/ });
  });

  it('round-trips any AST through its printed form', () => {
    fc.assert(
      fc.property(conditionArb, (c) => {
        assert.deepEqual(parseCondition(print(c)), c);
      }),
    );
  });

  it('never throws anything but spec_invalid on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (src) => {
        try {
          parseCondition(src);
        } catch (e) {
          assert.equal((e as { code?: string }).code, ErrorCode.specInvalid);
        }
      }),
    );
  });
});
