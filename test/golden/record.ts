/**
 * `npm run golden:update`: rewrites the golden ledgers after a deliberate change to what the engine
 * records. Review the diff: every changed byte is a change to what old runs replay against.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GOLDEN_DIR, RUN_DIR_GOLDEN, recordRunDir, recordScenarios, toGoldenFile } from './scenarios.ts';

mkdirSync(GOLDEN_DIR, { recursive: true });
for (const g of await recordScenarios()) {
  writeFileSync(join(GOLDEN_DIR, `${g.name}.json`), toGoldenFile(g));
  console.log(`wrote ${g.name}.json (${g.entries.length} entries, ${g.status})`);
}

// The same runs as a portable run directory (docs/run-format.md), for auditors' own verifiers.
rmSync(RUN_DIR_GOLDEN, { recursive: true, force: true });
const files = await recordRunDir();
for (const [file, bytes] of files) {
  mkdirSync(dirname(join(RUN_DIR_GOLDEN, file)), { recursive: true });
  writeFileSync(join(RUN_DIR_GOLDEN, file), bytes);
}
console.log(`wrote run-dir/ (${files.size} files)`);
