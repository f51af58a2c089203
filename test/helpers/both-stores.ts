/**
 * The two stores a test walks the same cases on: in-memory SQLite (no store given: `:memory:`),
 * and a scratch PostgreSQL schema of KEEL_TEST_DATABASE_URL named from `prefix`, dropped by
 * `cleanup`.
 */
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import type { Store } from '../../src/ports/index.ts';

export interface TestBackend {
  readonly name: 'SQLite' | 'PostgreSQL';
  /** The store to open; none: in-memory SQLite. */
  readonly store?: () => Promise<Store>;
  readonly cleanup?: () => Promise<void>;
}

export function bothStores(prefix: string): readonly TestBackend[] {
  const url = testDatabaseUrl();
  const schema = scratchSchemaName(prefix);
  return [
    { name: 'SQLite' },
    {
      name: 'PostgreSQL',
      store: () => openScratchStore(url, schema),
      cleanup: () => dropSchema(url, schema),
    },
  ];
}
