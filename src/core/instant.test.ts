import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { anyInstant, clockText } from '../testing/clock-text.ts';
import { instantBound, parseInstant, utcMillis } from './instant.ts';

const slow = (s: string): number | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(s))
    return undefined;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
};

describe('parseInstant', () => {
  it('reads the clock form by position exactly as Date.parse reads it, for every field value', () => {
    // Out-of-range fields included (month 13, day 31 of February, hour 24, second 60, year 0042).
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 999 }),
        (y, mo, d, h, mi, s, ms) => {
          const text = clockText(y, mo, d, h, mi, s, ms);
          const fast = utcMillis(text);
          if (fast !== undefined) assert.equal(fast, slow(text), text);
          assert.equal(parseInstant(text), slow(text), text);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('agrees with Date.parse on what the clock writes, and on the other forms it accepts', () => {
    fc.assert(
      fc.property(anyInstant, (d) => {
        const iso = d.toISOString();
        assert.equal(utcMillis(iso), d.getTime());
        assert.equal(parseInstant(iso), d.getTime());
      }),
    );
    assert.equal(parseInstant('2026-03-14T10:30:00Z'), Date.parse('2026-03-14T10:30:00Z'));
    assert.equal(parseInstant('2026-03-14T10:30:00+02:00'), Date.parse('2026-03-14T10:30:00+02:00'));
    assert.equal(parseInstant('2026-01-01T24:00:00.000Z'), Date.parse('2026-01-01T24:00:00.000Z'));
  });

  it('a clock-form string with any one character changed reads as Date.parse reads it (or not at all)', () => {
    fc.assert(
      fc.property(anyInstant, fc.nat(23), fc.string({ minLength: 1, maxLength: 1 }), (d, at, c) => {
        const iso = d.toISOString();
        const text = iso.slice(0, at) + c + iso.slice(at + 1);
        assert.equal(parseInstant(text), slow(text), text);
      }),
      { numRuns: 5000 },
    );
  });

  it("reads by position only the clock's own text: a day past the end of its month takes the general path", () => {
    assert.equal(utcMillis('2026-02-29T00:00:00.000Z'), undefined);
    assert.equal(parseInstant('2026-02-29T00:00:00.000Z'), Date.parse('2026-02-29T00:00:00.000Z'));
    assert.equal(utcMillis('2024-02-29T00:00:00.000Z'), Date.parse('2024-02-29T00:00:00.000Z'));
    assert.equal(utcMillis('2026-04-31T00:00:00.000Z'), undefined);
  });

  it('refuses what is not an instant with a zone, whatever its length', () => {
    for (const s of [
      '',
      'yesterday',
      '2026-03-14',
      '2026-03-14T10:30:00',
      '2026-03-14T10:30:00.000z',
      '2026-03-14T10:3a:00.000Z',
      '2026-13-14T10:30:00.000Z',
      '2026-03-14 10:30:00.000Z',
    ])
      assert.equal(parseInstant(s), undefined, s);
  });
});

describe('instantBound', () => {
  it('is the clock text of the instant, or of the next millisecond when a finer fraction is past it', () => {
    assert.equal(instantBound('2026-03-14T10:30:00Z'), '2026-03-14T10:30:00.000Z');
    assert.equal(instantBound('2026-03-14T12:30:00+02:00'), '2026-03-14T10:30:00.000Z');
    assert.equal(instantBound('2026-03-14T10:30:00.123Z'), '2026-03-14T10:30:00.123Z');
    assert.equal(instantBound('2026-03-14T10:30:00.123000Z'), '2026-03-14T10:30:00.123Z');
    assert.equal(instantBound('2026-03-14T10:30:00.1230001Z'), '2026-03-14T10:30:00.124Z');
    assert.equal(instantBound('2026-12-31T23:59:59.9999Z'), '2027-01-01T00:00:00.000Z');
  });

  it('compares with what the clock writes as the instants compare', () => {
    fc.assert(
      fc.property(anyInstant, fc.integer({ min: -5, max: 5 }), fc.nat(999_999), (d, dms, sub) => {
        const t = d.toISOString();
        const at = new Date(d.getTime() + dms);
        const s = `${at.toISOString().slice(0, 23)}${String(sub).padStart(6, '0')}Z`;
        const b = instantBound(s);
        if (b === undefined) return; // outside the years the clock text keeps in order
        const exact = BigInt(at.getTime()) * 1_000_000n + BigInt(sub); // the instant s, in ns
        const clock = BigInt(d.getTime()) * 1_000_000n;
        assert.equal(t >= b, clock >= exact, `${t} >= ${s}`);
        assert.equal(t < b, clock < exact, `${t} < ${s}`);
      }),
    );
  });

  it('refuses what is not an instant with a zone, and years the clock text does not keep in order', () => {
    for (const s of ['', 'yesterday', '2026-03-14', '2026-03-14T10:30:00', '9999-12-31T23:00:00-05:00'])
      assert.equal(instantBound(s), undefined, s);
  });
});
