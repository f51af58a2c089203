/**
 * A published version compiles to an execution plan: nodes with dependencies. A step list is a
 * chain (each step depends on the one before); graph definitions compile to the same shape and
 * the engine walks both the same way. Each node has a `kind`, and the walk takes a node by its
 * kind (engine/walk.ts, `NODE_KINDS`): a tool step, or a wait.
 */
import {
  allSteps,
  isToolStep,
  isWaitStep,
  type StepSpec,
  type WaitStepSpec,
  type WorkflowSpec,
} from '../spec/index.ts';

/** A step that calls a tool: its arguments resolved, checked, decided, executed, recorded. */
export interface ToolNode {
  readonly kind: 'tool';
  readonly id: string;
  readonly step: StepSpec;
  readonly dependsOn: readonly string[];
}

/** A step that waits (a timer): recorded when it starts and when it ends; calls nothing. */
export interface WaitNode {
  readonly kind: 'wait';
  readonly id: string;
  readonly step: WaitStepSpec;
  readonly dependsOn: readonly string[];
}

/** A node of the plan. A new kind of node joins this union, and the walk's `NODE_KINDS` with it. */
export type PlanNode = ToolNode | WaitNode;

export interface ExecutionPlan {
  readonly nodes: readonly PlanNode[];
  /** Each node depends on the one before it (a step list). */
  readonly chain: boolean;
}

export function compilePlan(spec: WorkflowSpec): ExecutionPlan {
  const steps = allSteps(spec).filter((s) => isToolStep(s) || isWaitStep(s));
  return {
    chain: true,
    nodes: steps.map((step, i): PlanNode => {
      const dependsOn = i === 0 ? [] : [steps[i - 1]!.name];
      return isWaitStep(step)
        ? { kind: 'wait', id: step.name, step, dependsOn }
        : { kind: 'tool', id: step.name, step: step as StepSpec, dependsOn };
    }),
  };
}

/** The first node, in plan order, that has not run and whose dependencies all completed. */
export function nextNode(plan: ExecutionPlan, completed: ReadonlySet<string>): PlanNode | undefined {
  // In a chain the completed nodes are a prefix, so the next one is at index `completed.size`: no
  // scan, and a long walk stays linear. Anything else (not a prefix) takes the careful path.
  if (plan.chain) {
    const n = completed.size;
    const next = plan.nodes[n];
    if (n === plan.nodes.length && plan.nodes.every((x) => completed.has(x.id))) return undefined;
    if (next && !completed.has(next.id) && (n === 0 || completed.has(plan.nodes[n - 1]!.id))) return next;
  }
  return plan.nodes.find((n) => !completed.has(n.id) && n.dependsOn.every((d) => completed.has(d)));
}
