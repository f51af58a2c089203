/** Deadlines on approvals on SQLite (the cases are shared with PostgreSQL: testing/approval-deadline-cases.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';

import { approvalDeadlineCases } from '../testing/approval-deadline-cases.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-approval-deadlines-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

describe('approval deadlines on SQLite', () => {
  approvalDeadlineCases(async () => join(dir, `a${n++}.db`));
});
