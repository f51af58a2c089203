/**
 * A wait step: a declared point where a run suspends until a time — `wait: { for: 15m }` (a
 * duration from the moment the wait starts, read from the recorded clock) or `wait: { until:
 * "{{ steps.grant.output.expiresAt }}" }` (an RFC 3339 instant, resolved when the wait starts). The
 * shape, its strict check (every problem named by its field path, an unknown key refused) and the
 * duration arithmetic live here; the walk (engine/wait-step.ts) records the wait and the store
 * wakes it. Pure: nothing here reads a clock.
 */
import { isKeelError } from '../errors.ts';
import { INSTANT_EXAMPLE, instantProblem } from '../instant.ts';
import { stepsReadByMatch } from './event-match.ts';
import type { PathSegment } from './read-path.ts';
import type { TemplateRef } from './scan-templates.ts';
import { checkKeys, expectMapping, field, isMapping, type SpecChecker } from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { forEachTemplateString } from './template-refs.ts';

/** How long a wait may be, at most: `366d`. */
export const MAX_WAIT_MS = 366 * 86_400_000;

/**
 * A wait for an event (docs/flow.md, "Waiting for an event"): an event of type `event` of the
 * run's tenant for which `match` holds (event-match.ts: `event.*` the arriving event, `run.event.*`
 * the run's own), arriving at most `timeout` after the wait began (absent: no limit) and at most
 * `lookback` before it (absent: any time since the run started; never before the run started).
 */
export interface EventWaitSpec {
  readonly event: string;
  readonly match?: string;
  readonly timeout?: string;
  readonly lookback?: string;
}

/** What a wait step waits for: a duration, an instant (a template resolved when the wait starts), or an event. */
export type WaitSpec = { readonly for: string } | { readonly until: string } | EventWaitSpec;

/** Whether a wait waits for an event (and so has an output: `{timedOut, event?}`). */
export function isEventWait(w: WaitSpec): w is EventWaitSpec {
  return 'event' in w;
}

/** A step that waits, and calls no tool. */
export interface WaitStepSpec {
  name: string;
  wait: WaitSpec;
}

const WAIT_STEP_KEYS = ['name', 'wait'] as const;
const WAIT_KEYS = ['for', 'until', 'event', 'match', 'timeout', 'lookback'] as const;
const EVENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
const DURATION = /^([1-9][0-9]{0,8})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Whether a step (as written, or as validated) is a wait step: it has a `wait` key. */
export function isWaitStep(step: unknown): step is WaitStepSpec {
  return isMapping(step) && Object.hasOwn(step, 'wait');
}

/** A duration's milliseconds (`15m` → 900000), or why it is not one. */
export function parseDuration(s: unknown): { readonly ms: number } | { readonly problem: string } {
  const m = typeof s === 'string' ? DURATION.exec(s) : null;
  if (!m)
    return {
      problem: `expected a duration: a whole number and a unit s, m, h or d (15m, 48h, 7d), got ${describeValue(s)}`,
    };
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms > MAX_WAIT_MS) return { problem: `${s} is longer than the longest wait, 366d` };
  return { ms };
}

/**
 * Checks a wait step's `wait` (the step's `name` is checked with every step's): exactly one of
 * `for` (a duration) or `until` (a string: an RFC 3339 instant, or a template resolving to one).
 * `refProblem` judges each template of `until` as an argument's template is judged (earlier
 * steps only); a source (clock, random, id, env) is refused: the wait's own time is the clock.
 */
