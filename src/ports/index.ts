export type { Clock, EnvSource, RandomSource, RawSources } from './sources.ts';
export type {
  AppendRequest,
  ClaimedRun,
  LeaseChange,
  NewRun,
  PendingApproval,
  Promotion,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  StoreStats,
  VersionRecord,
  WorkerRecord,
  WorkerStatus,
} from './store.ts';
export type {
  ReconcileFinding,
  ToolContext,
  ToolDefinition,
  ToolHandler,
  ToolReconciler,
} from './tool-invoker.ts';
export { isResultWithDeltas, type ToolResultWithDeltas, withDeltas } from './tool-invoker.ts';
