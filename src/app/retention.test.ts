/**
 * Retention, end to end on both stores: runs exported and verified, covered by the last
 * checkpoint and finished are removed whole (entries, approvals, blob links, blobs no run
 * references any more); the rest stay, each with why; the checkpoint chain goes on covering the
 * removed runs (audit verify counts them retained, new checkpoints keep their heads), a removed
 * run is never started again, and a directory that does not verify removes nothing.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bothStores } from '../../test/helpers/both-stores.ts';
import { deploy, fakeSources } from '../testing/index.ts';
import { makeCheckpoint, verifyCheckpoints } from './checkpoints/index.ts';
import { createKeel, type Keel } from './index.ts';
import { retainRuns } from './retention.ts';
import { exportRunDir } from './run-dirs.ts';

const SPEC = `id: kept-or-not
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: core.identity, args: {doc: "{{event.payload.doc}}"}}
  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}
limits: {maxSteps: 2, maxCostUsd: 0}
`;
const DOC = `The contract, as signed: ${'each party keeps a copy of this page. '.repeat(150)}`;
const CUT = '2026-12-01T00:00:00.000Z';
const BACKENDS = bothStores('keel_test_retention');

for (const backend of BACKENDS)
  describe(`retention on ${backend.name}`, () => {
    let keel: Keel;
    let dir: string;
    const key = generateKeyPairSync('ed25519');
    const ids: string[] = [];
    const emit = async (n: number) =>
      (
        await keel.events.emit('acme', {
          id: `e-${n}`,
          type: 'go',
          time: '2026-11-30T10:00:00Z',
          payload: { n, doc: DOC },
        })
      ).runs[0]!.runId;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'keel-retention-'));
      keel = createKeel({
        store: backend.store ? await backend.store() : join(dir, 'k.db'),
        sources: fakeSources({ start: Date.UTC(2026, 10, 30, 10) }),
      });
      await deploy(keel, 'acme', SPEC);
      for (let n = 0; n < 3; n++) ids.push(await emit(n));
      await keel.approvals.approve('acme', ids[0]!, 'dana', 'fine');
      await keel.approvals.deny('acme', ids[1]!, 'dana', 'no'); // ids[2] waits for a person
    });
    after(async () => {
      await keel.close();
      await backend.cleanup?.();
      rmSync(dir, { recursive: true, force: true });
    });

    test('runs not covered by the last checkpoint stay, in the dry run too; a directory that does not verify removes nothing', async () => {
      const { files } = await exportRunDir(keel, 'acme', { workflowId: 'kept-or-not' });
      // The dry run applies the rule the removal does: it promises nothing the store would refuse.
      const dry = await retainRuns(keel.store, 'acme', files, { before: CUT, dryRun: true });
      assert.deepEqual(dry.removed, []);
      const r = await retainRuns(keel.store, 'acme', files, { before: CUT });
      assert.deepEqual(r.removed, []);
      assert.deepEqual(dry.kept, r.kept);
      assert.ok(
        r.kept.every((k) => /checkpoint|not finished/.test(k.reason)),
        JSON.stringify(r.kept),
      );
      const bad = new Map(files);
      const ledger = [...files.keys()].find((f) => f.endsWith('ledger.jsonl'))!;
      const b = new Uint8Array(files.get(ledger)!);
      b[30] = b[30]! ^ 1;
      bad.set(ledger, b);
      await makeCheckpoint(keel.store, 'acme', key);
      await assert.rejects(
        retainRuns(keel.store, 'acme', bad, { before: CUT }),
        /does not verify.*nothing was removed/,
      );
      assert.equal((await keel.store.runs.listRuns('acme')).runs.length, 3);
    });

    test('removes finished, exported, checkpointed runs whole; keeps the rest, each with why', async () => {
      const { files, manifestDigest } = await exportRunDir(keel, 'acme', { workflowId: 'kept-or-not' });
      const dry = await retainRuns(keel.store, 'acme', files, { before: CUT, dryRun: true });
      assert.deepEqual([...dry.removed].sort(), [ids[0], ids[1]].sort());
      assert.equal((await keel.store.runs.listRuns('acme')).runs.length, 3, 'a dry run removes nothing');
      const r = await retainRuns(keel.store, 'acme', files, { before: CUT, now: () => CUT });
      assert.deepEqual([...r.removed].sort(), [ids[0], ids[1]].sort());
      assert.deepEqual(r.kept, [{ runId: ids[2], reason: 'it is waiting_approval, not finished' }]);
      assert.equal(r.manifestDigest, manifestDigest);
      for (const id of [ids[0]!, ids[1]!]) {
        assert.equal(await keel.store.runs.getRun('acme', id), undefined);
        assert.deepEqual(await keel.store.ledger.readEntries('acme', id), []);
        const kept = await keel.store.checkpoints.getRetainedRun('acme', id);
        assert.equal(kept?.manifestDigest, manifestDigest);
        assert.equal(kept?.retainedAt, CUT);
      }
      assert.equal(
        await keel.store.checkpoints.getRetainedRun('globex', ids[0]!),
        undefined,
        'only the tenant sees it',
      );
      // The run still waiting keeps its blob: it decodes whole.
      const left = await keel.runs.verify('acme', ids[2]!);
      assert.equal(left.ok, true);
    });

    test('the checkpoint chain goes on covering removed runs, and they never start again', async () => {
      const audit = await verifyCheckpoints(keel.store, 'acme');
      assert.equal(audit.ok, true, JSON.stringify(audit.anomalies));
      assert.equal(audit.retained, 2);
      assert.equal(audit.uncovered, 0);
      const again = await makeCheckpoint(keel.store, 'acme', key, undefined, { ifMoved: true });
      assert.equal(again.skipped, true, 'removing runs moves no head');
      await emit(7);
      const next = await makeCheckpoint(keel.store, 'acme', key);
      assert.equal(next.checkpoint.runs, 4, 'two removed, one waiting, one new');
      assert.equal((await verifyCheckpoints(keel.store, 'acme')).ok, true);
      await assert.rejects(emit(0), /removed by retention/);
    });

    if (backend.name === 'SQLite')
      test('a blob goes with the last run referencing it; an edited retained head is named by audit verify', async () => {
        const { default: Database } = await import('better-sqlite3');
        const count = () => {
          const raw = new Database(join(dir, 'k.db'), { readonly: true });
          try {
            return raw.prepare('SELECT count(*) FROM blobs').pluck().get();
          } finally {
            raw.close();
          }
        };
        assert.equal(count(), 1, 'the waiting and the new run still reference the blob');
        const latest = (await keel.store.runs.listRuns('acme')).runs.map((r) => r.runId);
        for (const id of latest) await keel.approvals.approve('acme', id, 'dana', 'fine');
        const { files } = await exportRunDir(keel, 'acme', { workflowId: 'kept-or-not' });
        await makeCheckpoint(keel.store, 'acme', key);
        const r = await retainRuns(keel.store, 'acme', files, { before: '2027-01-01T00:00:00.000Z' });
        assert.equal(r.removed.length, 2);
        assert.equal(count(), 0, 'no run references it any more');
        assert.equal((await verifyCheckpoints(keel.store, 'acme')).retained, 4);
        const raw = new Database(join(dir, 'k.db'));
        raw.prepare('UPDATE retained_runs SET head_seq = head_seq - 1 WHERE run_id = ?').run(ids[0]);
        raw.close();
        const audit = await verifyCheckpoints(keel.store, 'acme');
        assert.equal(audit.ok, false);
        assert.ok(audit.anomalies.some((a) => a.runId === ids[0] && /removed by retention/.test(a.detail)));
      });
  });
