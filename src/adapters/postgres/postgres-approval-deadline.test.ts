/** Deadlines on approvals on PostgreSQL: the same cases as on SQLite (testing/approval-deadline-cases.ts). */
import { after, describe } from 'node:test';
import { approvalDeadlineCases } from '../../testing/approval-deadline-cases.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schemas: string[] = [];
after(async () => {
  for (const s of schemas) await dropSchema(url, s);
});

describe('approval deadlines on PostgreSQL', () => {
  // A schema per case: a worker claims every tenant's runs, so no case sees another's.
  approvalDeadlineCases(async () => {
    const schema = scratchSchemaName('keel_test_apdeadline');
    schemas.push(schema);
    return openScratchStore(url, schema);
  });
});
