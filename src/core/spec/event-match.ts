/**
 * The `match` of a wait for an event (`wait: { event, match }`): the condition language of
 * triggers and steps, read over two events. `event.<field>` is the ARRIVING event (the one that
 * may end the wait: `event.subject`, `event.payload.<path>`); `run.event.<field>` is the WAITING
 * run's own event (the one that started it); `steps.<name>.output.<path>` an earlier step's output.
 * Every path is written with its root: a bare `subject` or `payload.x` is refused, so a reader
 * never has to guess which event is meant.
 *
 * Owns the scope, the root a match is decided against and the decision with its `reads` (each
 * path read with its value, missing as null), recorded in `wait.ended` so verify decides it again
 * from the record alone. Pure.
 */
import { evaluateCondition } from './evaluate-condition.ts';
import type { EventLike } from './event-like.ts';
import {
  type Condition,
  type ConditionScope,
  eventPathProblem,
  parseConditionIn,
} from './parse-condition.ts';
import { type ConditionReads, conditionPaths, readsOf } from './step-condition.ts';

/** What a match's paths may name: `event.*` (arriving), `run.event.*` (the run's own), `steps.<name>.output*`. */
export const EVENT_MATCH_SCOPE: ConditionScope = {
  normalize: (segs) => segs,
  check: (segs) => {
    const shown = segs.join('.');
    if (segs[0] === 'event') {
      if (segs.length < 2) return `"${shown}" names no field: write event.subject or event.payload.<name>`;
      return eventPathProblem(segs.slice(1));
    }
    if (segs[0] === 'run') {
      if (segs[1] !== 'event' || segs.length < 3)
        return `"${shown}": the waiting run's own event is run.event.<field> (run.event.subject, run.event.payload.<name>)`;
      return eventPathProblem(segs.slice(2));
    }
    if (segs[0] === 'steps') {
      if (segs.length < 3 || segs[2] !== 'output')
        return `"${shown}" names no step output: write steps.<name>.output or steps.<name>.output.<field>`;
      return undefined;
    }
    return `unknown path "${shown}": a match reads event.<field> (the arriving event), run.event.<field> (the waiting run's own event) or steps.<name>.output.<path>`;
  },
};

const parsed = new Map<string, Condition>();

/** Parses a match (memoised); throws `spec_invalid` with `{position}` when bad. */
export function parseEventMatch(src: string): Condition {
  let c = parsed.get(src);
  if (!c) {
    c = parseConditionIn(src, EVENT_MATCH_SCOPE);
    if (parsed.size >= 1024) parsed.clear();
    parsed.set(src, c);
  }
  return c;
}

/** The names of the steps whose output a match reads. */
export function stepsReadByMatch(src: string): string[] {
  return [
    ...new Set(
      conditionPaths(parseEventMatch(src))
        .filter((p) => p.startsWith('steps.'))
        .map((p) => p.split('.')[1]!),
    ),
  ];
}

/** The values a match reads: the arriving event, the run's own event, and completed outputs. */
export function eventMatchRoot(
  arriving: Readonly<EventLike>,
  own: Readonly<EventLike> | Readonly<Record<string, unknown>>,
  outputs: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const steps: Record<string, { output: unknown }> = {};
  for (const [name, output] of Object.entries(outputs)) steps[name] = { output };
  return { event: arriving, run: { event: own }, steps };
}

/** Whether the arriving event matches, and what the match read. No `match` (undefined): any event of the type. */
export function decideEventMatch(
  src: string | undefined,
  root: Readonly<Record<string, unknown>>,
): { value: boolean; reads: ConditionReads } {
  if (src === undefined) return { value: true, reads: {} };
  const c = parseEventMatch(src);
  return { value: evaluateCondition(c, root), reads: readsOf(c, root) };
}
