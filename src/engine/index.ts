export { SECRET_ENV, type SecretRef } from '../core/spec/index.ts';
export { delegateTool } from './delegate.ts';
export { type Effects, type LiveEffectsOptions, liveEffects, type StepOutcome } from './effects.ts';
export { ENGINE_VERSION, Engine, type EngineOptions } from './engine.ts';
export type { OnWalk, StartWalk, WalkMode } from './engine-context.ts';
export { checkOnWalk } from './engine-context.ts';
export type { ForkOptions } from './fork-run.ts';
export {
  admitWrit,
  type GovernanceConfig,
  type RunGovernance,
  type TenantWritTrust,
  writUsage,
} from './governance.ts';
export { readRunLedger } from './load-run.ts';
export { DELEGATE_TOOL, DelegationCode, type DelegationKey } from './mint-delegation.ts';
export { modelPlanner } from './model-planner.ts';
export type { ReconcileRequest } from './reconcile-step.ts';
export { indexLedger, recordedEffects } from './recorded-effects.ts';
export { type Replanned, replanRun } from './replan.ts';
export { type EntrySketch, type ReplayDivergence, type ReplayResult, replayRun } from './replay.ts';
export type { ApprovalDecision } from './resolve-approval.ts';
export { checkStoredRun, openRequest, refuseUnverified } from './run-integrity.ts';
export { type RunSummary, summaryOf } from './run-summary.ts';
export { templatePlanner } from './template-planner.ts';
export { parseToolDefinition, ToolRegistry } from './tool-registry.ts';
export { verifyRun } from './verify-run.ts';
export { MAX_STEPS_PER_RUN, type WalkOptions } from './walk.ts';
