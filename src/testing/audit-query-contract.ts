/**
 * The ledger's contract for the audit query (queryEntries, countEntries), bound by every adapter
 * through runStoreContract: entries across a tenant's runs, each filter exact (run, workflow, kind,
 * actor, code, since inclusive, until exclusive), held to the reference definitions of
 * core/ledger/entry-actor.ts over a ledger with near misses (a nested `by`, a longer name, another
 * tenant's identical entries); pages in (at, runId, seq) order returning each entry once, also
 * across appends between pages; another tenant's run id matches nothing; a bad cursor is refused;
 * a payload that is not JSON refuses the actor and code filters of its own tenant only.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestBytes } from '../core/canonical/index.ts';
import { chainEntry, ENTRY_VERSION, entryHash, type StoredEntry } from '../core/ledger/index.ts';
import type { EntryFilter, RunEntry, Store } from '../ports/index.ts';
import {
  allowed,
  expected,
  finished,
  ids,
  type Made,
  P,
  pages,
  refused,
  resolved,
  type Step,
  unique,
  writeRun,
} from './audit-query-fixtures.ts';
import { isCode } from './is-code.ts';

export function auditQueryContract(getStore: () => Store): void {
  describe('audit query', () => {
    const made = { tenant: unique('audit'), runIds: [], all: [] } as Made;
    const other = unique('audit-other');
    const start = Date.UTC(2026, 2, 1, 9);
    let theirRun = '';

    const setUp = async () => {
      if (made.all.length > 0) return;
      const store = getStore();
      const runs: [string, number, Step[]][] = [
        [
          'refunds',
          start,
          [
            allowed({ approvedBy: 'dana', args: { by: 'erin' } }),
            resolved('dana'),
            ['run.paused', { by: 'erin', drainPolicy: 'drain-current-node' }],
            ['run.resumed', { by: 'dana' }],
            finished({ status: 'cancelled', outputs: {}, reason: 'cancelled by dana: duplicate' }),
          ],
        ],
        [
          'refunds',
          // Interleaved in time with the first run, and two entries at one instant with it.
          start + 500,
          [
            refused('policy_denied'),
            resolved('danae', 'denied'),
            [
              'step.completed',
              { step: 's', tool: 'noop', proposalId: P, output: { by: 'dana' }, costCents: 0 },
            ],
            finished({ status: 'cancelled', outputs: {}, reason: 'cancelled by danae' }),
          ],
        ],
        [
          'closer',
          start + 1000,
          [
            refused('writ_refused'),
            [
              'step.reconciled',
              { step: 's', tool: 'noop', proposalId: P, happened: true, via: 'operator', by: 'dana' },
            ],
            [
              'approval.simulated',
              {
                step: 's',
                tool: 'wipe',
                proposalId: P,
                args: {},
                costCents: 0,
                reason: 'destructive',
                channel: 'cli',
                assumed: 'approved',
                by: 'shadow',
              },
            ],
            finished({ status: 'refused', outputs: {}, reason: 'nope', code: 'needs_simulation' }),
          ],
        ],
        [
          'closer',
          start + 1000,
          [finished({ status: 'cancelled', outputs: {}, reason: 'cancelled by dana' })],
        ],
      ];
      for (const [workflowId, at, steps] of runs) {
        const entries = await writeRun(store, made.tenant, workflowId, at, steps);
        made.runIds.push(entries[0]!.runId);
        made.all.push(...entries);
      }
      // Another tenant: the same kinds, actors and codes, and its own run id.
      const theirs = await writeRun(store, other, 'refunds', start, runs[0]![2]);
      theirRun = theirs[0]!.runId;
      await writeRun(store, other, 'closer', start + 1000, runs[2]![2]);
    };

    const at = (s: number) => new Date(start + s * 1000).toISOString();
    const filters = (): EntryFilter[] => [
      {},
      { runId: made.runIds[1]! },
      { workflowId: 'closer' },
      { workflowId: 'refund' },
      { kind: 'approval.resolved' },
      { kind: 'run.finished', workflowId: 'refunds' },
      { actor: 'dana' },
      { actor: 'danae' },
      { actor: 'erin' },
      { actor: 'shadow' },
      { actor: 'dan' },
      { actor: 'dana', kind: 'run.finished' },
      { actor: 'dana', runId: made.runIds[0]! },
      { code: 'policy_denied' },
      { code: 'needs_simulation' },
      { code: 'writ_refused', workflowId: 'refunds' },
      { since: at(2), until: at(4) },
      { since: at(2.5) },
      { until: at(0.5) },
      { since: at(1), actor: 'dana', until: at(5) },
    ];

    test('each filter is exact, and all together narrow to their intersection; ordered by (at, runId, seq)', async () => {
      await setUp();
      const store = getStore();
      for (const f of filters()) {
        const want = expected(made.all, f);
        const got = await pages(store, made.tenant, f, 500);
        assert.deepEqual(ids(got), ids(want), JSON.stringify(f));
      }
      // The reference itself is not vacuous: the near misses are there and not matched.
      assert.equal(expected(made.all, { actor: 'dana' }).length, 6);
      assert.equal(expected(made.all, { actor: 'dan' }).length, 0);
      assert.equal(expected(made.all, { actor: 'erin' }).length, 1, 'a `by` nested in args is no actor');
      assert.equal(expected(made.all, { since: at(2), until: at(4) }).length, 7);
    });

    test('items carry the run’s workflow and version and the entry’s stored bytes', async () => {
      await setUp();
      const [first] = (
        await getStore().ledger.queryEntries(made.tenant, { runId: made.runIds[0]!, limit: 1 })
      ).entries;
      const want = made.all[0]!;
      assert.ok(first);
      assert.equal(first.workflowId, 'refunds');
      assert.equal(first.version, 2);
      for (const k of ['runId', 'seq', 'v', 'kind', 'prevHash', 'payloadHash', 'hash', 'at'] as const)
        assert.equal(first[k], want[k], k);
      assert.deepEqual(Buffer.from(first.payload), Buffer.from(want.payload));
    });

    test('pages return each entry once, in order, at any page size', async () => {
      await setUp();
      const store = getStore();
      for (const f of [{}, { actor: 'dana' }, { workflowId: 'refunds', since: at(1) }] as EntryFilter[])
        for (const limit of [1, 2, 3, 7]) {
          const got = await pages(store, made.tenant, f, limit);
          assert.deepEqual(ids(got), ids(expected(made.all, f)), `${JSON.stringify(f)} by ${limit}`);
        }
      const first = await store.ledger.queryEntries(made.tenant, {});
      assert.equal(first.entries.length, made.all.length, 'the default page (100) holds them all');
      assert.equal(first.next, undefined);
    });

    test('counts by kind with the same filters', async () => {
      await setUp();
      const store = getStore();
      for (const f of filters()) {
        const want: Record<string, number> = {};
        for (const e of expected(made.all, f)) want[e.kind] = (want[e.kind] ?? 0) + 1;
        assert.deepEqual(await store.ledger.countEntries(made.tenant, f), want, JSON.stringify(f));
      }
    });

    test('another tenant’s entries never appear, not even by its run id', async () => {
      await setUp();
      const store = getStore();
      const everything = await pages(store, made.tenant, {}, 500);
      assert.ok(everything.every((e) => made.runIds.includes(e.runId)));
      assert.deepEqual((await store.ledger.queryEntries(made.tenant, { runId: theirRun })).entries, []);
      assert.deepEqual(await store.ledger.countEntries(made.tenant, { runId: theirRun }), {});
      assert.deepEqual((await store.ledger.queryEntries(unique('nobody'), { actor: 'dana' })).entries, []);
      assert.deepEqual(await store.ledger.countEntries(unique('nobody'), {}), {});
      // Theirs are there for them, and only theirs.
      const mine = await pages(store, other, { actor: 'dana' }, 500);
      assert.equal(mine.length, 5);
      assert.ok(mine.every((e) => !made.runIds.includes(e.runId)));
    });

    test('a page goes on after its last entry: entries appended meanwhile at later times come once, on later pages', async () => {
      const store = getStore();
      const tenant = unique('audit-live');
      const first = await writeRun(store, tenant, 'refunds', start, [resolved('dana'), resolved('dana')]);
      const page1 = await store.ledger.queryEntries(tenant, { limit: 2 });
      assert.deepEqual(ids(page1.entries), ids(first.slice(0, 2)));
      assert.ok(page1.next);
      // Appended between pages: a new run later in time, and more entries of the first run.
      const later = await writeRun(store, tenant, 'refunds', start + 10_000, [resolved('dana')]);
      const head = first.at(-1)!;
      const more = chainEntry(
        head.runId,
        { seq: head.seq, hash: head.hash },
        'run.resumed',
        { by: 'dana' },
        at(20),
      ).stored;
      await store.ledger.append({
        tenant,
        runId: head.runId,
        expectedHead: { seq: head.seq, hash: head.hash },
        entries: [more],
        status: 'running',
      });
      const rest: RunEntry[] = [];
      for (let cursor: string | undefined = page1.next; cursor; ) {
        const page = await store.ledger.queryEntries(tenant, { limit: 2, cursor });
        rest.push(...page.entries);
        cursor = page.next;
      }
      assert.deepEqual(ids(rest), [...ids(first.slice(2)), ...ids(later), `${head.runId}#${more.seq}`]);
    });

    test('a payload that is not JSON refuses its tenant’s actor and code filters, and no other tenant’s', async () => {
      await setUp();
      const store = getStore();
      const tenant = unique('audit-broken');
      const [root] = await writeRun(store, tenant, 'refunds', start, []);
      // A run.finished entry: both filters read its payload.
      const bytes = Buffer.from('{"code":"x","status":"cancelled","reason":', 'utf8');
      const envelope = {
        v: ENTRY_VERSION,
        runId: root!.runId,
        seq: 1,
        kind: 'run.finished' as const,
        prevHash: root!.hash,
        payloadHash: digestBytes(bytes),
        at: at(1),
      };
      const broken: StoredEntry = { ...envelope, hash: entryHash(envelope), payload: bytes };
      await store.ledger.append({
        tenant,
        runId: root!.runId,
        expectedHead: { seq: 0, hash: root!.hash },
        entries: [broken],
        status: 'running',
      });
      for (const f of [{ actor: 'dana' }, { code: 'policy_denied' }] as EntryFilter[]) {
        await assert.rejects(
          store.ledger.queryEntries(tenant, f),
          isCode('ledger_invalid'),
          JSON.stringify(f),
        );
        await assert.rejects(
          store.ledger.countEntries(tenant, f),
          isCode('ledger_invalid'),
          JSON.stringify(f),
        );
      }
      // Unfiltered by payload, it is listed as stored; other tenants never read it.
      const listed = (await store.ledger.queryEntries(tenant, {})).entries;
      assert.deepEqual(Buffer.from(listed[1]!.payload), bytes);
      assert.deepEqual(await store.ledger.countEntries(tenant, {}), { 'run.started': 1, 'run.finished': 1 });
      const mine = await pages(store, made.tenant, { actor: 'dana' }, 500);
      assert.deepEqual(ids(mine), ids(expected(made.all, { actor: 'dana' })));
    });

    test('a cursor no page returned is refused as a usage error naming cursor', async () => {
      const store = getStore();
      const runsCursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'x'])).toString('base64url');
      for (const cursor of ['garbage', '', runsCursor, Buffer.from('["e","a","b",-1]').toString('base64url')])
        await assert.rejects(
          store.ledger.queryEntries('t1', { cursor }),
          (e: unknown) =>
            isCode('usage')(e) && (e as { details: { field: string } }).details.field === 'cursor',
          JSON.stringify(cursor),
        );
    });
  });
}
