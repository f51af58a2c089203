export type {
  CheckpointHead,
  CheckpointHeadRow,
  CheckpointStore,
  HeadCursor,
  LogCursor,
  RetainedRun,
} from './checkpoint-store.ts';
export type { CheckpointWitness } from './checkpoint-witness.ts';
export type {
  DeliveredEvent,
  EventClaim,
  EventConflict,
  EventIndex,
  NewEventConflict,
  RoutedRun,
  TriggerDisagreement,
} from './event-index.ts';
export type { Arrival, EventWaits, SleepRequest, WokenRun } from './event-waits.ts';
export type { Evidence, ShadowSkip, StoredComparison } from './evidence.ts';
export {
  IDEMPOTENCY_TTL_MS,
  type Idempotency,
  type IdempotencyClaim,
  type IdempotencyClaimRequest,
  type IdempotencyRef,
  type IdempotencyResponse,
} from './idempotency.ts';
export type {
  ApiKeyInfo,
  ApiKeyRecord,
  Keys,
  PrincipalKind,
  TrustedKeyRecord,
  WritRevocation,
} from './keys.ts';
export type {
  AppendListener,
  AppendRequest,
  EntryFilter,
  EntryPage,
  EntryQuery,
  Ledger,
  NewRun,
  RunEntry,
} from './ledger.ts';
export type { CatalogTool, ModelAnswer, ModelProvider, ModelRequest, ModelUsage } from './model-provider.ts';
export type { ModelAccess, OpenSlot, Planner, PlannerView } from './planner.ts';
export type {
  LifecycleChange,
  NewPromotion,
  Promotion,
  Registry,
  StoredRollout,
  VersionRecord,
} from './registry.ts';
export type {
  LiveRunTally,
  LiveRunWindow,
  PendingApproval,
  RunCount,
  RunFilter,
  RunIndex,
  RunPage,
  RunRecord,
} from './run-index.ts';
export type {
  ClaimedShadowWork,
  ShadowClaimScope,
  ShadowFailure,
  ShadowGroup,
  ShadowQueue,
  ShadowQueueStatus,
  ShadowWork,
} from './shadow-queue.ts';
export type { Clock, EnvSource, RandomSource, RawSources } from './sources.ts';
export { type Store, type StorePorts, type StoreStats, withPorts } from './store.ts';
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
export {
  type KeptUnrouted,
  type NewUnrouted,
  UNROUTED_REASONS,
  type UnroutedEvent,
  type UnroutedInbox,
  type UnroutedLimits,
  type UnroutedReason,
} from './unrouted-inbox.ts';
export type {
  ClaimedRun,
  ClaimScope,
  LeaseChange,
  WorkerRecord,
  WorkerStatus,
  WorkQueue,
} from './work-queue.ts';
export type { BudgetChange, BudgetRefusalDetails, WritBudgets, WritBudgetUsage } from './writ-budgets.ts';
