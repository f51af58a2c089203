/** The event waits contract on SQLite: two handles on one file (two processes). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { eventWaitsContract } from '../../testing/event-waits-contract.ts';
import { SqliteStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-evwaits-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describe('event waits contract on SQLite', () => {
  eventWaitsContract(async () => {
    const path = join(dir, `w${n++}.db`);
    return { a: new SqliteStore(path), b: new SqliteStore(path) };
  });
});
