/**
 * A spec test that starts from a schedule's fire (`tests[].fires`, docs/lifecycle.md): the instant
 * one of the spec's schedule triggers fires at, written `fires: <RFC 3339 instant>` or
 * `fires: { at: <instant>, catchUp: true }`. Owns the strict reading (the instant must be a fire
 * time of a schedule trigger of this spec, as the scheduler would emit it) and which schedule
 * fires then. The event itself is the scheduler's own (`fireEvent`), derived where the test runs.
 */
import { INSTANT_EXAMPLE, instantProblem, parseInstant } from '../instant.ts';
import { parseCron } from '../schedule/cron.ts';
import { nextFire } from '../schedule/next-fire.ts';
import type { ScheduleSpec } from './schedule-trigger.ts';
import { checkKeys, field, type SpecChecker } from './spec-checker.ts';
import { describeValue, type FieldPath } from './spec-problem.ts';

/** The fire a test starts from: its instant, and whether the scheduler would mark it a catch-up. */
export interface TestFire {
  at: string;
  catchUp: boolean;
}

const FIRE_KEYS = ['at', 'catchUp'] as const;

/** Whether `s` fires at instant `at` (ms). */
export function firesAt(s: ScheduleSpec, at: number): boolean {
  const p = parseCron(s.cron);
  return p.ok && nextFire(p.cron, s.timezone, at - 1) === at;
}

/** The first of `schedules` that fires at `at` (ms), if any. */
export function scheduleFiringAt(schedules: readonly ScheduleSpec[], at: number): ScheduleSpec | undefined {
  return schedules.find((s) => firesAt(s, at));
}

/**
 * Reads `tests[i].fires` at `path` against the spec's schedule triggers (in trigger order);
 * undefined (reported) when it is wrong.
 */
export function readTestFire(
  c: SpecChecker,
  raw: unknown,
  path: FieldPath,
  schedules: readonly ScheduleSpec[],
): TestFire | undefined {
  let at: unknown = raw;
  let catchUp = false;
  let atPath = path;
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const obj = raw as Record<string, unknown>;
    checkKeys(c, obj, path, FIRE_KEYS);
    at = field(obj, 'at');
    atPath = [...path, 'at'];
    const cu = field(obj, 'catchUp');
    if (cu !== undefined && typeof cu !== 'boolean') {
      c.report([...path, 'catchUp'], `expected true or false, got ${describeValue(cu)}`);
      return undefined;
    }
    catchUp = cu === true;
    if (at === undefined) {
      c.missing(atPath, `the instant a schedule of this spec fires at (${INSTANT_EXAMPLE})`);
      return undefined;
    }
  }
  const problem = typeof at === 'string' ? instantProblem(at) : 'not a string';
  if (problem !== undefined || typeof at !== 'string') {
    c.report(
      atPath,
      `expected the RFC 3339 instant a schedule of this spec fires at, like ${INSTANT_EXAMPLE}, or { at, catchUp }, got ${describeValue(at)}: ${problem}`,
    );
    return undefined;
  }
  if (schedules.length === 0) {
    c.report(
      atPath,
      'this spec has no schedule trigger to fire: add one (triggers: - schedule: { cron: ... }) or start the test from an event',
    );
    return undefined;
  }
  const ms = parseInstant(at)!;
  if (!scheduleFiringAt(schedules, ms)) {
    const nexts = schedules.map((s) => {
      const p = parseCron(s.cron);
      const n = p.ok ? nextFire(p.cron, s.timezone, ms) : undefined;
      return `"${s.cron}" in ${s.timezone} next fires at ${n === undefined ? 'no time' : new Date(n).toISOString()}`;
    });
    c.report(
      atPath,
      `${at} is not a time a schedule of this spec fires at, so no scheduler would emit that fire: ${nexts.join('; ')}`,
    );
    return undefined;
  }
  return { at, catchUp };
}
