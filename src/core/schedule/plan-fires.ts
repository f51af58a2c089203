/**
 * Which fires of a schedule are due now (issue 29 §3; docs/events.md, "Schedules"), and the fire
 * event each becomes. Pure: the schedule, the last fire handled and the time in; the fires to emit
 * and the next fire out.
 *
 * A fire at or before `now` and after the last one handled is due. One within `grace` of `now` is
 * on time; older ones were missed (no scheduler ran) and follow the schedule's `missed` policy:
 * `once` emits one catch-up (the latest missed fire), `each` every missed fire (the latest 100),
 * `skip` none. With no fire handled yet, nothing before `now - grace` is due: a schedule starts
 * from when a scheduler first sees it.
 */
import { createHash } from 'node:crypto';
import type { ScheduleSpec } from '../spec/schedule-trigger.ts';
import { SCHEDULE_EVENT, scheduleSource } from '../spec/schedule-trigger.ts';
import { parseCron } from './cron.ts';
import { nextFire } from './next-fire.ts';

/** The most missed fires `missed: each` catches up. */
export const MAX_CATCH_UP = 100;

export interface DueFire {
  /** The instant the fire was scheduled for (ms). */
  readonly at: number;
  readonly catchUp: boolean;
}

export interface FirePlan {
  readonly due: readonly DueFire[];
  /** The next fire after `now`, if the cron has one within five years. */
  readonly next: number | undefined;
}

/** The fires in `(from, to]`, the latest `max` of them, found without walking a long gap fire by fire. */
function firesIn(s: ScheduleSpec, from: number, to: number, max: number): number[] {
  const p = parseCron(s.cron);
  if (!p.ok) return [];
  // Widen a window back from `to` until it holds `max` fires or reaches `from`.
  for (let span = 3_600_000; ; span *= 2) {
    const start = Math.max(from, to - span);
    const out: number[] = [];
    for (let t = nextFire(p.cron, s.timezone, start); t !== undefined && t <= to; ) {
      out.push(t);
      if (out.length > max) out.shift();
      t = nextFire(p.cron, s.timezone, t);
    }
    if (out.length >= max || start === from) return out;
  }
}

export function planFires(
  s: ScheduleSpec,
  o: { readonly last: number | undefined; readonly now: number; readonly grace: number },
): FirePlan {
  const p = parseCron(s.cron);
  const next = p.ok ? nextFire(p.cron, s.timezone, o.now) : undefined;
  const from = o.last ?? o.now - o.grace;
  const fires = firesIn(s, from, o.now, MAX_CATCH_UP + 1);
  const onTime = fires.filter((t) => t >= o.now - o.grace).map((at) => ({ at, catchUp: false }));
  const missed = fires.filter((t) => t < o.now - o.grace);
  const caught =
    s.missed === 'skip' || missed.length === 0
      ? []
      : s.missed === 'once'
        ? [missed.at(-1)!]
        : missed.slice(-MAX_CATCH_UP);
  return { due: [...caught.map((at) => ({ at, catchUp: true })), ...onTime], next };
}

/**
 * The canonical event of a fire: type `schedule.fired`, source `schedule:<workflowId>`, subject the
 * workflow, time the instant it was scheduled for, and an id derived from the workflow, the
 * schedule's cron and zone and that instant — so every scheduler names a fire alike and the event
 * index lets one of them start its run.
 */
export function fireEvent(workflowId: string, s: ScheduleSpec, f: DueFire): Record<string, unknown> {
  const scheduledFor = new Date(f.at).toISOString();
  const id = createHash('sha256')
    .update(JSON.stringify([workflowId, s.cron, s.timezone, scheduledFor]))
    .digest('hex')
    .slice(0, 32);
  return {
    id: `fire-${id}`,
    type: SCHEDULE_EVENT,
    source: scheduleSource(workflowId),
    subject: workflowId,
    time: scheduledFor,
    payload: { scheduledFor, catchUp: f.catchUp },
  };
}
