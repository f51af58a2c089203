/**
 * The step list as a union of kinds: a tool step (calls one tool, optionally guarded by `if:`),
 * a choice (`choose:` ordered branches and an `else`), a wait (`wait:`), a bounded iteration
 * (`forEach:`, its body run once per item), and the kinds later constructs add (parallel branches). Every kind that holds nested step lists says so through
 * `nestedLists`, so the helpers here (document-order walks, the tool steps, step names) and every
 * consumer built on them stay right when a kind is added.
 *
 * Owns the shapes and pure helpers only: no validation (check-steps.ts, check-flow.ts), no
 * evaluation, nothing read from outside.
 */
import type { ApprovalDeadlineSpec } from './approval-deadline.ts';
import type { PathSegment } from './read-path.ts';
import type { WaitStepSpec } from './wait-step.ts';

/** A step that calls a tool. `args` is any JSON; strings in it may hold `{{ path }}` templates. */
export interface StepSpec {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /**
   * Condition source text (the trigger condition language); when it is false the step is skipped
   * (recorded as `step.skipped`) and its output reads as missing.
   */
  if?: string;
  /**
   * A deadline on the step's approval, should its policy require one (approval-deadline.ts): how
   * long a person may take, and what happens then (deny, or escalate to an approver group).
   */
  approval?: ApprovalDeadlineSpec;
}

/** One branch of a choice: taken when `when` holds and no earlier branch's did. */
export interface ChooseBranch {
  when: string;
  steps: FlowStep[];
}

/** Ordered branches and an optional `else`: the first branch whose `when` holds runs, else `else`. */
export interface ChooseStepSpec {
  name: string;
  choose: ChooseBranch[];
  /** Runs when no branch's `when` holds; absent or empty = nothing runs. */
  else?: FlowStep[];
}

/** How a parallel step joins: when every branch finished (`all`), or the first one (`first`). */
export type JoinRule = 'all' | 'first';

/**
 * Branches that run at the same time (`parallel:`): each branch is a list of tool steps, walked as
 * its own chain; the step after the parallel runs once the join holds. Branch names are keys.
 */
export interface ParallelStepSpec {
  name: string;
  parallel: { join: JoinRule; branches: Record<string, FlowStep[]> };
}

/** What a loop runs over and how its item is named (foreach-step.ts checks it). */
export interface ForEachSpec {
  /** One whole template naming a list: `{{ event.payload.lines }}` or `{{ steps.x.output.items }}`. */
  readonly items: string;
  /** The name templates in the body read the current item by (`{{ line.amount }}`). */
  readonly as: string;
  /** The most items the loop takes; a longer list fails the run before any of its calls. */
  readonly max: number;
}

/** A bounded iteration: its body (tool steps) runs once per item, each iteration recorded apart. */
export interface ForEachStepSpec {
  name: string;
  forEach: ForEachSpec;
  steps: StepSpec[];
}
/** One entry of a step list. A new kind joins this union and `nestedLists`. */
export type FlowStep = StepSpec | ChooseStepSpec | WaitStepSpec | ParallelStepSpec | ForEachStepSpec;

/** What holds a step list: a spec, or the list itself. */
export type StepsLike = { readonly steps: readonly FlowStep[] } | readonly FlowStep[];

/**
 * Deepest nesting of step lists inside step lists (a choose in a branch in a choose…): each level
 * costs four levels of the document, and a spec is at most 32 deep (SPEC_LIMITS), which leaves a
 * step at the deepest level room for its arguments.
 */
export const MAX_FLOW_DEPTH = 6;

/** A partial draft may hold anything where a step goes: only a mapping is a step of a kind. */
const has = (step: unknown, key: string): boolean =>
  typeof step === 'object' && step !== null && Object.hasOwn(step, key);

export function isToolStep(step: FlowStep): step is StepSpec {
  return has(step, 'tool');
}

export function isChooseStep(step: FlowStep): step is ChooseStepSpec {
  return has(step, 'choose') && Array.isArray((step as ChooseStepSpec).choose);
}

export function isParallelStep(step: FlowStep): step is ParallelStepSpec {
  const p = has(step, 'parallel') ? (step as ParallelStepSpec).parallel : undefined;
  return typeof p === 'object' && p !== null && has(p, 'branches');
}

/** A nested step list of a step, with the field path (relative to the step) where it sits. */
export interface NestedList {
  readonly at: readonly PathSegment[];
  readonly steps: readonly FlowStep[];
}

export function isLoopStep(step: FlowStep): step is ForEachStepSpec {
  return has(step, 'forEach') && Array.isArray((step as ForEachStepSpec).steps);
}

/**
 * The step lists nested in a step, in document order (a choice: each branch, then `else`; a
 * parallel: each branch, in the order written; a loop: its body).
 */
export function nestedLists(step: FlowStep): NestedList[] {
  if (isParallelStep(step)) {
    const b = step.parallel.branches;
    if (typeof b !== 'object' || b === null) return [];
    return Object.entries(b).flatMap(([k, steps]) =>
      Array.isArray(steps) ? [{ at: ['parallel', 'branches', k], steps }] : [],
    );
  }
  if (isLoopStep(step)) return [{ at: ['steps'], steps: step.steps }];
  if (!isChooseStep(step)) return [];
  const out: NestedList[] = step.choose.flatMap((b, j) =>
    has(b, 'steps') && Array.isArray(b.steps) ? [{ at: ['choose', j, 'steps'], steps: b.steps }] : [],
  );
  if (Array.isArray(step.else)) out.push({ at: ['else'], steps: step.else });
  return out;
}

function listOf(s: StepsLike): readonly FlowStep[] {
  return Array.isArray(s) ? s : (s as { readonly steps: readonly FlowStep[] }).steps;
}

/**
 * Visits every step in document order (a step before the steps nested in it), with its field
 * path from the top (`['steps', 2, 'choose', 0, 'steps', 1]`) and its depth (0 at the top).
 */
export function walkSteps(
  s: StepsLike,
  visit: (step: FlowStep, path: readonly PathSegment[], depth: number) => void,
): void {
  const go = (list: readonly FlowStep[], base: readonly PathSegment[], depth: number) => {
    list.forEach((step, i) => {
      const path = [...base, i];
      visit(step, path, depth);
      for (const n of nestedLists(step)) go(n.steps, [...path, ...n.at], depth + 1);
    });
  };
  go(listOf(s), ['steps'], 0);
}

/** Every step, nested ones included, in document order. */
export function allSteps(s: StepsLike): FlowStep[] {
  const out: FlowStep[] = [];
  walkSteps(s, (step) => out.push(step));
  return out;
}

/** Every tool step, nested ones included, in document order: "the tool calls" a spec can make. */
export function toolSteps(s: StepsLike): StepSpec[] {
  return allSteps(s).filter(isToolStep);
}

/** The step named `name` anywhere in the document, or undefined. */
export function findStep(s: StepsLike, name: string): FlowStep | undefined {
  return allSteps(s).find((x) => x.name === name);
}

/** True when the list is a plain chain of tool steps: no condition, no nested list. */
export function isPlainChain(s: StepsLike): boolean {
  return listOf(s).every((x) => isToolStep(x) && x.if === undefined);
}
