/**
 * A published version compiles to an execution plan: nodes with dependencies. A plain step list
 * is a chain (each step depends on the one before); graph definitions compile to the same shape
 * and the engine walks both the same way. Each node has a `kind`, and the walk takes a node by its
 * kind (engine/walk.ts, `NODE_KINDS`): a tool step (with an optional guard, its `if:`), a choice,
 * a wait or a loop (`forEach:`), whose body is expanded per item once its count is recorded.
 *
 * A step list with control flow compiles in document order: a branch's first step depends on its
 * choice, each later step on the one before it in its list, and the step after a choice on the
 * choice and every step nested in it. A node inside a branch names the branches that enclose it
 * (`within`); once a choice is recorded, the nodes of the branches it did not take count as done
 * (`nextNode`'s `chosen`), so nothing of them is written one by one.
 */

import type { ChosenBranch } from '../ledger/index.ts';
import {
  type ChooseStepSpec,
  type FlowStep,
  type ForEachStepSpec,
  isChooseStep,
  isLoopStep,
  isPlainChain,
  isWaitStep,
  iterationStepId,
  nestedLists,
  type StepSpec,
  toolSteps,
  type WaitStepSpec,
  type WorkflowSpec,
} from '../spec/index.ts';

/** A branch enclosing a node: the choice's name and the branch (its index, or else). */
export interface Within {
  readonly choice: string;
  readonly branch: ChosenBranch;
}

/** A step that calls a tool: its arguments resolved, checked, decided, executed, recorded. */
export interface ToolNode {
  readonly kind: 'tool';
  readonly id: string;
  readonly step: StepSpec;
  readonly dependsOn: readonly string[];
  /** The step's `if:`: when false, the step is skipped (`step.skipped`) and calls nothing. */
  readonly guard?: string;
  readonly within?: readonly Within[];
  /** A step of a loop's body, in one iteration: its id is `<loop>[<index>].<step>`. */
  readonly iteration?: Iteration;
}

/** Where an iteration's step sits: its loop, the item's index, the item's name, the body's step names. */
export interface Iteration {
  readonly loop: string;
  readonly index: number;
  readonly as: string;
  readonly body: readonly string[];
}

/**
 * A bounded iteration: its list resolved and recorded (`foreach.started`). Its body's steps join
 * the plan once the count is recorded, one node per step per item (`refund_lines[0].refund`).
 */
export interface ForEachNode {
  readonly kind: 'foreach';
  readonly id: string;
  readonly step: ForEachStepSpec;
  readonly dependsOn: readonly string[];
  readonly within?: readonly Within[];
}

/** A choice: its branches' conditions decided in order, the branch taken recorded (`branch.chosen`). */
export interface ChooseNode {
  readonly kind: 'choose';
  readonly id: string;
  readonly step: ChooseStepSpec;
  readonly dependsOn: readonly string[];
  readonly within?: readonly Within[];
}

/** A step that waits (a timer): recorded when it starts and when it ends; calls nothing. */
export interface WaitNode {
  readonly kind: 'wait';
  readonly id: string;
  readonly step: WaitStepSpec;
  readonly dependsOn: readonly string[];
  readonly within?: readonly Within[];
}

/** A node of the plan. A new kind of node joins this union, and the walk's `NODE_KINDS` with it. */
export type PlanNode = ToolNode | ChooseNode | WaitNode | ForEachNode;

export interface ExecutionPlan {
  readonly nodes: readonly PlanNode[];
  /** Each node depends on the one before it (a plain step list: no condition, no choice). */
  readonly chain: boolean;
}

/**
 * Compiles the plan. `loops` holds the iteration count each recorded loop took (`foreach.started`):
 * a loop's body joins the plan only once its count is known, so the walk compiles again when one is
 * recorded (the same spec and counts always give the same plan).
 */
