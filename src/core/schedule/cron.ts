/**
 * Five-field cron expressions (issue 29 §3; docs/events.md, "Schedules"): `minute hour day-of-month
 * month day-of-week`, each `*`, a value, a range `a-b`, a step `*\/n` or `a-b/n`, or a list of
 * those; month names (jan..dec) and weekday names (sun..sat) allowed, weekday 7 is Sunday. As in
 * Vixie cron, when both day fields are restricted a day matching either is taken. Strict: anything
 * else is refused with the field named. Pure: parses text into sets of allowed values, nothing more.
 */

export interface Cron {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly days: readonly number[];
  readonly months: readonly number[];
  readonly weekdays: readonly number[];
  /** Whether day-of-month and day-of-week were each restricted (not `*`). */
  readonly dayRestricted: boolean;
  readonly weekdayRestricted: boolean;
}

export type CronParse =
  | { readonly ok: true; readonly cron: Cron }
  | { readonly ok: false; readonly field: string; readonly message: string };

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, base: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: WEEKDAYS, base: 0 },
] as const;

class Refusal extends Error {}

function value(text: string, f: (typeof FIELDS)[number]): number {
  const lower = text.toLowerCase();
  if ('names' in f) {
    const i = f.names.indexOf(lower);
    if (i >= 0) return i + f.base;
  }
  if (!/^\d{1,2}$/.test(text))
    throw new Refusal(`${JSON.stringify(text)} is not a number${'names' in f ? ' or a name' : ''}`);
  const n = Number(text);
  if (n < f.min || n > f.max) throw new Refusal(`${n} is outside ${f.min}-${f.max}`);
  return n;
}

function field(text: string, f: (typeof FIELDS)[number]): number[] {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    if (part === '') throw new Refusal('an empty list item');
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) throw new Refusal(`${JSON.stringify(part)} has two steps`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,2}$/.test(stepText) || Number(stepText) < 1)
        throw new Refusal(`step ${JSON.stringify(stepText)} is not a whole number from 1`);
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === '*') {
      lo = f.min;
      hi = f.name === 'day-of-week' ? 6 : f.max;
    } else {
      const ends = range!.split('-');
      if (ends.length > 2) throw new Refusal(`${JSON.stringify(range)} is not a range`);
      lo = value(ends[0]!, f);
      hi = ends.length === 2 ? value(ends[1]!, f) : stepText !== undefined ? f.max : lo;
      if (hi < lo) throw new Refusal(`range ${JSON.stringify(range)} runs backwards`);
    }
    for (let n = lo; n <= hi; n += step) out.add(f.name === 'day-of-week' && n === 7 ? 0 : n);
  }
  return [...out].sort((a, b) => a - b);
}

/** Parses a five-field cron expression, or says which field is wrong and why. */
export function parseCron(text: string): CronParse {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5 || text.trim() === '')
    return {
      ok: false,
      field: 'cron',
      message: `expected five fields (minute hour day-of-month month day-of-week), got ${text.trim() === '' ? 0 : parts.length}`,
    };
  const sets: number[][] = [];
  for (const [i, f] of FIELDS.entries()) {
    try {
      sets.push(field(parts[i]!, f));
    } catch (e) {
      if (e instanceof Refusal) return { ok: false, field: f.name, message: `${f.name}: ${e.message}` };
      throw e;
    }
  }
  return {
    ok: true,
    cron: {
      minutes: sets[0]!,
      hours: sets[1]!,
      days: sets[2]!,
      months: sets[3]!,
      weekdays: sets[4]!,
      dayRestricted: parts[2] !== '*',
      weekdayRestricted: parts[4] !== '*',
    },
  };
}

/** Whether a calendar day (month 1-12, weekday 0 = Sunday) is one the cron fires on. */
export function dayMatches(c: Cron, month: number, day: number, weekday: number): boolean {
  if (!c.months.includes(month)) return false;
  const d = c.days.includes(day);
  const w = c.weekdays.includes(weekday);
  if (c.dayRestricted && c.weekdayRestricted) return d || w;
  return d && w;
}
