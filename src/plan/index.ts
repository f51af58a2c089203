export { type CheckResult, checkPlanFiles, checkPlanSources } from './check-plan.ts';
export {
  defineWorkflow,
  type StepSpec,
  type TriggerSpec,
  type WorkflowLimits,
  type WorkflowSpec,
  type WorkflowStatus,
} from './define-workflow.ts';
export { isPlanModulePath } from './is-plan-module-path.ts';
export {
  type LoadedPlan,
  type LoadPlanOptions,
  loadPlanModule,
  loadPlanSource,
} from './load-plan-module.ts';
export { compareFindings, determinismError, formatFinding, type PlanFinding } from './plan-finding.ts';
export type { PlanSource } from './plan-program.ts';
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './plan-sandbox.ts';
