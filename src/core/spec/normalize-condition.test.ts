import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCondition } from './evaluate-condition.ts';
import type { EventLike } from './event-like.ts';
import { conditionKey, normalizeCondition, sameCondition } from './normalize-condition.ts';
import type { CompareOp, Condition, Operand } from './parse-condition.ts';

describe('normalizeCondition', () => {
  it('the same condition written otherwise is the same', () => {
    const same: [string, string][] = [
      ['payload.a < 5 and payload.b == 1', 'payload.b == 1 and payload.a < 5'],
      ['payload.a < 5', '((payload.a < 5))'],
      ['payload.a < 5', '5 > payload.a'],
      ['event.payload.a <= 5', 'payload.a <= 5'],
      ['payload.c == "x"', "payload.c == 'x'"],
      ['not (payload.a == 1)', 'payload.a != 1'],
      ['not (not payload.vip)', 'payload.vip'],
      ['not (payload.a == 1 and payload.b == 2)', 'payload.a != 1 or payload.b != 2'],
      [
        'payload.a == 1 or (payload.b == 2 or payload.c == 3)',
        '(payload.c == 3 or payload.a == 1) or payload.b == 2',
      ],
      ['payload.a == 1 and payload.a == 1', 'payload.a == 1'],
      ['payload.a == 5', 'payload.a == 5.0'],
    ];
    for (const [a, b] of same) assert.equal(sameCondition(a, b), true, `${a}  ~  ${b}`);
  });

  it('never claims a difference away', () => {
    const differ: [string, string][] = [
      // A missing amount makes the first true and the second false.
      ['not (payload.a >= 5)', 'payload.a < 5'],
      ['payload.a < 5', 'payload.a <= 5'],
      ['payload.a < 5 and payload.b == 1', 'payload.a < 5 or payload.b == 1'],
      ['payload.vip', 'payload.vip == true'],
      ['payload.a == "5"', 'payload.a == 5'],
      ['payload.a < 5', 'not payload.a'],
    ];
    for (const [a, b] of differ) assert.equal(sameCondition(a, b), false, `${a}  !~  ${b}`);
    assert.equal(
      sameCondition('payload.a <', 'payload.a < 1'),
      false,
      'a text that does not parse is no match',
    );
  });

  // Conditions over a few fields and literals, and events where those fields are of every kind.
  const anOperand: fc.Arbitrary<Operand> = fc.oneof(
    fc.constantFrom('a', 'b').map((f) => ({ kind: 'path' as const, path: ['payload', f] })),
    fc.constant({ kind: 'path' as const, path: ['subject'] }),
    fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constantFrom('x', 'y', true, false, null)).map((value) => ({
      kind: 'literal' as const,
      value,
    })),
  );
  const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
    condition: fc.oneof(
      { depthSize: 'small' },
      fc.record({
        kind: fc.constant('compare' as const),
        op: fc.constantFrom<CompareOp>('==', '!=', '<', '<=', '>', '>='),
        left: anOperand,
        right: anOperand,
      }),
      fc.record({ kind: fc.constant('truthy' as const), operand: anOperand }),
      fc.record({ kind: fc.constant('not' as const), item: tie('condition') }),
      fc.record({
        kind: fc.constantFrom('and' as const, 'or' as const),
        items: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }),
      }),
    ),
  }));
  const aValue = fc.oneof(
    fc.integer({ min: -2, max: 2 }),
    fc.constantFrom('x', 'y', '', true, false, null, [1], { n: 1 }),
  );
  const anEvent = fc
    .record({ a: aValue, b: aValue, subject: fc.constantFrom('x', 'y', '') }, { requiredKeys: ['subject'] })
    .map(
      ({ subject, ...payload }): EventLike => ({
        id: 'e',
        type: 't',
        tenant: 'acme',
        source: 's',
        subject,
        time: '2026-01-01T00:00:00Z',
        payload,
      }),
    );

  it('property: the normal form holds on exactly the events the condition holds on (sound)', () => {
    fc.assert(
      fc.property(condition, fc.array(anEvent, { minLength: 1, maxLength: 8 }), (c, events) => {
        const n = normalizeCondition(c);
        for (const e of events) assert.equal(evaluateCondition(n, e), evaluateCondition(c, e));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: the normal form is a fixed point', () => {
    fc.assert(
      fc.property(condition, (c) => {
        const n = normalizeCondition(c);
        assert.equal(conditionKey(normalizeCondition(n)), conditionKey(n));
      }),
      { numRuns: 1000 },
    );
  });
});
