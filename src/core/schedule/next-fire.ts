/**
 * When a schedule fires next (docs/events.md, "Schedules"): the first instant after a given one at
 * which a cron's local wall time, in an IANA zone (read through Intl), matches. Daylight saving:
 * a local time that does not exist (spring forward) fires once, at the first valid instant after
 * the gap (the transition); a local time that happens twice (fall back) fires once, at its first
 * occurrence. Pure (Intl's zone data is read, no clock): instants in, instants out; bounded (a cron
 * that matches no day in five years, such as 30 February, has no next fire).
 */
import { type Cron, dayMatches } from './cron.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` is an IANA time zone Intl knows. */
export function isTimeZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The local wall time of instant `t` (ms) in `zone`, as ms since the epoch read as UTC. */
export function wallTime(t: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const x of formatter(zone).formatToParts(new Date(t)))
    if (x.type !== 'literal') p[x.type] = Number(x.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
}

const offsetAt = (t: number, zone: string) => wallTime(t, zone) - Math.floor(t / 1000) * 1000;

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * The instant local wall time `L` (ms read as UTC) names in `zone`: its only occurrence, its first
 * when it happens twice, or for a time in a gap the first valid instant after it (the transition).
 */
export function instantOf(L: number, zone: string): number {
  const before = offsetAt(L - DAY, zone);
  const after = offsetAt(L + DAY, zone);
  const valid = [L - before, L - after].filter((t) => wallTime(t, zone) === L);
  if (valid.length > 0) return Math.min(...valid);
  // A gap: the transition is the first minute whose offset is the later one.
  let lo = Math.min(L - before, L - after);
  let hi = Math.max(L - before, L - after);
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE;
    if (offsetAt(mid, zone) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The first fire of `cron` in `zone` strictly after instant `t` (ms), or undefined within five years. */
export function nextFire(cron: Cron, zone: string, t: number): number | undefined {
  const start = wallTime(t, zone);
  const first = new Date(start - (start % DAY));
  for (let d = 0; d < 366 * 5; d++) {
    const day = new Date(first.getTime() + d * DAY);
    if (!dayMatches(cron, day.getUTCMonth() + 1, day.getUTCDate(), day.getUTCDay())) continue;
    for (const h of cron.hours)
      for (const m of cron.minutes) {
        const L = day.getTime() + h * 3_600_000 + m * MINUTE;
        if (L < start - DAY / 2) continue;
        const at = instantOf(L, zone);
        if (at > t) return at;
      }
  }
  return undefined;
}
