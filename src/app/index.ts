export { createKeel, type EmitResult, type HistoryLine, type Keel, type KeelConfig } from './keel.ts';
export {
  describeStoreTarget,
  isPostgresUrl,
  migrateStore,
  type OpenStoreOptions,
  openSqliteStore,
  openStore,
  type StoreMigration,
} from './open-store.ts';
