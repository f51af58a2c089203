export type {
  CheckpointHead,
  CheckpointHeadRow,
  CheckpointStore,
  HeadCursor,
  LogCursor,
  RetainedRun,
} from './checkpoint-store.ts';
export type { CheckpointWitness } from './checkpoint-witness.ts';
export type { CatalogTool, ModelAnswer, ModelProvider, ModelRequest, ModelUsage } from './model-provider.ts';
export type { ModelAccess, OpenSlot, Planner, PlannerView } from './planner.ts';
export type { Clock, EnvSource, RandomSource, RawSources } from './sources.ts';
export type {
  ApiKeyInfo,
  ApiKeyRecord,
  AppendRequest,
  BudgetChange,
  BudgetRefusalDetails,
  ClaimedRun,
  ClaimScope,
  EntryFilter,
  EntryPage,
  EntryQuery,
  IdempotencyClaim,
  IdempotencyClaimRequest,
  IdempotencyRef,
  IdempotencyResponse,
  LeaseChange,
  LifecycleChange,
  NewPromotion,
  NewRun,
  PendingApproval,
  PrincipalKind,
  Promotion,
  RunCount,
  RunEntry,
  RunFilter,
  RunPage,
  RunRecord,
  ShadowSkip,
  Store,
  StoredComparison,
  StoredRollout,
  StoreStats,
  TrustedKeyRecord,
  VersionRecord,
  WorkerRecord,
  WorkerStatus,
  WritBudgetUsage,
  WritRevocation,
} from './store.ts';
export { IDEMPOTENCY_TTL_MS } from './store.ts';
export type {
  ReconcileFinding,
  SimulationContext,
  ToolContext,
  ToolDefinition,
  ToolHandler,
  ToolReconciler,
  ToolSimulator,
} from './tool-invoker.ts';
export {
  isResultWithDeltas,
  OUTCOME_UNKNOWN,
  outcomeUnknown,
  type ToolResultWithDeltas,
  withDeltas,
} from './tool-invoker.ts';
