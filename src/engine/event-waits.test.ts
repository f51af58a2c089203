/** Waits for events on SQLite (the cases are shared with PostgreSQL: testing/event-wait-engine-cases.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';

import { eventWaitEngineCases } from '../testing/event-wait-engine-cases.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-event-waits-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describe('waits for events on SQLite', () => {
  eventWaitEngineCases(async () => join(dir, `e${n++}.db`));
});
