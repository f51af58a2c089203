/** Durable timers on PostgreSQL: the same cases as on SQLite (testing/timer-engine-cases.ts). */
import { after, describe } from 'node:test';
import { timerEngineCases } from '../../testing/timer-engine-cases.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schemas: string[] = [];
after(async () => {
  for (const s of schemas) await dropSchema(url, s);
});

describe('timers on PostgreSQL', () => {
  // A schema per case: a worker claims every tenant's runs, so no case sees another's.
  timerEngineCases(async () => {
    const schema = scratchSchemaName('keel_test_timers');
    schemas.push(schema);
    return openScratchStore(url, schema);
  });
});
