/**
 * A SQLite file path in a fresh temporary directory for one test, removed afterwards whatever
 * the test did: for tests that open, close and reopen a store (a restart) at one path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function withStoreFile(prefix: string, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  try {
    await fn(join(dir, 'k.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
