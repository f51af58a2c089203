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
 *
 * A parallel step compiles to one chain per branch (a lane: each branch's first step depends on
 * what the parallel depends on, each later step on the one before it in its branch) and a parallel
 * node, the join, which depends on every step of every branch (`join: all`) or is ready once one
 * branch is done (`join: first`); the step after a parallel depends on its join. The walk takes
 * the ready steps of all lanes of a parallel together (engine/parallel-step.ts); once the join is
 * recorded, the steps of the branches it cut count as done (`cut`).
 */

import type { ChosenBranch } from '../ledger/index.ts';
import {
  type ChooseStepSpec,
  type FlowStep,
  type ForEachStepSpec,
  isChooseStep,
  isLoopStep,
  isParallelStep,
  isPlainChain,
  isToolStep,
  isWaitStep,
  iterationStepId,
  type JoinRule,
  nestedLists,
  type ParallelStepSpec,
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
  /** The parallel branch the step sits in, if any: walked with the other branches' steps. */
  readonly lane?: Lane;
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

/** A branch of a parallel step: the parallel's name and the branch's. */
export interface Lane {
  readonly parallel: string;
  readonly branch: string;
}

/** The key of a lane in the fold's `cut` (`<parallel>&<branch>`). */
export const laneKey = (l: Lane): string => `${l.parallel}&${l.branch}`;

/**
 * A parallel step's join: recorded (`parallel.joined`) once every branch is done (`all`) or one is
 * (`first`); the branches (their step names, in order) are walked together until then.
 */
export interface ParallelNode {
  readonly kind: 'parallel';
  readonly id: string;
  readonly step: ParallelStepSpec;
  readonly join: JoinRule;
  /** What the parallel itself waits for (the step before it): each branch's first step does too. */
  readonly after: readonly string[];
  /** Every step of every branch, then `after`: a join: all waits for all of them. */
  readonly dependsOn: readonly string[];
  readonly lanes: Readonly<Record<string, readonly string[]>>;
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
export type PlanNode = ToolNode | ChooseNode | WaitNode | ParallelNode | ForEachNode;

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
      if (isParallelStep(step)) {
        const lanes: Record<string, string[]> = {};
        const at = nodes.length;
        for (const [branch, steps] of Object.entries(step.parallel.branches)) {
          let prev = before;
          lanes[branch] = [];
          for (const t of steps) {
            if (!isToolStep(t)) continue; // validation allows tool steps only in a branch
            nodes.push({
              kind: 'tool',
              id: t.name,
              step: t,
              dependsOn: prev,
              ...(t.if === undefined ? {} : { guard: t.if }),
              ...w,
              lane: { parallel: step.name, branch },
            });
            lanes[branch].push(t.name);
            prev = [t.name];
          }
        }
        const inner = Object.values(lanes).flat();
        // The join sits before its branches' steps in plan order: once ready it is taken first.
        nodes.splice(at, 0, {
          kind: 'parallel',
          id: step.name,
          step,
          join: step.parallel.join,
          after: before,
          dependsOn: [...inner, ...before],
          lanes,
          ...w,
        });
        all.push(step.name, ...inner);
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
  cut: ReadonlySet<string> = NO_CUT,
): PlanNode | undefined {
  // In a chain the completed nodes are a prefix, so the next one is at index `completed.size`: no
  // scan, and a long walk stays linear. Anything else (not a prefix) takes the careful path.
  if (plan.chain) {
    const n = completed.size;
    const next = plan.nodes[n];
    if (n === plan.nodes.length && plan.nodes.every((x) => completed.has(x.id))) return undefined;
    if (next && !completed.has(next.id) && (n === 0 || completed.has(plan.nodes[n - 1]!.id))) return next;
  }
  const done = doneIn(plan, completed, chosen, cut);
  return plan.nodes.find((n) => !done.has(n.id) && isReady(n, done));
}

const NO_CUT: ReadonlySet<string> = new Set();

/** Whether a node not done may be taken: its dependencies are done (a join: first, one branch is). */
export function isReady(n: PlanNode, done: ReadonlySet<string>): boolean {
  if (n.kind !== 'parallel' || n.join === 'all') return n.dependsOn.every((d) => done.has(d));
  return n.after.every((d) => done.has(d)) && Object.values(n.lanes).some((l) => l.every((d) => done.has(d)));
}

/**
 * The ready steps of a parallel's branches, one per branch at most (each branch is a chain), in
 * the order the branches are written.
 */
export function readyInLanes(plan: ExecutionPlan, join: ParallelNode, done: ReadonlySet<string>): ToolNode[] {
  const out: ToolNode[] = [];
  for (const n of plan.nodes)
    if (n.kind === 'tool' && n.lane?.parallel === join.id && !done.has(n.id) && isReady(n, done)) out.push(n);
  return out;
}

/** Whether a node lies in a branch its choice did not take (it never runs in this run). */
export function notTaken(
  node: PlanNode,
  chosen: Readonly<Record<string, ChosenBranch>>,
  cut: ReadonlySet<string> = NO_CUT,
): boolean {
  if (node.kind === 'tool' && node.lane && cut.has(laneKey(node.lane))) return true;
  return (node.within ?? []).some((w) => Object.hasOwn(chosen, w.choice) && chosen[w.choice] !== w.branch);
}

/** The nodes done: completed (run, skipped, or a recorded choice), or in a branch not taken. */
export function doneIn(
  plan: ExecutionPlan,
  completed: ReadonlySet<string>,
  chosen: Readonly<Record<string, ChosenBranch>>,
  cut: ReadonlySet<string> = NO_CUT,
): ReadonlySet<string> {
  if (plan.chain) return completed;
  const done = new Set(completed);
  for (const n of plan.nodes) if (notTaken(n, chosen, cut)) done.add(n.id);
  return done;
}
