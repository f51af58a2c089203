export {
  loadRecordedModelProvider,
  type RecordedModelProvider,
  type RecordedResponse,
  recordedModelProvider,
} from '../adapters/recorded-model/index.ts';
export { EVERY_TENANT, type ExposeEnvConfig } from './env-exposure.ts';
export type { PoliciesConfig, TrustedKeysConfig } from './governance-config.ts';
export {
  createKeel,
  type EmitResult,
  type HistoryLine,
  type KeelConfig,
  type PublishOptions,
  type StartOptions,
} from './keel.ts';
export type {
  ApiKeysHandle,
  ApprovalsHandle,
  EventsHandle,
  IdempotencyHandle,
  Keel,
  Published,
  RunsHandle,
  WorkflowsHandle,
  WritsHandle,
} from './keel-api.ts';
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
