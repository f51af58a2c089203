/**
 * The walk an event's delivery gives a run it woke (inline) is not silent when it fails: a run whose
 * ledger no longer verifies is told to `onBackgroundError` with its tenant and run, and the delivery
 * itself still succeeds (the run stays woken for a worker). Another walker holding the run is not an
 * error and is not told.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { entryRows, putEntryRow } from '../../test/helpers/sqlite-files.ts';
import { isKeelError } from '../core/errors.ts';
import { deploy } from '../testing/index.ts';
import { createKeel } from './keel.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-wake-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

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

const event = (id: string, type: string) => ({
  id,
  type,
  subject: 'T-1',
  time: '2026-01-01T09:00:00Z',
  payload: {},
});

test("a woken run's failed inline walk is told with its tenant and run; the delivery still succeeds", async () => {
  const store = join(dir, 'k.db');
  const told: { e: unknown; what: Record<string, unknown> }[] = [];
  const keel = createKeel({ store, onBackgroundError: (e, what) => told.push({ e, what }) });
  try {
    await deploy(keel, 't1', SPEC);
    const runId = (await keel.events.emit('t1', event('e1', 'ticket.opened'))).runs[0]!.runId;
    assert.equal((await keel.runs.get('t1', runId)).status, 'waiting');
    // Its root no longer matches its hash: the walk refuses the ledger (ledger_invalid).
    const [root] = entryRows(store, runId);
    putEntryRow(store, { ...root!, at: '2020-01-01T00:00:00.000Z' });
    await keel.events.emit('t1', event('r1', 'customer.replied'));
    assert.equal(told.length, 1, JSON.stringify(told.map((t) => String(t.e))));
    assert.deepEqual(told[0]!.what, { tenant: 't1', runId });
    assert.ok(isKeelError(told[0]!.e));
  } finally {
    await keel.close();
  }
});

test('a woken run that walks cleanly tells nothing', async () => {
  const told: unknown[] = [];
  const keel = createKeel({ store: join(dir, 'k2.db'), onBackgroundError: (e) => told.push(e) });
  try {
    await deploy(keel, 't1', SPEC);
    const runId = (await keel.events.emit('t1', event('e1', 'ticket.opened'))).runs[0]!.runId;
    await keel.events.emit('t1', event('r1', 'customer.replied'));
    assert.equal((await keel.runs.get('t1', runId)).status, 'completed');
    assert.deepEqual(told, []);
  } finally {
    await keel.close();
  }
});
