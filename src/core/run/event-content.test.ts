import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { EventRecord } from '../ledger/index.ts';
import { CONTENT_FIELDS, deliveredEvent, differingFields, eventContent } from './event-content.ts';

const base: EventRecord = {
  id: 'evt-1',
  type: 'refund.requested',
  tenant: 'acme',
  source: 'helpdesk',
  subject: 'T-1',
  payload: { amount: 30 },
  time: '2026-12-01T10:00:00Z',
};

describe('an event’s content', () => {
  test('a redelivery differs exactly in the fields changed, time included; the same content differs in none (property)', () => {
    const change = fc.record({
      type: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
      subject: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      time: fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined }),
      payload: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.integer()), { nil: undefined }),
    });
    fc.assert(
      fc.property(change, (c) => {
        const next = { ...base, ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) };
        const expected = CONTENT_FIELDS.filter(
          (f) => JSON.stringify((next as Record<string, unknown>)[f]) !== JSON.stringify(base[f]),
        );
        const a = eventContent(base);
        const b = eventContent(next as EventRecord);
        assert.deepEqual(differingFields(a, b), expected);
        assert.equal(a.eventHash === b.eventHash, expected.length === 0);
      }),
      { numRuns: 300 },
    );
  });

  test('the same content rebuilt with its keys in another order is the same content', () => {
    const again = { ...base, payload: { amount: 30 } };
    const reordered = Object.fromEntries(Object.entries(again).reverse()) as unknown as EventRecord;
    assert.equal(eventContent(reordered).eventHash, eventContent(base).eventHash);
  });

  test('an event without a source takes the channel’s name, keeping the form it came in as an earlier name', () => {
    const bare = { ...base, source: '' };
    assert.deepEqual(deliveredEvent(bare, 'http'), { event: { ...base, source: 'http' }, earlier: [bare] });
    assert.deepEqual(deliveredEvent(base, 'http'), { event: base, earlier: [] });
  });
});