export function compilePlan(spec: WorkflowSpec, loops: Readonly<Record<string, number>> = {}): ExecutionPlan {
  if (isPlainChain(spec)) {
    const steps = toolSteps(spec);
    return {
      chain: true,
      nodes: steps.map((step, i) => ({
        kind: 'tool',
        id: step.name,
        step,
        dependsOn: i === 0 ? [] : [steps[i - 1]!.name],
      })),
    };
  }
  const nodes: PlanNode[] = [];
  /** Compiles a list whose first step depends on `first`; returns the names of every node in it. */
  const list = (steps: readonly FlowStep[], first: readonly string[], within: readonly Within[]) => {
    const all: string[] = [];
    let before = first;
    for (const step of steps) {
      const w = within.length > 0 ? { within } : {};
      if (isLoopStep(step)) {
        nodes.push({ kind: 'foreach', id: step.name, step, dependsOn: before, ...w });
        const ids: string[] = [];
        const count = Object.hasOwn(loops, step.name) ? loops[step.name]! : 0;
        const body = step.steps.map((b) => b.name);
        let prev: readonly string[] = [step.name];
        for (let i = 0; i < count; i++)
          for (const b of step.steps) {
            const id = iterationStepId(step.name, i, b.name);
            const iteration: Iteration = { loop: step.name, index: i, as: step.forEach.as, body };
            nodes.push({ kind: 'tool', id, step: { ...b, name: id }, dependsOn: prev, iteration, ...w });
            ids.push(id);
            prev = [id];
          }
        all.push(step.name, ...ids);
        before = [step.name, ...ids];
        continue;
      }
      if (isWaitStep(step)) {
        nodes.push({ kind: 'wait', id: step.name, step, dependsOn: before, ...w });
        all.push(step.name);
        before = [step.name];
        continue;
      }
      if (!isChooseStep(step)) {
        nodes.push({
          kind: 'tool',
          id: step.name,
          step,
          dependsOn: before,
          ...(step.if === undefined ? {} : { guard: step.if }),
          ...w,
        });
        all.push(step.name);
        before = [step.name];
        continue;
      }
      nodes.push({ kind: 'choose', id: step.name, step, dependsOn: before, ...w });
      const inner: string[] = [];
      const lists = nestedLists(step);
      lists.forEach((n, j) => {
        const branch: ChosenBranch = n.at[0] === 'else' ? 'else' : j;
        inner.push(...list(n.steps, [step.name], [...within, { choice: step.name, branch }]));
      });
      all.push(step.name, ...inner);
      before = [step.name, ...inner];
    }
    return all;
  };
  list(spec.steps, [], []);
  return { chain: false, nodes };
}

/**
 * The first node, in plan order, that has not run and whose dependencies all completed. `chosen`
 * holds the branch each recorded choice took: a node in a branch not taken counts as done.
 */
export function nextNode(
  plan: ExecutionPlan,
  completed: ReadonlySet<string>,
  chosen: Readonly<Record<string, ChosenBranch>> = {},
): PlanNode | undefined {
  // In a chain the completed nodes are a prefix, so the next one is at index `completed.size`: no
  // scan, and a long walk stays linear. Anything else (not a prefix) takes the careful path.
  if (plan.chain) {
    const n = completed.size;
    const next = plan.nodes[n];
    if (n === plan.nodes.length && plan.nodes.every((x) => completed.has(x.id))) return undefined;
    if (next && !completed.has(next.id) && (n === 0 || completed.has(plan.nodes[n - 1]!.id))) return next;
  }
  const done = doneIn(plan, completed, chosen);
  return plan.nodes.find((n) => !done.has(n.id) && n.dependsOn.every((d) => done.has(d)));
}

/** Whether a node lies in a branch its choice did not take (it never runs in this run). */
export function notTaken(node: PlanNode, chosen: Readonly<Record<string, ChosenBranch>>): boolean {
  return (node.within ?? []).some((w) => Object.hasOwn(chosen, w.choice) && chosen[w.choice] !== w.branch);
}

/** The nodes done: completed (run, skipped, or a recorded choice), or in a branch not taken. */
export function doneIn(
  plan: ExecutionPlan,
  completed: ReadonlySet<string>,
  chosen: Readonly<Record<string, ChosenBranch>>,
): ReadonlySet<string> {
  if (plan.chain) return completed;
  const done = new Set(completed);
  for (const n of plan.nodes) if (notTaken(n, chosen)) done.add(n.id);
  return done;
}
