/**
 * Keel's public surface as a library: the composition root and the types a host needs to define
 * tools and read results. Everything else is internal and may change.
 */
export {
  createKeel,
  type EmitResult,
  type HistoryLine,
  type Keel,
  type KeelConfig,
  loadRecordedModelProvider,
  openStore,
  recordedModelProvider,
} from './app/index.ts';
export { ErrorCode, isKeelError, KeelError } from './core/errors.ts';
export type { Entry, EventRecord, RunStatus, StoredEntry, VerifyResult } from './core/ledger/index.ts';
export type { WorkflowSpec, WorkflowStatus } from './core/spec/index.ts';
export type { JsonSchema, ToolDescriptor } from './core/tools/index.ts';
export type { Delta } from './core/world/index.ts';
export type { ReplayResult, RunSummary } from './engine/index.ts';
export {
  type CatalogTool,
  type ModelProvider,
  type ModelRequest,
  type OpenSlot,
  type Planner,
  type PlannerView,
  type RawSources,
  type Store,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  withDeltas,
} from './ports/index.ts';
