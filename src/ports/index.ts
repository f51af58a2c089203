export type { Clock, EnvSource, RandomSource, RawSources } from './sources.ts';
export type {
  AppendRequest,
  NewRun,
  PendingApproval,
  Promotion,
  RunFilter,
  RunPage,
  RunRecord,
  Store,
  StoreStats,
  VersionRecord,
} from './store.ts';
export type { ToolContext, ToolDefinition, ToolHandler } from './tool-invoker.ts';
