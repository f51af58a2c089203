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
  parseToolDefinition,
  type RunSummary,
  type WalkMode,
} from '../engine/index.ts';
export type { AuditCounts, AuditEntry, AuditFilter, AuditHandle, AuditPage, AuditQuery } from './audit.ts';
export { EVERY_TENANT, type ExposeEnvConfig } from './env-exposure.ts';
export type { PoliciesConfig, TrustedKeysConfig } from './governance-config.ts';
export { httpToolsFromSection } from './http-tools.ts';
export {
  createKeel,
  type EmitOptions,
  type EmitResult,
  type HistoryLine,
  type KeelConfig,
  type PendingApprovalItem,
  type PublishOptions,
  type RunCountFilter,
  type RunCounts,
  type StartOptions,
} from './keel.ts';
export type {
  ApiKeysHandle,
  ApprovalsHandle,
  EventsHandle,
  IdempotencyHandle,
  Keel,
  LifecycleHandle,
  Published,
  RunsHandle,
  ShadowQueueHandle,
  WorkflowsHandle,
  WritsHandle,
} from './keel-api.ts';
export type {
  PartialGates,
  Principal,
  PromoteOptions,
  PromotionGatesConfig,
  RolloutOptions,
  RolloutStatus,
} from './lifecycle/lifecycle.ts';
export type { ReplayGateReport } from './lifecycle/replay-gate.ts';
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
export { noteRun, noteTenant, type RequestNotes, requestNotes } from './request-context.ts';
export {
  runSpans,
  type TraceExportConfig,
  TraceExporter,
  type TraceExportStats,
  traceExportFromEnv,
} from './trace-export.ts';
