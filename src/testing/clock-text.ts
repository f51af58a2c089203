/**
 * Instants in the clock's own form (`Date.toISOString`, `2026-03-14T10:30:00.000Z`) for property
 * tests: built from field values, possible or not (month 13, February 31, hour 24), and any real
 * instant the clock could write.
 */
import fc from 'fast-check';

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** The clock-form text of these field values, whether or not they name a real instant. */
export function clockText(y: number, mo: number, d: number, h: number, mi: number, s = 7, ms = 250): string {
  return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`;
}

/** Any instant from year 100 to 9999 (Date.UTC reads years 0-99 as 1900-1999). */
export const anyInstant = fc.date({
  min: new Date('0100-01-01T00:00:00Z'),
  max: new Date('9999-12-31T23:59:59Z'),
  noInvalidDate: true,
});
