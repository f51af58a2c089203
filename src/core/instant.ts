/**
 * ISO 8601 instants as Keel documents write them (`2026-03-14T10:30:00Z`, or with an offset).
 * Parsing only: a pure function of the string; nothing here reads a clock.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch, or undefined when `s` is not an ISO 8601 instant with a zone. */
export function parseInstant(s: string): number | undefined {
  const ms = utcMillis(s);
  if (ms !== undefined) return ms;
  if (!ISO_INSTANT.test(s)) return undefined;
  const parsed = Date.parse(s);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * The instant Keel's clock writes (`Date.toISOString`: `2026-03-14T10:30:00.000Z`), read by
 * position: every entry's time and every governed decision's `now` has this form, and a run
 * reads it several times per step. Defined exactly when `s` is the clock's own text for its
 * instant; anything else (another form, a year before 100, an hour of 24, a day past the end of
 * its month, which Date.parse rolls over) takes the general path. Where both apply they agree
 * (a property test).
 */
export function utcMillis(s: string): number | undefined {
  if (
    s.length !== 24 ||
    s.charCodeAt(4) !== 45 || // -
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 || // T
    s.charCodeAt(13) !== 58 || // :
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 || // .
    s.charCodeAt(23) !== 90 // Z
  )
    return undefined;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const milli = digits(s, 20, 3);
  if (
    year < 100 || // Date.UTC reads years 0-99 as 1900-1999
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    milli < 0
  )
    return undefined;
  if (day > 28 && day > daysIn(year, month)) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return MONTH_DAYS[month - 1]! + (leap ? 1 : 0);
}

/** The decimal number in s[at, at + n), or -1 if any of those is not a digit. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * An ISO 8601 instant as a bound on times the clock wrote: the clock's text (`Date.toISOString`)
 * of the first millisecond at or after `s`, so that comparing the clock's texts byte by byte with
 * it agrees with comparing the instants (a finer fraction than milliseconds rounds up:
 * `t >= s` and `t < s` hold exactly when they hold against the bound). Undefined when `s` is not an
 * instant with a zone, or falls outside the years 0000-9999 the clock's text keeps in order.
 */
export function instantBound(s: string): string | undefined {
  const ms = parseInstant(s);
  if (ms === undefined) return undefined;
  const finer = /\.\d{3}(\d+)/.exec(s)?.[1];
  const bound = finer !== undefined && /[1-9]/.test(finer) ? ms + 1 : ms;
  const text = new Date(bound).toISOString();
  return text.length === 24 ? text : undefined;
}
