/**
 * The append-notification part of the ledger's contract (`Ledger.onAppended`), registered by
 * `runStoreContract` so SQLite and PostgreSQL are held to the same rules: an append through a
 * handle is announced to that handle's listeners with its run id after it commits (and with its
 * entries, as read back, when the store gives them); an append
 * through another handle (another process, in production) reaches them too, named or as "some run
 * changed"; nothing is announced after a listener stops.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { decodeEntry, type StoredEntry } from '../core/ledger/index.ts';
import type { AppendRequest, Store } from '../ports/index.ts';
import { buildLedger, extendLedger } from './ledger-fixtures.ts';

let n = 0;

function create(tenant: string): AppendRequest {
  const runId = hashOf({ label: 'append-notification', n: n++, salt: Math.random() });
  return {
    tenant,
    runId,
    expectedHead: null,
    entries: buildLedger(runId, 1, tenant),
    status: 'running',
    create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
  };
}

/** Waits (up to `ms`) until `ok()` holds. */
async function until(ok: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return ok();
}

export function appendNotificationContract(store: () => Store, another?: () => Store): void {
  test('append notifications: an append through this handle is announced with its run id, after it commits', async () => {
    const heard: (string | undefined)[] = [];
    const given = new Map<string, StoredEntry[]>();
    const stop = await store().ledger.onAppended((runId, entries) => {
      heard.push(runId);
      if (runId !== undefined && entries) given.set(runId, [...(given.get(runId) ?? []), ...entries]);
    });
    try {
      const req = create('t-notify');
      const head = await store().ledger.append(req);
      assert.ok(
        await until(() => heard.includes(req.runId)),
        `the create of ${req.runId} was announced (heard ${heard.length})`,
      );
      // The announcement comes after the commit: whoever hears it reads the entries.
      assert.equal((await store().ledger.readEntries('t-notify', req.runId)).length, req.entries.length);
      heard.length = 0;
      const more = extendLedger(req.runId, req.entries.at(-1)!, 2);
      await store().ledger.append({
        tenant: 't-notify',
        runId: req.runId,
        expectedHead: head,
        entries: more,
        status: 'running',
      });
      assert.ok(await until(() => heard.includes(req.runId)), 'the next append was announced too');
      // Entries that come with announcements (a store that has them at hand) are the entries as read back.
      const mine = given.get(req.runId);
      if (mine)
        assert.deepEqual(
          mine.map(decodeEntry),
          (await store().ledger.readEntries('t-notify', req.runId)).map(decodeEntry),
        );
    } finally {
      await stop();
    }
    const before = heard.length;
    await store().ledger.append(create('t-notify'));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(heard.length, before, 'nothing is announced after the listener stopped');
  });

  if (!another) return;
  test('append notifications: an append through another handle reaches this handle’s listeners', async () => {
    const heard: (string | undefined)[] = [];
    const stop = await store().ledger.onAppended((runId) => heard.push(runId));
    try {
      await new Promise((r) => setTimeout(r, 200));
      heard.length = 0;
      const req = create('t-notify-other');
      await another().ledger.append(req);
      // PostgreSQL names the run; SQLite can only say that another connection committed.
      assert.ok(
        await until(() => heard.includes(req.runId) || heard.includes(undefined)),
        'the other handle’s append was heard',
      );
    } finally {
      await stop();
    }
  });
}