export function checkWait(
  c: SpecChecker,
  step: Record<string, unknown>,
  path: readonly PathSegment[],
  refProblem: (ref: TemplateRef) => string | undefined,
  /** Why a match may not read step `name` (it must be sure to have run); undefined: it may. */
  matchReadProblem: (name: string) => string | undefined = () => undefined,
): WaitSpec | undefined {
  checkKeys(c, step, [...path], WAIT_STEP_KEYS);
  const at = [...path, 'wait'];
  const raw = field(step, 'wait');
  if (raw === undefined) {
    c.missing(at, 'a mapping with for (a duration), until (an instant) or event (an event type)');
    return undefined;
  }
  const w = expectMapping(c, raw, at);
  if (!w) return undefined;
  checkKeys(c, w, at, WAIT_KEYS);
  if (field(w, 'event') !== undefined) return checkEventWait(c, w, at, matchReadProblem);
  for (const k of ['match', 'timeout', 'lookback'] as const)
    if (field(w, k) !== undefined)
      c.report([...at, k], `${k} belongs to a wait for an event (wait: { event })`);
  const forValue = field(w, 'for');
  const until = field(w, 'until');
  if ((forValue === undefined) === (until === undefined)) {
    c.report(at, 'expected exactly one of for (a duration, like 15m) or until (an instant)');
    return undefined;
  }
  if (forValue !== undefined) {
    const d = parseDuration(forValue);
    if ('problem' in d) {
      c.report([...at, 'for'], d.problem);
      return undefined;
    }
    return { for: forValue as string };
  }
  if (typeof until !== 'string' || until === '') {
    c.report(
      [...at, 'until'],
      `expected an RFC 3339 instant or a template resolving to one, got ${describeValue(until)}`,
    );
    return undefined;
  }
  const before = c.found;
  const problem = until.includes('{{') ? undefined : instantProblem(until);
  if (problem !== undefined)
    c.report(
      [...at, 'until'],
      `expected an RFC 3339 instant like ${INSTANT_EXAMPLE} or a template, got ${describeValue(until)}: ${problem}`,
    );
  forEachTemplateString(until, (_p, parts) => {
    for (const p of parts) {
      if (p.kind === 'invalid')
        c.report([...at, 'until'], `invalid template "{{ ${p.path} }}": ${p.message}`);
      if (p.kind !== 'template') continue;
      const why =
        p.ref.root === 'source'
          ? `${p.path} is a source; a wait reads the event and earlier steps' outputs (its start is the recorded clock: use for)`
          : refProblem(p.ref);
      if (why) c.report([...at, 'until'], `template "{{ ${p.path} }}": ${why}`);
    }
  });
  return c.found > before ? undefined : { until };
}

/** `wait: { event, match?, timeout?, lookback? }`: a wait for an event, checked strictly. */
function checkEventWait(
  c: SpecChecker,
  w: Record<string, unknown>,
  at: PathSegment[],
  matchReadProblem: (name: string) => string | undefined,
): EventWaitSpec | undefined {
  const before = c.found;
  for (const k of ['for', 'until'] as const)
    if (field(w, k) !== undefined)
      c.report([...at, k], `a wait is for a time or for an event, not both: drop ${k} (use timeout)`);
  const event = field(w, 'event');
  if (typeof event !== 'string' || !EVENT_TYPE.test(event))
    c.report([...at, 'event'], `expected an event type like customer.replied, got ${describeValue(event)}`);
  const match = field(w, 'match');
  if (match !== undefined) {
    if (typeof match !== 'string' || match.trim() === '')
      c.report([...at, 'match'], `expected a condition, got ${describeValue(match)}`);
    else
      try {
        for (const name of stepsReadByMatch(match)) {
          const why = matchReadProblem(name);
          if (why) c.report([...at, 'match'], `reads steps.${name}: ${why}`);
        }
      } catch (e) {
        if (!isKeelError(e)) throw e;
        const position = typeof e.details.position === 'number' ? e.details.position : 0;
        c.report([...at, 'match'], `invalid condition: ${e.message}`, { charIndex: position });
      }
  }
  for (const k of ['timeout', 'lookback'] as const) {
    const v = field(w, k);
    if (v === undefined) continue;
    const d = parseDuration(v);
    if ('problem' in d) c.report([...at, k], d.problem);
  }
  if (c.found > before) return undefined;
  return {
    event: event as string,
    ...(match !== undefined ? { match: match as string } : {}),
    ...(field(w, 'timeout') !== undefined ? { timeout: field(w, 'timeout') as string } : {}),
    ...(field(w, 'lookback') !== undefined ? { lookback: field(w, 'lookback') as string } : {}),
  };
}
