/**
 * RFC 3339 instants as Keel reads them wherever one enters (events' `time`, writ windows, CLI
 * flags, HTTP query bounds): `2026-03-14T10:30:00Z`, `2026-03-14T10:30:00.5+02:00`. Strict, the
 * calendar included: a day past the end of its month (2026-02-30, 2026-04-31), month 00 or 13,
 * hour 24, minute or second 60 (leap seconds are refused: write :59), an offset past ±23:59, a
 * missing seconds field or zone are all refused, with the reason. Parsing only: a pure function of
 * the string; nothing here reads a clock.
 */
import { ErrorCode, KeelError } from './errors.ts';

/** The longest RFC 3339 instant (`2026-03-14T10:30:00.123456789+02:00` is 35 characters). */
const MAX_LENGTH = 35;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** An example of the form, for messages. */
export const INSTANT_EXAMPLE = '2026-01-31T12:00:00Z';

type Read = { readonly ms: number } | { readonly problem: string };

/** Milliseconds since the epoch, or undefined when `s` is not an RFC 3339 instant (see above). */
export function parseInstant(s: string): number | undefined {
  const ms = utcMillis(s);
  if (ms !== undefined) return ms;
  const r = readInstant(s);
  return 'ms' in r ? r.ms : undefined;
}

/** Why `s` is not an RFC 3339 instant (`February 2026 has 28 days`), or undefined when it is one. */
export function instantProblem(s: string): string | undefined {
  if (utcMillis(s) !== undefined) return undefined;
  const r = readInstant(s);
  return 'problem' in r ? r.problem : undefined;
}

/**
 * The message an edge gives for a bad instant in `field`: what was expected, an excerpt of what
 * came, and why it is not one (`time: expected an RFC 3339 instant like 2026-01-31T12:00:00Z, got
 * "2026-02-30T00:00:00Z": February 2026 has 28 days`). Undefined when `s` is an instant.
 */
export function instantMessage(field: string, s: string): string | undefined {
  const problem = instantProblem(s);
  if (problem === undefined) return undefined;
  const shown =
    s.length > 40 ? `${JSON.stringify(s.slice(0, 39))}… (${s.length} characters)` : JSON.stringify(s);
  return `${field}: expected an RFC 3339 instant like ${INSTANT_EXAMPLE}, got ${shown}: ${problem}`;
}

function readInstant(s: string): Read {
  if (s.length > MAX_LENGTH) return { problem: `longer than the ${MAX_LENGTH} characters an instant takes` };
  const m = RFC3339.exec(s);
  if (!m) return { problem: formProblem(s) };
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12) return { problem: `month ${m[2]} is not 01 to 12` };
  const days = daysIn(year, month);
  if (day < 1 || day > days)
    return {
      problem: day < 1 ? `day ${m[3]} is not a day` : `${MONTHS[month - 1]} ${m[1]} has ${days} days`,
    };
  if (hour > 23) return { problem: `hour ${m[4]} is past 23` };
  if (minute > 59) return { problem: `minute ${m[5]} is past 59` };
  if (second === 60) return { problem: 'a leap second (:60) is not accepted; write :59' };
  if (second > 59) return { problem: `second ${m[6]} is past 59` };
  let offsetMin = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return { problem: `offset ${m[8]}${m[9]}:${m[10]} is past ±23:59` };
    offsetMin = (m[8] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const milli = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  return {
    ms:
      epochDay(year, month, day) * 86_400_000 +
      ((hour * 60 + minute - offsetMin) * 60 + second) * 1000 +
      milli,
  };
}

/** What is wrong with the shape of a text that is not an instant at all. */
function formProblem(s: string): string {
  if (!/^\d{4}-\d{2}-\d{2}/.test(s)) return 'it does not start with a date YYYY-MM-DD';
  if (s.length === 10) return 'a date alone has no time of day; add T00:00:00Z';
  if (s[10] !== 'T') return 'the date and the time are joined by an uppercase T';
  if (!/^\d{2}:\d{2}:\d{2}/.test(s.slice(11))) return 'the time of day is HH:MM:SS (seconds included)';
  const fraction = /^\.\d*/.exec(s.slice(19))?.[0] ?? '';
  if (fraction.length === 1 || fraction.length > 10) return 'a fraction of a second has 1 to 9 digits';
  const zone = s.slice(19 + fraction.length);
  if (zone === '') return 'it has no zone; end it with Z or an offset like +02:00';
  return `${JSON.stringify(zone.slice(0, 12))} is not a zone; end it with Z or an offset like +02:00`;
}

/** Days from 1970-01-01 to the date (proleptic Gregorian; Hinnant's days_from_civil). */
function epochDay(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * The instant Keel's clock writes (`Date.toISOString`: `2026-03-14T10:30:00.000Z`), read by
 * position: every entry's time and every governed decision's `now` has this form, and a run
 * reads it several times per step. Defined exactly when `s` is the clock's own text for its
 * instant; anything else (another form, a year before 100) takes the general path, which refuses
 * an hour of 24 or a day past the end of its month as this does. Where both apply they agree (a
 * property test).
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
 * An RFC 3339 instant as a bound on times the clock wrote: the clock's text (`Date.toISOString`)
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

/**
 * `value` (an option or query field named `field`) as a bound on the clock's times (instantBound),
 * or a `usage` error naming the field, the value and why it is not an instant: the one check every
 * edge that takes a time filter (`since`, `until`, `--before`) makes.
 */
export function requireInstantBound(field: string, value: unknown): string {
  const s = typeof value === 'string' ? value : String(value);
  const bound = typeof value === 'string' ? instantBound(value) : undefined;
  if (bound !== undefined) return bound;
  const message =
    (typeof value === 'string' ? instantMessage(field, s) : undefined) ??
    `${field}: expected an RFC 3339 instant like ${INSTANT_EXAMPLE}, got ${JSON.stringify(s.slice(0, 64))}: it is outside the years 0000-9999`;
  throw new KeelError(ErrorCode.usage, message, { field });
}
