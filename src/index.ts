/**
 * Keel's public surface as a library (the package's `keel` export): the composition root, the
 * types a host needs to define tools and read results, and what the docs show library users
 * calling — policies, writs, planners, model providers, stores. Everything else is internal and may
 * change. `keel/plan` exports `defineWorkflow` for plan modules; `keel/support-desk` the example's
 * tool pack.
 */
export {
  type ApiKeysHandle,
  type ApprovalsHandle,
  anthropicProvider,
  createKeel,
  describeStoreTarget,
  type EmitOptions,
  type EmitResult,
  type EventsHandle,
  type HistoryLine,
  type HttpModelOptions,
  type IdempotencyHandle,
  isPostgresUrl,
  type Keel,
  type KeelConfig,
  type LifecycleHandle,
  loadRecordedModelProvider,
  MODEL_PRICES,
  type ModelPrice,
  migrateStore,
  modelProviderFromEnv,
  type OpenStoreOptions,
  openAiCompatibleProvider,
  openStore,
  type PartialGates,
  type PendingApprovalItem,
  type PoliciesConfig,
  type Principal,
  type PromoteOptions,
  type PromotionGatesConfig,
  type Published,
  type RecordedModelProvider,
  type RecordedResponse,
  type ReplayGateReport,
  type RolloutOptions,
  type RolloutStatus,
  type RunCountFilter,
  type RunCounts,
  type RunsHandle,
  recordedModelProvider,
  type ShadowReport,
  type StartOptions,
  type StoreMigration,
  type TestReport,
  type TestResult,
  type TrustedKeysConfig,
  type WorkflowsHandle,
  type WritsHandle,
} from './app/index.ts';
export { type Canonical, canonicalize, type Digest, hashOf } from './core/canonical/index.ts';
export { ErrorCode, isKeelError, KeelError } from './core/errors.ts';
export type { Entry, EventRecord, RunStatus, StoredEntry, VerifyResult } from './core/ledger/index.ts';
export {
  type ChainResult,
  DEFAULT_GATES,
  type GateCondition,
  type GateConfig,
  type GateReport,
  type PromotionRecord,
  type RolloutState,
  type SpecDiff,
  verifyPromotionChain,
} from './core/lifecycle/index.ts';
export {
  evaluatePolicy,
  type Policy,
  type PolicyDecision,
  type PolicyInput,
  type PolicyOutcome,
  type PolicyRule,
  parsePolicy,
  policyDocument,
} from './core/policy/index.ts';
export type {
  PromotionSpec,
  SpecTest,
  StepSpec,
  TestExpectations,
  TriggerSpec,
  WorkflowLimits,
  WorkflowSpec,
  WorkflowStatus,
} from './core/spec/index.ts';
export {
  type JsonSchema,
  TOOL_DESCRIPTOR_SCHEMA,
  type ToolCost,
  type ToolDescriptor,
  type ToolEffect,
} from './core/tools/index.ts';
export type { Delta } from './core/world/index.ts';
export {
  attenuate,
  type ChildRequest,
  checkWrit,
  keyIdOf,
  type SignedWrit,
  signWrit,
  type TrustedKey,
  verifyWritChain,
  type WritBody,
  type WritBudget,
  WritCode,
  type WritViolation,
  writHash,
} from './core/writs/index.ts';
export {
  modelPlanner,
  type ReconcileRequest,
  type ReplayResult,
  type RunSummary,
  templatePlanner,
  type WalkMode,
} from './engine/index.ts';
export {
  type CatalogTool,
  type DeliveredEvent,
  type EventConflict,
  type ModelProvider,
  type ModelRequest,
  type OpenSlot,
  type Planner,
  type PlannerView,
  type RawSources,
  type SimulationContext,
  type Store,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolSimulator,
  withDeltas,
} from './ports/index.ts';
