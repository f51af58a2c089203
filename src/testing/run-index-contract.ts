import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hashOf } from '../core/canonical/index.ts';
import type { PendingApproval, Store } from '../ports/index.ts';
import { count, createRequest, rootAt, SPEC, uniqueRunId, versionRecord } from './contract-fixtures.ts';
import { isCode } from './is-code.ts';
import { buildLedger, extendLedger } from './ledger-fixtures.ts';
import { decidedRun, run, unique } from './lifecycle-fixtures.ts';

export function runIndexContract(current: () => Store): void {
  describe('run index', () => {
    test('opens and closes pending approvals with the entries that cause them', async () => {
      const store = current();
      const runId = uniqueRunId('approval');
      const ledger = buildLedger(runId, 1);
      const proposalId = hashOf({ runId, p: 1 });
      const approval: PendingApproval = {
        tenant: 't1',
        runId,
        proposalId,
        step: 'close',
        tool: 'close_ticket',
        args: { ticket_id: 'T-1' },
        reason: 'destructive',
        channel: 'cli',
        requestedAt: '2026-01-01T00:00:00.000Z',
      };
      await store.ledger.append({
        ...createRequest('t1', ledger),
        status: 'waiting_approval',
        openApproval: approval,
      });
      assert.deepEqual(await store.runs.listPendingApprovals('t1', runId), [approval]);
      assert.ok((await store.runs.listPendingApprovals('t1')).some((a) => a.runId === runId));
      assert.deepEqual(await store.runs.listPendingApprovals('t2'), []);
      // A stale append that would close it changes nothing.
      await assert.rejects(
        store.ledger.append({
          tenant: 't1',
          runId,
          expectedHead: { seq: 1, hash: ledger[1]!.hash },
          entries: extendLedger(runId, ledger[1]!, 1),
          status: 'running',
          closeApproval: proposalId,
        }),
      );
      assert.equal((await store.runs.listPendingApprovals('t1', runId)).length, 1);
      await store.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: { seq: 2, hash: ledger[2]!.hash },
        entries: extendLedger(runId, ledger[2]!, 1),
        status: 'running',
        closeApproval: proposalId,
      });
      assert.deepEqual(await store.runs.listPendingApprovals('t1', runId), []);
    });

    test('lists runs newest first with filters and a cursor', async () => {
      const store = current();
      const tenant = `list-${count()}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const runId = uniqueRunId('list');
        ids.push(runId);
        const entries = buildLedger(runId, 0, tenant).map((e) => e);
        await store.ledger.append({
          ...createRequest(tenant, entries),
          status: i % 2 === 0 ? 'completed' : 'refused',
        });
      }
      const page1 = await store.runs.listRuns(tenant, { limit: 2 });
      assert.equal(page1.runs.length, 2);
      assert.ok(page1.next);
      const page2 = await store.runs.listRuns(tenant, { limit: 2, cursor: page1.next });
      const page3 = await store.runs.listRuns(tenant, { limit: 2, cursor: page2.next });
      const all = [...page1.runs, ...page2.runs, ...page3.runs].map((r) => r.runId);
      assert.equal(new Set(all).size, 5);
      assert.equal(page3.next, undefined);
      assert.equal((await store.runs.listRuns(tenant, { status: 'refused' })).runs.length, 2);
      assert.equal((await store.runs.listRuns(tenant, { workflowId: 'nope' })).runs.length, 0);
      await assert.rejects(store.runs.listRuns(tenant, { cursor: 'garbage' }), isCode('usage'));
    });

    test('orders runs by (createdAt, runId) descending and versions by workflow id, in byte order', async () => {
      const store = current();
      const tenant = `order-${count()}`;
      const n = count();
      const runs = [
        ['2026-01-01T00:00:01.000Z', `run-B-${n}`],
        ['2026-01-01T00:00:01.000Z', `run-a-${n}`],
        ['2026-01-01T00:00:02.000Z', `run-Z-${n}`],
        ['2026-01-01T00:00:00.000Z', `run-b-${n}`],
      ] as const;
      for (const [at, runId] of runs)
        await store.ledger.append(createRequest(tenant, [rootAt(runId, tenant, at)]));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.runs.listRuns(tenant, { limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(...page.runs.map((r) => r.runId));
        cursor = page.next;
      } while (cursor);
      // Byte order puts 'a' (0x61) after 'B' (0x42), whatever a database's locale would say.
      assert.deepEqual(seen, [`run-Z-${n}`, `run-a-${n}`, `run-B-${n}`, `run-b-${n}`]);
      await store.registry.putVersion(versionRecord(tenant, 1, { ...SPEC, id: 'alpha' }));
      await store.registry.putVersion(versionRecord(tenant, 1, { ...SPEC, id: 'Zed' }));
      assert.deepEqual(
        (await store.registry.listVersions(tenant)).map((v) => v.workflowId),
        ['Zed', 'alpha'],
      );
    });

    test('filters runs by version and creation time (since inclusive, until exclusive), paging within the filter', async () => {
      const store = current();
      const tenant = `range-${count()}`;
      const n = count();
      // Five runs a second apart, v1 and v2 alternating; one more of another workflow.
      const made: { runId: string; at: string; version: number }[] = [];
      for (let i = 0; i < 5; i++) {
        const runId = `run-${i}-${n}`;
        const at = `2026-02-01T00:00:0${i}.000Z`;
        const version = (i % 2) + 1;
        const req = createRequest(tenant, [rootAt(runId, tenant, at)]);
        await store.ledger.append({ ...req, create: { ...req.create!, version } });
        made.push({ runId, at, version });
      }
      const other = createRequest(tenant, [rootAt(`other-${n}`, tenant, '2026-02-01T00:00:02.500Z')]);
      await store.ledger.append({ ...other, create: { ...other.create!, workflowId: 'other', version: 2 } });
      const all = async (f: Parameters<Store['runs']['listRuns']>[1]) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.runs.listRuns(tenant, { ...f, limit: 1, ...(cursor ? { cursor } : {}) });
          assert.ok(page.runs.length <= 1);
          seen.push(...page.runs.map((r) => r.runId));
          cursor = page.next;
        } while (cursor);
        return seen;
      };
      const ids = (...i: number[]) => i.map((k) => made[k]!.runId);
      assert.deepEqual(await all({ since: made[1]!.at, until: made[4]!.at, workflowId: 'wf' }), ids(3, 2, 1));
      assert.deepEqual(await all({ since: made[1]!.at, until: made[4]!.at }), [
        made[3]!.runId,
        `other-${n}`,
        made[2]!.runId,
        made[1]!.runId,
      ]);
      assert.deepEqual(await all({ workflowId: 'wf', version: 2 }), ids(3, 1));
      assert.deepEqual(await all({ version: 2, since: '2026-02-01T00:00:02.000Z' }), [
        made[3]!.runId,
        `other-${n}`,
      ]);
      assert.deepEqual(await all({ until: made[0]!.at }), [], 'until is exclusive');
      assert.deepEqual(await all({ since: '2026-02-01T00:00:04.001Z' }), []);
      // A page of the filter holds the filter's runs only, and `next` goes on within it.
      const first = await store.runs.listRuns(tenant, { workflowId: 'wf', version: 1, limit: 2 });
      assert.deepEqual(
        first.runs.map((r) => r.runId),
        ids(4, 2),
      );
      const second = await store.runs.listRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        limit: 2,
        ...(first.next ? { cursor: first.next } : {}),
      });
      assert.deepEqual(
        second.runs.map((r) => r.runId),
        ids(0),
      );
      assert.equal(second.next, undefined);
      assert.deepEqual(await store.runs.countRuns(tenant, { since: made[1]!.at, until: made[4]!.at }), {
        running: 4,
      });
      assert.deepEqual(await store.runs.countRuns(tenant, { version: 2 }), { running: 3 });
      assert.deepEqual(await store.runs.countRuns(`${tenant}-nobody`, {}), {});
    });

    test('tallyLiveRuns counts every live run of a version in a window and every decision in them, however many', async () => {
      const store = current();
      const tenant = unique('t');
      const at = (s: number) =>
        `2026-01-01T00:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
      // 10 runs a person denied, then 100 approved ones: all in the window, all counted.
      const denied: string[] = [];
      for (let i = 0; i < 10; i++)
        denied.push(await decidedRun(store, tenant, { at: at(10 + i), decisions: ['denied'] }));
      const approved: string[] = [];
      for (let i = 0; i < 100; i++)
        approved.push(
          await decidedRun(store, tenant, { at: at(100 + i), decisions: ['approved', 'approved'] }),
        );
      // None of these counts: before the window, another version, another tenant, a fork, a re-run,
      // a run started while the version was a DRAFT, a shadow, a test, one still running.
      await decidedRun(store, tenant, { at: at(1), decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(300), version: 2, decisions: ['denied'] });
      await decidedRun(store, unique('other'), { at: at(300), decisions: ['denied'] });
      const forkOf = { runId: denied[0]!, fromSeq: 1, mode: 'branch' };
      await decidedRun(store, tenant, { at: at(301), root: { forkOf }, decisions: ['denied'] });
      await decidedRun(store, tenant, {
        at: at(302),
        root: { attemptOf: denied[0], attempt: 2 },
        decisions: ['denied'],
      });
      await decidedRun(store, tenant, { at: at(303), root: { status: 'DRAFT' }, decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(304), mode: 'shadow', decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(305), mode: 'test', decisions: ['denied'] });
      await decidedRun(store, tenant, { at: at(306), status: 'running' });
      const autonomous = await decidedRun(store, tenant, { at: at(307), root: { status: 'AUTONOMOUS' } });
      const tally = await store.runs.tallyLiveRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        since: at(5),
        examples: 3,
      });
      assert.deepEqual(
        { ...tally, runIds: tally.runIds.length },
        {
          runs: 111,
          approved: 200,
          denied: 10,
          runIds: 3,
          deniedRunIds: [denied[9], denied[8], denied[7]],
        },
      );
      assert.deepEqual(tally.runIds, [autonomous, approved[99], approved[98]], 'newest first');
      const none = await store.runs.tallyLiveRuns(tenant, {
        workflowId: 'wf',
        version: 1,
        since: at(400),
        examples: 3,
      });
      assert.deepEqual(none, { runs: 0, approved: 0, denied: 0, runIds: [], deniedRunIds: [] });
    });

    test('runs carry their mode; counts and listings filter by mode, version and time', async () => {
      const store = current();
      const tenant = unique('t');
      const live = await run(store, tenant, { at: '2026-01-01T00:00:01.000Z', status: 'completed' });
      await run(store, tenant, { at: '2026-01-01T00:00:02.000Z', status: 'failed' });
      await run(store, tenant, { at: '2026-01-01T00:00:03.000Z', version: 2, status: 'completed' });
      const shadow = await run(store, tenant, {
        at: '2026-01-01T00:00:04.000Z',
        version: 2,
        mode: 'shadow',
        shadowOf: live,
      });
      await run(store, tenant, { at: '2026-01-01T00:00:05.000Z', mode: 'test', status: 'completed' });
      const row = await store.runs.getRun(tenant, shadow);
      assert.deepEqual([row?.mode, row?.shadowOf], ['shadow', live]);
      assert.equal((await store.runs.getRun(tenant, live))?.mode, undefined);
      assert.deepEqual(await store.runs.countRuns(tenant, { workflowId: 'wf', version: 1, mode: 'live' }), {
        completed: 1,
        failed: 1,
      });
      assert.deepEqual(await store.runs.countRuns(tenant, { workflowId: 'wf', mode: 'shadow' }), {
        running: 1,
      });
      assert.deepEqual(
        await store.runs.countRuns(tenant, {
          workflowId: 'wf',
          mode: 'live',
          since: '2026-01-01T00:00:02.000Z',
        }),
        { completed: 1, failed: 1 },
      );
      const tests = await store.runs.listRuns(tenant, { mode: 'test' });
      assert.deepEqual(
        tests.runs.map((r) => r.mode),
        ['test'],
      );
      assert.equal((await store.runs.listRuns(tenant, { mode: 'live' })).runs.length, 3);
      assert.equal((await store.runs.listRuns(tenant, { workflowId: 'wf', version: 2 })).runs.length, 2);
    });
  });
}
