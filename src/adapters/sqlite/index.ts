export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
