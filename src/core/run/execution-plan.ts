/**
 * A published version compiles to an execution plan: nodes with dependencies. A step list is a
 * chain (each step depends on the one before); graph definitions compile to the same shape and
 * the engine walks both the same way.
 */
import type { StepSpec, WorkflowSpec } from '../spec/index.ts';

export interface PlanNode {
  readonly id: string;
  readonly step: StepSpec;
  readonly dependsOn: readonly string[];
}

export interface ExecutionPlan {
  readonly nodes: readonly PlanNode[];
}

export function compilePlan(spec: WorkflowSpec): ExecutionPlan {
  return {
    nodes: spec.steps.map((step, i) => ({
      id: step.name,
      step,
      dependsOn: i === 0 ? [] : [spec.steps[i - 1]!.name],
    })),
  };
}

/** The first node, in plan order, that has not run and whose dependencies all completed. */
export function nextNode(plan: ExecutionPlan, completed: ReadonlySet<string>): PlanNode | undefined {
  return plan.nodes.find((n) => !completed.has(n.id) && n.dependsOn.every((d) => completed.has(d)));
}
