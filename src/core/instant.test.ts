import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { anyInstant, clockText } from '../testing/clock-text.ts';
import { instantBound, instantMessage, instantProblem, parseInstant, utcMillis } from './instant.ts';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Days in a month, by the host's calendar (a year shifted by 400 has the same calendar). */
const refDaysIn = (y: number, mo: number) => new Date(Date.UTC(2000 + (y % 400), mo, 0)).getUTCDate();

/** Whether these field values name a real instant (the reference for what parseInstant accepts). */
const valid = (y: number, mo: number, d: number, h: number, mi: number, s: number, oh: number, om: number) =>
  mo >= 1 && mo <= 12 && d >= 1 && d <= refDaysIn(y, mo) && h < 24 && mi < 60 && s < 60 && oh < 24 && om < 60;

const zoneText = (sign: number, oh: number, om: number) =>
  sign === 0 ? 'Z' : `${sign > 0 ? '+' : '-'}${pad(oh)}:${pad(om)}`;

describe('parseInstant (RFC 3339, calendar included)', () => {
  it('reads any instant written with any offset and fraction as that instant (round trip through a real date)', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-02T00:00:00Z'),
          max: new Date('9999-12-30T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: -1, max: 1 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.nat(999_999),
        (d, sign, oh, om, sub) => {
          const offsetMs = sign * (oh * 60 + om) * 60_000 * (sign === 0 ? 0 : 1);
          // The wall time at that offset, written as the UTC fields of the shifted instant.
          const wall = new Date(d.getTime() + offsetMs);
          const y = wall.getUTCFullYear();
          if (y < 0 || y > 9999) return;
          const text = `${pad(y, 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}.${pad(wall.getUTCMilliseconds(), 3)}${pad(sub, 6)}${zoneText(sign, oh, om)}`;
          assert.equal(parseInstant(text), d.getTime(), text);
          assert.equal(instantProblem(text), undefined, text);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('accepts exactly the field values that name a real instant, for every value 00-99 of every field', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: -1, max: 1 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (y, mo, d, h, mi, s, sign, oh, om) => {
          const text = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${zoneText(sign, oh, om)}`;
          const ok = valid(y, mo, d, h, mi, s, sign === 0 ? 0 : oh, sign === 0 ? 0 : om);
          assert.equal(parseInstant(text) !== undefined, ok, text);
          assert.equal(instantProblem(text) === undefined, ok, text);
          const clock = clockText(y, mo, d, h, mi, s % 100, 250);
          if (utcMillis(clock) !== undefined) assert.equal(utcMillis(clock), parseInstant(clock), clock);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('reads what the clock writes by position, as the general path reads it', () => {
    fc.assert(
      fc.property(anyInstant, (d) => {
        const iso = d.toISOString();
        assert.equal(utcMillis(iso), d.getTime());
        assert.equal(parseInstant(iso), d.getTime());
      }),
    );
    assert.equal(parseInstant('2026-03-14T10:30:00+02:00'), Date.parse('2026-03-14T08:30:00Z'));
    assert.equal(parseInstant('2026-03-14T10:30:00-00:30'), Date.parse('2026-03-14T11:00:00Z'));
    assert.equal(parseInstant('0000-01-01T00:00:00Z'), Date.UTC(2000, 0, 1) - 2000 * 365.2425 * 86_400_000);
    assert.equal(parseInstant('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.equal(parseInstant('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
  });

  it('refuses the impossible times of issue 26, each with its reason', () => {
    const cases: [string, RegExp][] = [
      ['2026-02-30T00:00:00Z', /February 2026 has 28 days/],
      ['2026-04-31T00:00:00Z', /April 2026 has 30 days/],
      ['1900-02-29T00:00:00Z', /February 1900 has 28 days/],
      ['2026-13-45T00:00:00Z', /month 13/],
      ['0000-00-00T00:00:00Z', /month 00/],
      ['2026-01-01T25:00:00Z', /hour 25/],
      ['2026-01-01T24:00:00Z', /hour 24/],
      ['2026-01-01T23:61:00Z', /minute 61/],
      ['2026-01-01T23:59:60Z', /leap second/],
      ['2026-01-01T23:59:61Z', /second 61/],
      ['2026-01-01T00:00:00+25:00', /offset \+25:00/],
      ['2026-01-01T00:00:00-24:00', /offset -24:00/],
      ['2026-01-01T00:00:00+01:60', /offset \+01:60/],
      ['2026-01-01T00:00Z', /seconds/],
      ['2026-01-01T00:00:00', /no zone/],
      ['2026-01-01', /no time of day/],
      ['2026-01-01 00:00:00Z', /uppercase T/],
      ['2026-01-01T00:00:00.Z', /fraction/],
      ['2026-01-01T00:00:00.1234567890Z', /fraction/],
      ['2026-01-01T00:00:00z', /not a zone/],
      ['yesterday', /does not start with a date/],
      ['', /does not start with a date/],
      [`2026-01-01T00:00:00Z${' '.repeat(100)}`, /longer than/],
    ];
    for (const [s, why] of cases) {
      assert.equal(parseInstant(s), undefined, s);
      assert.match(instantProblem(s) ?? '', why, s);
    }
    assert.equal(
      instantMessage('time', '2026-02-30T00:00:00Z'),
      'time: expected an RFC 3339 instant like 2026-01-31T12:00:00Z, got "2026-02-30T00:00:00Z": February 2026 has 28 days',
    );
    assert.equal(instantMessage('time', '2026-02-28T00:00:00Z'), undefined);
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
    for (const s of [
      '',
      'yesterday',
      '2026-03-14',
      '2026-03-14T10:30:00',
      '2026-02-29T10:30:00Z',
      '9999-12-31T23:00:00-05:00',
    ])
      assert.equal(instantBound(s), undefined, s);
  });
});
