/**
 * The run index's search, on every store: runs found by their starting event's subject (exactly,
 * or by a prefix in byte order), by their id (whole or a prefix), and a jump to a date (`until`)
 * paged on by the cursor over (createdAt, runId) — each scoped to its tenant.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import { chainEntry } from '../core/ledger/index.ts';
import type { RunFilter, Store } from '../ports/index.ts';
import { count, createRequest } from './contract-fixtures.ts';
import { sampleEvent } from './ledger-fixtures.ts';

/** Creates a run of `tenant` whose root is at `at` and whose event names `subject` ('' for none). */
async function runWithSubject(store: Store, tenant: string, subject: string, at: string): Promise<string> {
  const runId = hashOf({ tenant, subject, at, n: count() });
  const root = chainEntry(
    runId,
    null,
    'run.started',
    {
      tenant,
      workflowId: 'wf',
      version: 1,
      specHash: hashOf('spec'),
      status: 'LIVE' as const,
      event: sampleEvent({ tenant, subject }),
      engine: 'keel/test',
    },
    at,
  ).stored;
  const req = createRequest(tenant, [root]);
  await store.ledger.append({ ...req, create: { ...req.create!, ...(subject ? { subject } : {}) } });
  return runId;
}

/** Every run of a listing, a page of `limit` at a time through the cursor. */
async function everyPage(store: Store, tenant: string, f: RunFilter, limit = 2): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.runs.listRuns(tenant, { ...f, limit, ...(cursor ? { cursor } : {}) });
    assert.ok(page.runs.length <= limit);
    seen.push(...page.runs.map((r) => r.runId));
    cursor = page.next;
  } while (cursor);
  return seen;
}

export function runSearchContract(current: () => Store): void {
  describe('run search', () => {
    test('finds runs by subject exactly and by prefix, newest first, paging within the search', async () => {
      const store = current();
      const tenant = `subject-${count()}`;
      const at = (s: number) => `2026-03-01T00:00:${String(s).padStart(2, '0')}.000Z`;
      const t1a = await runWithSubject(store, tenant, 'T-1', at(1));
      const t10 = await runWithSubject(store, tenant, 'T-10', at(2));
      const t1b = await runWithSubject(store, tenant, 'T-1', at(3));
      const t2 = await runWithSubject(store, tenant, 'T-2', at(4));
      const none = await runWithSubject(store, tenant, '', at(5));
      const t1c = await runWithSubject(store, tenant, 'T-1', at(6));
      // Another tenant's run with the same subject is never found.
      await runWithSubject(store, `${tenant}-other`, 'T-1', at(7));

      assert.deepEqual(await everyPage(store, tenant, { subject: 'T-1' }), [t1c, t1b, t1a]);
      assert.deepEqual(await everyPage(store, tenant, { subject: 'T-1' }, 1), [t1c, t1b, t1a]);
      assert.deepEqual(await everyPage(store, tenant, { subjectPrefix: 'T-1' }), [t1c, t1b, t10, t1a]);
      assert.deepEqual(await everyPage(store, tenant, { subjectPrefix: 'T-' }), [t1c, t2, t1b, t10, t1a]);
      // Byte order, as the listing's: 't-1' is not 'T-1'.
      assert.deepEqual(await everyPage(store, tenant, { subjectPrefix: 't-1' }), []);
      assert.deepEqual(await everyPage(store, tenant, { subject: 'T-3' }), []);
      // The run records carry the subject; a run whose event named none has no subject field.
      const page = await store.runs.listRuns(tenant, {});
      assert.deepEqual(
        page.runs.map((r) => r.subject ?? null),
        ['T-1', null, 'T-2', 'T-1', 'T-10', 'T-1'],
      );
      assert.equal(page.runs.find((r) => r.runId === none)?.subject, undefined);
      assert.equal((await store.runs.getRun(tenant, t2))?.subject, 'T-2');
      // Search combines with the other filters.
      assert.deepEqual(await everyPage(store, tenant, { subject: 'T-1', until: at(6) }), [t1b, t1a]);
      assert.deepEqual(await everyPage(store, tenant, { subject: 'T-1', status: 'completed' }), []);
    });

    test('finds a run by its id or a prefix of it, in its tenant only', async () => {
      const store = current();
      const tenant = `by-id-${count()}`;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++)
        ids.push(await runWithSubject(store, tenant, `S-${i}`, `2026-03-02T00:00:0${i}.000Z`));
      const target = ids[2]!;
      assert.deepEqual(await everyPage(store, tenant, { runId: target }), [target]);
      assert.deepEqual(await everyPage(store, tenant, { runId: target.slice(0, 7 + 12) }), [target]);
      assert.deepEqual(await everyPage(store, `${tenant}-other`, { runId: target }), []);
      assert.deepEqual(await everyPage(store, `${tenant}-other`, { runId: target.slice(0, 15) }), []);
      // An id that starts like none of them finds nothing.
      const absent = `sha256:${target.slice(7, 15) === 'ffffffff' ? '00000000' : 'ffffffff'}`;
      const found = await everyPage(store, tenant, { runId: absent });
      assert.ok(found.every((id) => id.startsWith(absent)));
    });

    test('jumps to a date: the runs just before it, then older ones by the cursor, never a skipped or repeated run', async () => {
      const store = current();
      const tenant = `jump-${count()}`;
      // Eight runs, two per minute with equal creation times in pairs (the run id breaks ties).
      const made: { runId: string; at: string }[] = [];
      for (let i = 0; i < 8; i++) {
        const at = `2026-03-03T10:0${Math.floor(i / 2)}:00.000Z`;
        made.push({ runId: await runWithSubject(store, tenant, `J-${i}`, at), at });
      }
      const newestFirst = [...made]
        .sort((a, b) => (a.at === b.at ? (a.runId < b.runId ? 1 : -1) : a.at < b.at ? 1 : -1))
        .map((r) => r.runId);
      // Jump to 10:02: the runs created before it (10:01 and 10:00), newest first.
      const jumped = await everyPage(store, tenant, { until: '2026-03-03T10:02:00.000Z' }, 1);
      assert.deepEqual(jumped, newestFirst.slice(4));
      const first = await store.runs.listRuns(tenant, { until: '2026-03-03T10:02:00.000Z', limit: 3 });
      assert.deepEqual(
        first.runs.map((r) => r.runId),
        newestFirst.slice(4, 7),
      );
      assert.ok(first.next);
      const rest = await store.runs.listRuns(tenant, {
        until: '2026-03-03T10:02:00.000Z',
        limit: 3,
        cursor: first.next,
      });
      assert.deepEqual(
        rest.runs.map((r) => r.runId),
        newestFirst.slice(7),
      );
      assert.equal(rest.next, undefined);
    });
  });
}
