export { type SqliteOpenMode, SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
