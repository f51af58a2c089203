import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCondition } from './evaluate-condition.ts';
import type { EventLike } from './event-like.ts';
import { parseCondition } from './parse-condition.ts';
import { triggerMatches } from './trigger-matches.ts';

function event(payload: Record<string, unknown> = {}): EventLike {
  return {
    id: 'evt-1',
    type: 'refund.requested',
    tenant: 'acme',
    source: 'helpdesk',
    subject: 'T-1001',
    time: '2026-11-30T09:00:00Z',
    payload,
  };
}

const holds = (src: string, payload: Record<string, unknown> = {}) =>
  evaluateCondition(parseCondition(src), event(payload));

describe('evaluateCondition', () => {
  const payload = {
    amount: 30,
    currency: 'USD',
    vip: false,
    tags: ['a'],
    nested: { n: 1 },
    zero: 0,
    empty: '',
    nil: null,
  };

  it('compares numbers and strings', () => {
    const t = [
      'payload.amount < 50',
      'payload.amount <= 30',
      'payload.amount > 29.5',
      'payload.amount >= 30',
      'payload.amount == 30',
      'payload.amount != 31',
      'payload.currency == "USD"',
      "payload.currency != 'EUR'",
      'subject == "T-1001"',
      'event.type == "refund.requested"',
      'tenant == "acme" and source == "helpdesk" and id == "evt-1"',
      'time >= "2026-11-30" and time < "2026-12-01"',
      '"abc" < "abd"',
      'payload.nested == payload.nested',
    ];
    for (const src of t) assert.equal(holds(src, payload), true, src);
    const f = [
      'payload.amount < 30',
      'payload.amount > 30',
      'payload.amount == "30"',
      'payload.currency == "usd"',
    ];
    for (const src of f) assert.equal(holds(src, payload), false, src);
  });

  it('is false for ordering across types, never coercing', () => {
    for (const src of [
      'payload.amount < "50"',
      'payload.currency > 1',
      'payload.vip < true',
      'payload.nil < 1',
      'payload.tags > 0',
    ]) {
      assert.equal(holds(src, payload), false, src);
    }
    assert.equal(holds('"10" < "9"'), true, 'strings compare by code units');
  });

  it('treats a missing field as null for == and != and as false for ordering', () => {
    assert.equal(holds('payload.missing == null', payload), true);
    assert.equal(holds('payload.nil == null', payload), true);
    assert.equal(holds('payload.missing == payload.nil', payload), true);
    assert.equal(holds('payload.missing != null', payload), false);
    assert.equal(holds('payload.missing == 0', payload), false);
    assert.equal(holds('payload.missing != 0', payload), true);
    for (const op of ['<', '<=', '>', '>=']) {
      assert.equal(holds(`payload.missing ${op} 1`, payload), false, op);
      assert.equal(holds(`not payload.missing ${op} 1`, payload), true, op);
    }
    assert.equal(holds('payload.amount.deeper == null', payload), true, 'a field of a number is missing');
    assert.equal(holds('payload.tags.length > 0', payload), false, 'arrays have no named fields');
    assert.equal(holds('payload.constructor', payload), false, 'prototypes are never read');
    assert.equal(holds('payload.nested.n == 1', payload), true);
  });

  it('reads a bare operand as truthiness', () => {
    const expected: Record<string, boolean> = {
      'payload.amount': true,
      'payload.vip': false,
      'payload.tags': true,
      'payload.nested': true,
      'payload.zero': false,
      'payload.empty': false,
      'payload.nil': false,
      'payload.missing': false,
      'not payload.missing': true,
      true: true,
      null: false,
    };
    for (const [src, want] of Object.entries(expected)) assert.equal(holds(src, payload), want, src);
  });

  it('follows precedence: not > and > or', () => {
    assert.equal(holds('payload.vip or payload.amount > 10 and payload.currency == "EUR"', payload), false);
    assert.equal(holds('(payload.vip or payload.amount > 10) and payload.currency == "USD"', payload), true);
    assert.equal(holds('not payload.vip and payload.amount == 30', payload), true);
    assert.equal(holds('not (payload.vip or payload.amount == 30)', payload), false);
    assert.equal(holds('true or false and false'), true);
    assert.equal(holds('(true or false) and false'), false);
  });

  it('never throws, whatever the payload', () => {
    const conditions = [
      'payload.a < 1 or payload.a.b == "x" or payload.a',
      'not payload.b >= payload.c and payload.d != payload.a',
      'payload.a == payload.b',
    ].map(parseCondition);
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom('a', 'b', 'c', 'd', 'x'),
          fc.anything({ withNullPrototype: true, withMap: true, withBigInt: true }),
        ),
        (p) => {
          for (const c of conditions) assert.equal(typeof evaluateCondition(c, event(p)), 'boolean');
        },
      ),
    );
  });

  it('survives hostile payloads: throwing getters and proxies', () => {
    const getter = Object.defineProperty({}, 'b', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const proxy = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    for (const a of [getter, proxy]) {
      assert.equal(holds('payload.a.b == 1', { a }), false);
      assert.equal(holds('payload.a == payload.a', { a }), true);
      assert.equal(holds('payload.a == payload.c', { a, c: { b: 1 } }), false);
    }
  });
});

describe('triggerMatches', () => {
  it('needs the event type and, if given, the condition', () => {
    const e = event({ amount: 30 });
    assert.equal(triggerMatches({ event: 'refund.requested' }, e), true);
    assert.equal(triggerMatches({ event: 'refund.issued' }, e), false);
    assert.equal(triggerMatches({ event: 'refund.requested', when: 'payload.amount < 50' }, e), true);
    assert.equal(triggerMatches({ event: 'refund.requested', when: 'payload.amount >= 50' }, e), false);
    assert.equal(triggerMatches({ event: 'refund.issued', when: 'payload.amount < 50' }, e), false);
  });

  it('throws spec_invalid for an unvalidated trigger with bad syntax', () => {
    assert.throws(() => triggerMatches({ event: 'refund.requested', when: 'payload.a <' }, event()), {
      code: 'spec_invalid',
    });
  });
});
