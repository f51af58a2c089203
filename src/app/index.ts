export {
  anthropicProvider,
  type HttpModelOptions,
  MODEL_PRICES,
  type ModelPrice,
  modelProviderFromEnv,
  modelRetriesFromEnv,
  openAiCompatibleProvider,
} from '../adapters/model-providers/index.ts';
export {
  loadRecordedModelProvider,
  type RecordedModelProvider,
  type RecordedResponse,
  recordedModelProvider,
} from '../adapters/recorded-model/index.ts';
// What the edges (OpenWOP, server, CLI) use of the engine, so they reach it through the app only.
export {
  ENGINE_VERSION,
  MAX_STEPS_PER_RUN,
  type OnWalk,
  parseToolDefinition,
  type RunSummary,
  type WalkMode,
} from '../engine/index.ts';
export type { ApiKeysHandle } from './api-keys.ts';
export type { ApprovalsHandle, PendingApprovalItem } from './approvals-handle.ts';
export type { AuditCounts, AuditEntry, AuditFilter, AuditHandle, AuditPage, AuditQuery } from './audit.ts';
export { EVERY_TENANT, type ExposeEnvConfig } from './env-exposure.ts';
export type { EmitOptions, EmitResult, EventsHandle } from './events-handle.ts';
export type { PoliciesConfig, TrustedKeysConfig } from './governance-config.ts';
export { httpToolsFromSection } from './http-tools.ts';
export type { IdempotencyHandle } from './idempotency.ts';
export { createKeel, type KeelConfig } from './keel.ts';
export type { Keel } from './keel-api.ts';
export type { PartialGates, PromotionGatesConfig } from './lifecycle/lifecycle-deps.ts';
export type { LifecycleHandle, ShadowQueueHandle } from './lifecycle/lifecycle-handle.ts';
export type { Principal } from './lifecycle/principal.ts';
export type { PromoteOptions } from './lifecycle/promotions.ts';
export type { ReplayGateReport } from './lifecycle/replay-gate.ts';
export type { RolloutOptions, RolloutStatus } from './lifecycle/rollouts.ts';
export type { ShadowReport } from './lifecycle/shadow-report.ts';
export type { TestReport, TestResult } from './lifecycle/test-runs.ts';
export {
  approveMcpTools,
  type McpApprovalChange,
  type McpToolEntry,
  type McpTools,
  mcpLockPath,
  mcpToolsFrom,
} from './mcp-tools.ts';
export { KeelMetrics } from './metrics.ts';
export {
  describeStoreTarget,
  isPostgresUrl,
  migrateStore,
  type OpenedStore,
  type OpenStoreOptions,
  openSqliteStore,
  openStore,
  openStoreFor,
  type StoreAccess,
  type StoreMigration,
} from './open-store.ts';
export { noteRun, notesOf, noteTenant, type RequestNotes, tieNotes } from './request-context.ts';
export type { HistoryLine, RunCountFilter, RunCounts, RunsHandle } from './runs-handle.ts';
export {
  FIRE_GRACE_MS,
  keelScheduler,
  type ScheduledWorkflow,
  Scheduler,
  type SchedulerEvent,
  scheduledWorkflows,
} from './scheduler.ts';
export type { StartOptions } from './start-options.ts';
export {
  runSpans,
  type TraceExportConfig,
  TraceExporter,
  type TraceExportStats,
  traceExportFromEnv,
} from './trace-export.ts';
export type { Published, PublishOptions, WorkflowsHandle } from './workflows-handle.ts';
export type { WritsHandle } from './writ-trust.ts';
