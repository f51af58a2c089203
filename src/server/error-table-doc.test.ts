/**
 * docs/http.md's table of statuses is the code's table (`httpStatusTable`), code for code: a code
 * added, moved or dropped in one and not the other fails here, so the document stays true.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { httpStatusTable } from './errors.ts';

test('every code of the HTTP status table is in docs/http.md under its status, and nothing else is', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'http.md'), 'utf8');
  const documented: Record<string, number> = {};
  for (const line of doc.split('\n')) {
    const row = /^\|\s*(\d{3})\s*\|(.*)\|\s*$/.exec(line);
    if (!row) continue;
    for (const [, code] of row[2]!.matchAll(/`([a-z_.]+)`/g)) documented[code!] = Number(row[1]);
  }
  assert.deepEqual(documented, httpStatusTable());
});
