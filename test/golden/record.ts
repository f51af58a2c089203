/**
 * `npm run golden:update`: rewrites the golden ledgers after a deliberate change to what the engine
 * records. Review the diff: every changed byte is a change to what old runs replay against.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOLDEN_DIR, recordScenarios, toGoldenFile } from './scenarios.ts';

mkdirSync(GOLDEN_DIR, { recursive: true });
for (const g of await recordScenarios()) {
  writeFileSync(join(GOLDEN_DIR, `${g.name}.json`), toGoldenFile(g));
  console.log(`wrote ${g.name}.json (${g.entries.length} entries, ${g.status})`);
}
