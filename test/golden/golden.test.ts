/**
 * Golden ledgers: the recorded ledgers of the example workflows, kept under test/fixtures/ledgers.
 * Each must verify and replay "identical" under today's engine and tools; and recording the same
 * scenarios again must write the same bytes, so any change that alters what is recorded fails
 * here until the goldens are updated on purpose (`npm run golden:update`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readRunDir } from '../../src/cli/run-dir-files.ts';
import { verifyLedger } from '../../src/core/ledger/index.ts';
import { verifyRunDir } from '../../src/core/run-dir/index.ts';
import { specHash } from '../../src/core/spec/index.ts';
import { replayRun } from '../../src/engine/index.ts';
import {
  fromGoldenFile,
  GOLDEN_DIR,
  goldenKeel,
  RUN_DIR_GOLDEN,
  recordRunDir,
  recordScenarios,
} from './scenarios.ts';

const files = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('golden ledgers', () => {
  test('there is one golden per scenario', async () => {
    const names = (await recordScenarios()).map((g) => `${g.name}.json`).sort();
    assert.deepEqual(files, names);
  });

  for (const file of files) {
    test(`${file} verifies and replays identically`, async () => {
      const g = fromGoldenFile(readFileSync(join(GOLDEN_DIR, file), 'utf8'));
      const root = g.entries[0]!;
      const v = verifyLedger(root.runId, g.entries);
      assert.equal(v.ok, true, JSON.stringify(v));
      const { keel, desk } = goldenKeel();
      const version = {
        tenant: 'acme-support',
        workflowId: g.spec.id,
        version: g.spec.version,
        specHash: specHash(g.spec),
        spec: g.spec,
        status: g.spec.status,
        publishedAt: '',
        publishedBy: '',
      };
      const r = await replayRun(g.entries, version, keel.tools);
      assert.deepEqual(r, { identical: true, runId: root.runId, entries: g.entries.length });
      await keel.close();
      desk.shutdown();
    });
  }

  test('recording the scenarios again writes byte-identical ledgers (update on purpose: npm run golden:update)', async () => {
    for (const g of await recordScenarios()) {
      const golden = fromGoldenFile(readFileSync(join(GOLDEN_DIR, `${g.name}.json`), 'utf8'));
      assert.equal(g.entries.length, golden.entries.length, `${g.name}: entry count`);
      g.entries.forEach((e, i) => {
        const want = golden.entries[i]!;
        assert.equal(e.hash, want.hash, `${g.name}: seq ${i} (${e.kind}) differs from the golden ledger`);
        assert.deepEqual(Buffer.from(e.payload), Buffer.from(want.payload));
      });
    }
  });

  test('the golden run directory is what exporting the runs writes now, byte for byte, and it verifies', async () => {
    const files = await recordRunDir();
    const kept = readRunDir(RUN_DIR_GOLDEN);
    assert.deepEqual([...kept.keys()].sort(), [...files.keys()].sort());
    for (const [file, bytes] of files)
      assert.deepEqual(
        Buffer.from(kept.get(file)!),
        Buffer.from(bytes),
        `${file} differs from the golden run directory`,
      );
    const r = verifyRunDir(kept);
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.runs.length, 5);
  });
});
