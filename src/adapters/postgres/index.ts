export {
  type AppendFigures,
  type BenchStore,
  benchPostgresAppends,
  openBenchStore,
  postgresCommitBaseline,
} from './bench.ts';
export { isPostgresUrl, redactUrl } from './connection.ts';
export type { MigrationReport } from './migrate.ts';
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.ts';
export { SCHEMA_VERSION } from './schema.ts';
export { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';
