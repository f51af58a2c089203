/** Durable timers on SQLite (the cases are shared with PostgreSQL: testing/timer-engine-cases.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';

import { timerEngineCases } from '../testing/timer-engine-cases.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-timers-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describe('timers on SQLite', () => {
  timerEngineCases(async () => join(dir, `t${n++}.db`));
});
