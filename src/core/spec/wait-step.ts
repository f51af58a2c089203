/**
 * A wait step: a declared point where a run suspends until a time — `wait: { for: 15m }` (a
 * duration from the moment the wait starts, read from the recorded clock) or `wait: { until:
 * "{{ steps.grant.output.expiresAt }}" }` (an RFC 3339 instant, resolved when the wait starts). The
 * shape, its strict check (every problem named by its field path, an unknown key refused) and the
 * duration arithmetic live here; the walk (engine/wait-step.ts) records the wait and the store
 * wakes it. Pure: nothing here reads a clock.
 */
import { INSTANT_EXAMPLE, instantProblem } from '../instant.ts';
import type { PathSegment } from './read-path.ts';
import type { TemplateRef } from './scan-templates.ts';
import { checkKeys, expectMapping, field, isMapping, type SpecChecker } from './spec-checker.ts';
import { describeValue } from './spec-problem.ts';
import { forEachTemplateString } from './template-refs.ts';

/** How long a wait may be, at most: `366d`. */
export const MAX_WAIT_MS = 366 * 86_400_000;

/** What a wait step waits for: a duration, or an instant (a template resolved when the wait starts). */
export type WaitSpec = { readonly for: string } | { readonly until: string };

/** A step that waits, and calls no tool. */
export interface WaitStepSpec {
  name: string;
  wait: WaitSpec;
}

const WAIT_STEP_KEYS = ['name', 'wait'] as const;
const WAIT_KEYS = ['for', 'until'] as const;
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
): WaitSpec | undefined {
  checkKeys(c, step, [...path], WAIT_STEP_KEYS);
  const at = [...path, 'wait'];
  const raw = field(step, 'wait');
  if (raw === undefined) {
    c.missing(at, 'a mapping with for (a duration) or until (an instant)');
    return undefined;
  }
  const w = expectMapping(c, raw, at);
  if (!w) return undefined;
  checkKeys(c, w, at, WAIT_KEYS);
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
