/**
 * A schedule trigger (issue 29 §3; docs/events.md, "Schedules"): `schedule: { cron, timezone,
 * missed }` under `triggers:`. Owns its shape, its strict reading (field paths named) and which
 * events it takes: only the fires of its own workflow's schedule — type `schedule.fired`, source
 * `schedule:<workflowId>` — so another workflow's schedule never starts it.
 */
import { parseCron } from '../schedule/cron.ts';
import { isTimeZone } from '../schedule/next-fire.ts';
import { checkKeys, expectMapping, readString, type SpecChecker } from './spec-checker.ts';
import type { FieldPath } from './spec-problem.ts';

/** What the scheduler does with fires missed while no scheduler ran: one catch-up, each (≤100), none. */
export const MISSED_POLICIES = ['once', 'each', 'skip'] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];

export interface ScheduleSpec {
  /** Five-field cron, read in `timezone`'s local wall time. */
  cron: string;
  /** IANA zone; UTC when absent. */
  timezone: string;
  missed: MissedPolicy;
}

/** The event type of every schedule fire. */
export const SCHEDULE_EVENT = 'schedule.fired';

/** The `source` of the fires of `workflowId`'s schedule. */
export function scheduleSource(workflowId: string): string {
  return `schedule:${workflowId}`;
}

const SCHEDULE_KEYS = ['cron', 'timezone', 'missed'] as const;

/** Reads `schedule:` at `path`; undefined (reported) when any part is wrong. */
export function readSchedule(c: SpecChecker, raw: unknown, path: FieldPath): ScheduleSpec | undefined {
  const obj = expectMapping(c, raw, path);
  if (!obj) return undefined;
  checkKeys(c, obj, path, SCHEDULE_KEYS);
  let ok = true;
  const cron = readString(c, obj, [...path, 'cron'], { what: 'a five-field cron expression' });
  if (cron !== undefined) {
    const p = parseCron(cron);
    if (!p.ok) {
      c.report([...path, 'cron'], p.message);
      ok = false;
    }
  } else ok = false;
  const timezone =
    readString(c, obj, [...path, 'timezone'], { what: 'an IANA time zone', optional: true }) ?? 'UTC';
  if (obj.timezone !== undefined && !isTimeZone(timezone)) {
    c.report(
      [...path, 'timezone'],
      `expected an IANA time zone such as Europe/Berlin, got ${JSON.stringify(timezone)}`,
    );
    ok = false;
  }
  const missed = obj.missed ?? 'once';
  if (typeof missed !== 'string' || !(MISSED_POLICIES as readonly string[]).includes(missed)) {
    c.report(
      [...path, 'missed'],
      `expected one of ${MISSED_POLICIES.join(', ')}, got ${JSON.stringify(missed)}`,
    );
    ok = false;
  }
  return ok && cron !== undefined ? { cron, timezone, missed: missed as MissedPolicy } : undefined;
}

/** Whether a schedule trigger of `workflowId` takes this event: its own workflow's fires only. */
export function scheduleTakes(
  workflowId: string | undefined,
  event: { readonly type: string; readonly source: string },
): boolean {
  return (
    workflowId !== undefined && event.type === SCHEDULE_EVENT && event.source === scheduleSource(workflowId)
  );
}
