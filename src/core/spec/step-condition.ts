/**
 * Conditions inside the step list (`if:` on a tool step, `when:` of a choice's branch): the
 * trigger condition language over the event (the same roots as triggers: `payload.*`, `subject`,
 * …, an optional `event.` prefix) and earlier steps' outputs, named as templates name them:
 * `steps.<name>.output.<path>`. A skipped step's output reads as missing (equal to null only).
 *
 * Owns the scope, the evaluation against a run's values, and the `reads` a decision records (each
 * path the condition read, with the value read, missing written as null, which every comparison
 * treats alike) so that verify can decide the same condition again from the record alone. Pure.
 */
import { evaluateCondition } from './evaluate-condition.ts';
import type { EventLike } from './event-like.ts';
import {
  type Condition,
  type ConditionScope,
  eventPathProblem,
  type Operand,
  parseConditionIn,
} from './parse-condition.ts';
import { MISSING, readPath } from './read-path.ts';

/** What a step condition's paths may name: event fields, or `steps.<name>.output[.<path>]`. */
export const STEP_CONDITION_SCOPE: ConditionScope = {
  normalize: (segs) => (segs[0] === 'event' && segs.length > 1 ? segs.slice(1) : segs),
  check: (segs) => {
    if (segs[0] !== 'steps') return eventPathProblem(segs);
    if (segs.length < 3 || segs[2] !== 'output')
      return `"${segs.join('.')}" names no step output: write steps.<name>.output or steps.<name>.output.<field>`;
    return undefined;
  },
};

const CACHE_LIMIT = 1024;
const parsed = new Map<string, Condition>();

/** Parses a step condition (memoised by text); throws `spec_invalid` with `{position}` when bad. */
export function parseStepCondition(src: string): Condition {
  let c = parsed.get(src);
  if (!c) {
    c = parseConditionIn(src, STEP_CONDITION_SCOPE);
    if (parsed.size >= CACHE_LIMIT) parsed.clear();
    parsed.set(src, c);
  }
  return c;
}

/** Every path the condition reads, as dotted text (`payload.amount`, `steps.x.output.tier`), once each. */
export function conditionPaths(c: Condition): string[] {
  const out = new Set<string>();
  const operand = (o: Operand) => {
    if (o.kind === 'path') out.add(o.path.join('.'));
  };
  const go = (x: Condition): void => {
    switch (x.kind) {
      case 'and':
      case 'or':
        x.items.forEach(go);
        return;
      case 'not':
        go(x.item);
        return;
      case 'truthy':
        operand(x.operand);
        return;
      case 'compare':
        operand(x.left);
        operand(x.right);
    }
  };
  go(c);
  return [...out];
}

/** The names of the steps whose output the condition reads. */
export function stepsReadBy(c: Condition): string[] {
  return [
    ...new Set(
      conditionPaths(c)
        .filter((p) => p.startsWith('steps.'))
        .map((p) => p.split('.')[1]!),
    ),
  ];
}

/** The values a step condition reads from: the event's fields, and `steps` (completed outputs). */
export type StepConditionRoot = Readonly<Record<string, unknown>>;

export function stepConditionRoot(
  event: Readonly<EventLike> | Readonly<Record<string, unknown>>,
  outputs: Readonly<Record<string, unknown>>,
): StepConditionRoot {
  const steps: Record<string, { output: unknown }> = {};
  for (const [name, output] of Object.entries(outputs)) steps[name] = { output };
  return { ...event, steps };
}

/** The value read at each path of the condition (missing as null), by dotted path. */
export type ConditionReads = Record<string, unknown>;

export function readsOf(c: Condition, root: StepConditionRoot): ConditionReads {
  const reads: ConditionReads = {};
  for (const p of conditionPaths(c)) {
    const v = readPath(root, p.split('.'));
    reads[p] = v === MISSING || v === undefined ? null : v;
  }
  return reads;
}

/** Evaluates the condition against a run's values; returns the value and what it read. */
export function decideCondition(
  src: string,
  root: StepConditionRoot,
): { value: boolean; reads: ConditionReads } {
  const c = parseStepCondition(src);
  return { value: evaluateCondition(c, root), reads: readsOf(c, root) };
}

/**
 * The condition's value decided from recorded reads alone (verify): each path stands for the
 * value recorded for it; a path the record does not hold reads as missing.
 */
export function conditionFromReads(src: string, reads: Readonly<ConditionReads>): boolean {
  const c = parseStepCondition(src);
  const swap = (o: Operand): Operand =>
    o.kind === 'literal'
      ? o
      : ({
          kind: 'literal',
          value: Object.hasOwn(reads, o.path.join('.')) ? reads[o.path.join('.')] : null,
        } as Operand);
  const go = (x: Condition): Condition => {
    switch (x.kind) {
      case 'and':
      case 'or':
        return { kind: x.kind, items: x.items.map(go) };
      case 'not':
        return { kind: 'not', item: go(x.item) };
      case 'truthy':
        return { kind: 'truthy', operand: swap(x.operand) };
      case 'compare':
        return { kind: 'compare', op: x.op, left: swap(x.left), right: swap(x.right) };
    }
  };
  return evaluateCondition(go(c), {});
}
