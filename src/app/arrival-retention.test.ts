/**
 * Retention prunes arrivals (the events kept for waits), on both stores: an arrival goes only once
 * no wait can still take it — it arrived before the cut and before every unfinished run created
 * before the cut started (less ARRIVAL_MARGIN_MS) — the dry run counts what the removal removes,
 * and another tenant's arrivals are never touched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../adapters/postgres/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy } from '../testing/index.ts';
import { createKeel, type Keel } from './index.ts';
import { ARRIVAL_MARGIN_MS, retainRuns } from './retention.ts';
import { exportRunDir } from './run-dirs.ts';

const SPEC = `id: desk
version: 1
status: LIVE
triggers: [{ event: ticket.opened }]
steps:
  - name: await_reply
    wait: { event: customer.replied, match: "event.subject == run.event.subject", timeout: 48h }
  - { name: done, tool: core.noop, args: {} }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;
const LATER = '2027-06-01T00:00:00.000Z';
const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_arrival_retention');
const BACKENDS: readonly { name: string; store?: () => Promise<Store>; cleanup?: () => Promise<void> }[] = [
  { name: 'SQLite' },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema), cleanup: () => dropSchema(url, schema) },
];
const event = (id: string, type: string, subject: string) => ({
  id,
  type,
  subject,
  time: '2026-12-01T09:00:00Z',
  payload: {},
});

for (const backend of BACKENDS)
  describe(`arrivals under retention on ${backend.name}`, () => {
    let keel: Keel;
    let dir: string;
    const untaken = (tenant: string) =>
      keel.store.waits.untaken(tenant, 'customer.replied', 0, { runId: 'none', step: 'none' }, 100);
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'keel-arrival-retention-'));
      keel = createKeel({ store: backend.store ? await backend.store() : join(dir, 'k.db') });
      for (const t of ['acme', 'globex']) await deploy(keel, t, SPEC);
    });
    after(async () => {
      await keel.close();
      await backend.cleanup?.();
      rmSync(dir, { recursive: true, force: true });
    });

    test('kept while an unfinished run could still take them; pruned once none can; the dry run counts', async () => {
      const waiting = (await keel.events.emit('acme', event('o1', 'ticket.opened', 'T-1'))).runs[0]!;
      assert.equal(waiting.status, 'waiting');
      for (const t of ['acme', 'globex'])
        await keel.events.emit(t, event('r-other', 'customer.replied', 'T-9'));
      assert.equal((await untaken('acme')).length, 1);
      const { files } = await exportRunDir(keel, 'acme', { workflowId: 'desk' });
      // The waiting run started now: nothing that arrived since may go.
      const held = await retainRuns(keel.store, 'acme', files, { before: LATER, dryRun: true });
      const run = (await keel.store.runs.getRun('acme', waiting.runId))!;
      assert.equal(
        held.arrivalsBefore,
        new Date(Date.parse(run.createdAt) - ARRIVAL_MARGIN_MS).toISOString(),
      );
      assert.equal(held.arrivalsRemoved, 0);
      // Its reply ends the wait: no unfinished run is left, the cut is the one given.
      await keel.events.emit('acme', event('r1', 'customer.replied', 'T-1'));
      assert.equal((await keel.runs.get('acme', waiting.runId)).status, 'completed');
      const { files: again } = await exportRunDir(keel, 'acme', { workflowId: 'desk' });
      const dry = await retainRuns(keel.store, 'acme', again, { before: LATER, dryRun: true });
      assert.equal(dry.arrivalsBefore, new Date(Date.parse(LATER) - ARRIVAL_MARGIN_MS).toISOString());
      assert.equal(dry.arrivalsRemoved, 2, 'the untaken one and the one the run took');
      assert.equal((await untaken('acme')).length, 1, 'a dry run removes nothing');
      const r = await retainRuns(keel.store, 'acme', again, { before: LATER });
      assert.equal(r.arrivalsRemoved, 2);
      assert.deepEqual(await untaken('acme'), []);
      assert.equal((await untaken('globex')).length, 1, "another tenant's arrivals stay");
      // The run that took its reply still verifies: the matched event is in its ledger in full.
      assert.equal((await keel.runs.verify('acme', waiting.runId)).ok, true);
    });
  });
