/** Waits for events on PostgreSQL: the engine cases shared with SQLite, and the store contract. */
import { after, describe } from 'node:test';
import { eventWaitEngineCases } from '../../testing/event-wait-engine-cases.ts';
import { eventWaitsContract } from '../../testing/event-waits-contract.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schemas: string[] = [];
after(async () => {
  for (const s of schemas) await dropSchema(url, s);
});
const scratch = async () => {
  const schema = scratchSchemaName('keel_test_evwait');
  schemas.push(schema);
  return openScratchStore(url, schema);
};

describe('waits for events on PostgreSQL', () => {
  eventWaitEngineCases(scratch);
});

describe('event waits contract on PostgreSQL', () => {
  // Two handles on one schema: takes from two processes' pools race on the same rows.
  eventWaitsContract(async () => {
    const a = await scratch();
    return { a, b: await openScratchStore(url, schemas.at(-1)!) };
  });
});
