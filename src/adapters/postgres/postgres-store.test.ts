import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { hashOf } from '../../core/canonical/index.ts';
import { isKeelError } from '../../core/errors.ts';
import { type StoredEntry, verifyLedger } from '../../core/ledger/index.ts';
import type { AppendRequest } from '../../ports/index.ts';
import { blobRun, buildLedger, extendLedger, LARGE_ANSWER, runStoreContract } from '../../testing/index.ts';
import { PostgresStore } from './postgres-store.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schemas: string[] = [];
const fresh = (label: string) => {
  const s = scratchSchemaName(`keel_test_${label}`);
  schemas.push(s);
  return s;
};
after(async () => {
  for (const s of schemas) await dropSchema(url, s);
});

const contractSchema = scratchSchemaName();
runStoreContract('postgres', {
  open: () => openScratchStore(url, contractSchema),
  openAnother: () => openScratchStore(url, contractSchema),
  cleanup: () => dropSchema(url, contractSchema),
});

const create = (runId: string, steps: number, tenant = 't1'): AppendRequest => ({
  tenant,
  runId,
  expectedHead: null,
  entries: buildLedger(runId, steps, tenant),
  status: 'completed',
  create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
});
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;

test('group commit: 20 appends issued together share one transaction; a stale head among them fails alone', async () => {
  const store = await openScratchStore(url, fresh('group'));
  try {
    const staleId = hashOf('stale');
    const staleLedger = buildLedger(staleId, 1);
    await store.ledger.append({ ...create(staleId, 0), entries: staleLedger.slice(0, 1) });
    const before = store.stats();
    const results = await Promise.allSettled([
      ...Array.from({ length: 19 }, (_, i) => store.ledger.append(create(hashOf({ group: i }), 1))),
      store.ledger.append({
        tenant: 't1',
        runId: staleId,
        expectedHead: { seq: 0, hash: hashOf('not the head') },
        entries: extendLedger(staleId, { ...staleLedger[0]!, hash: hashOf('not the head') }, 1),
        status: 'running',
      }),
    ]);
    assert.equal(store.stats().commits - before.commits, 1);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 19);
    assert.ok(isCode('head_conflict')((results[19] as PromiseRejectedResult).reason));
    assert.equal(store.stats().entriesAppended - before.entriesAppended, 19 * 3);
    assert.equal((await store.runs.listRuns('t1', { limit: 100 })).runs.length, 20);
    assert.equal((await store.ledger.readEntries('t1', staleId)).length, 1);
  } finally {
    await store.close();
  }
});

test('a group whose statement fails is rewritten with a savepoint per append, still one commit', async () => {
  const store = await openScratchStore(url, fresh('savepoint'));
  try {
    const runId = hashOf('approval-twice');
    const ledger = buildLedger(runId, 0);
    const approval = {
      tenant: 't1',
      runId,
      proposalId: hashOf('p'),
      step: 's',
      tool: 'noop',
      args: {},
      reason: 'destructive',
      channel: 'cli',
      requestedAt: '2026-01-01T00:00:00.000Z',
    };
    await store.ledger.append({
      ...create(runId, 0),
      entries: ledger,
      status: 'waiting_approval',
      openApproval: approval,
    });
    const before = store.stats().commits;
    const results = await Promise.allSettled([
      store.ledger.append(create(hashOf('before'), 1)),
      store.ledger.append({
        tenant: 't1',
        runId,
        expectedHead: { seq: 0, hash: ledger[0]!.hash },
        entries: extendLedger(runId, ledger[0]!, 1),
        status: 'waiting_approval',
        openApproval: approval,
      }),
      store.ledger.append(create(hashOf('after'), 1)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const refused = (results[1] as PromiseRejectedResult).reason;
    assert.ok(
      isCode('internal')(refused) && /violates approvals_pkey/.test(refused.message),
      String(refused),
    );
    assert.equal(store.stats().commits - before, 1);
    assert.equal((await store.runs.getRun('t1', runId))?.head.seq, 0);
  } finally {
    await store.close();
  }
});

test('under concurrent load, appends of many runs share commits and every ledger verifies', async () => {
  const store = await openScratchStore(url, fresh('load'));
  try {
    const before = store.stats().commits;
    const runs = Array.from({ length: 40 }, (_, i) => hashOf({ load: i }));
    let appends = 0;
    await Promise.all(
      runs.map(async (runId) => {
        const ledger = buildLedger(runId, 4);
        let head = await store.ledger.append({
          ...create(runId, 0),
          entries: ledger.slice(0, 1),
          status: 'running',
        });
        appends++;
        for (let i = 1; i < ledger.length; i += 2) {
          head = await store.ledger.append({
            tenant: 't1',
            runId,
            expectedHead: head,
            entries: ledger.slice(i, i + 2),
            status: i + 2 >= ledger.length ? 'completed' : 'running',
          });
          appends++;
        }
      }),
    );
    const commits = store.stats().commits - before;
    assert.equal(appends, 40 * 5);
    assert.ok(commits <= appends / 4, `${commits} commits for ${appends} appends`);
    for (const runId of runs) {
      const run = await store.runs.getRun('t1', runId);
      assert.equal(run?.status, 'completed');
      assert.equal(verifyLedger(runId, await store.ledger.readEntries('t1', runId), run!.head).ok, true);
    }
  } finally {
    await store.close();
  }
});

/** Deadlocks PostgreSQL has counted in the test database (pg_stat_database). */
async function deadlocks(): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(
      'SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

/** Deadlocks counted since `before`, read again until the backends' statistics are flushed (3 s). */
async function deadlocksSince(before: number): Promise<number> {
  for (let i = 0; ; i++) {
    const n = (await deadlocks()) - before;
    if (n > 0 || i >= 6) return n;
    await new Promise((r) => setTimeout(r, 500));
  }
}

test('two stores appending to the same runs in opposite orders never deadlock: each run has one winner', async () => {
  const schema = fresh('order');
  const [a, b] = [await openScratchStore(url, schema), await openScratchStore(url, schema)];
  try {
    for (let round = 0; round < 3; round++) {
      const runs = Array.from({ length: 300 }, (_, i) => hashOf({ order: i, round }));
      const ledgers = runs.map((runId) => buildLedger(runId, 1));
      await Promise.all(
        ledgers.map((l, i) => a.ledger.append({ ...create(runs[i]!, 0), entries: l.slice(0, 1) })),
      );
      const advance = (store: typeof a, i: number, entries: StoredEntry[]) =>
        store.ledger.append({
          tenant: 't1',
          runId: runs[i]!,
          expectedHead: { seq: 0, hash: ledgers[i]![0]!.hash },
          entries,
          status: 'running',
        });
      const before = await deadlocks();
      const t0 = performance.now();
      const results = await Promise.allSettled([
        ...runs.map((_, i) => advance(a, i, ledgers[i]!.slice(1, 2))),
        ...[...runs.keys()].reverse().map((i) => advance(b, i, extendLedger(runs[i]!, ledgers[i]![0]!, 1))),
      ]);
      const elapsed = performance.now() - t0;
      const failures = results
        .filter((r) => r.status === 'rejected')
        .map((r) => (r as PromiseRejectedResult).reason);
      assert.equal(failures.length, runs.length);
      assert.ok(
        failures.every(isCode('head_conflict')),
        String(failures.find((f) => !isCode('head_conflict')(f))),
      );
      // A deadlock costs PostgreSQL's deadlock_timeout (1 s) before one side is aborted: a round
      // under 900 ms had none. A slower one (a loaded machine) is judged by the database's own
      // count of deadlocks, once its statistics are flushed (each backend at most once a second).
      if (elapsed >= 900)
        assert.equal(await deadlocksSince(before), 0, `round ${round} took ${Math.round(elapsed)} ms`);
      for (const runId of runs) assert.equal((await b.runs.getRun('t1', runId))?.head.seq, 1);
    }
  } finally {
    await a.close();
    await b.close();
  }
});

test('a closed store refuses appends and closing twice is harmless', async () => {
  const store = await openScratchStore(url, fresh('closed'));
  const pending = store.ledger.append(create(hashOf('in-flight at close'), 1));
  await store.close();
  assert.equal((await pending).seq, 2, 'an append issued before close is written');
  await assert.rejects(store.ledger.append(create(hashOf('late'), 0)), isCode('store_unavailable'));
  await store.close();
});

test('entries survive closing and reopening, and verify', async () => {
  const schema = fresh('reopen');
  const runId = hashOf('reopen');
  const a = await openScratchStore(url, schema);
  await a.ledger.append(create(runId, 3));
  await a.close();
  const b = await openScratchStore(url, schema);
  try {
    const run = await b.runs.getRun('t1', runId);
    assert.equal(run?.head.seq, 6);
    const r = verifyLedger(runId, await b.ledger.readEntries('t1', runId), run!.head);
    assert.equal(r.ok, true);
  } finally {
    await b.close();
  }
});

test('two stores on one schema cannot both append at one seq', async () => {
  const schema = fresh('two');
  const [a, b] = [await openScratchStore(url, schema), await openScratchStore(url, schema)];
  try {
    for (let round = 0; round < 10; round++) {
      const runId = hashOf({ two: round });
      const ledger = buildLedger(runId, 1);
      await a.ledger.append({ ...create(runId, 0), entries: ledger.slice(0, 1), status: 'running' });
      const head = { seq: 0, hash: ledger[0]!.hash };
      const mine = extendLedger(runId, ledger[0]!, 1);
      const results = await Promise.allSettled([
        a.ledger.append({
          tenant: 't1',
          runId,
          expectedHead: head,
          entries: ledger.slice(1, 2),
          status: 'running',
        }),
        b.ledger.append({ tenant: 't1', runId, expectedHead: head, entries: mine, status: 'running' }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.ok(isCode('head_conflict')(lost.reason), String(lost.reason));
      assert.deepEqual(
        (await b.ledger.readEntries('t1', runId)).map((e) => e.seq),
        [0, 1],
      );
    }
  } finally {
    await a.close();
    await b.close();
  }
});

test('with ?notify=off nothing is NOTIFYed: appends and releases work, workers and event streams rely on their poll', async () => {
  const schema = fresh('quiet');
  const quiet = await PostgresStore.open(`${url}?schema=${schema}&notify=off`);
  const listener = new pg.Client({ connectionString: url });
  const heard: string[] = [];
  await listener.connect();
  listener.on('notification', (m) => heard.push(m.payload ?? ''));
  await listener.query('LISTEN keel_runs');
  await listener.query('LISTEN keel_appends');
  try {
    let woken = 0;
    let appended = 0;
    const stop = await quiet.queue.onRunnable(() => woken++);
    const stopAppends = await quiet.ledger.onAppended(() => appended++);
    const runId = hashOf('quiet');
    await quiet.ledger.append({ ...create(runId, 0), status: 'running', lease: { op: 'release' } });
    const [claimed] = await quiet.queue.claimRuns('w1', 1000, 10, Date.now());
    assert.equal(claimed?.runId, runId);
    assert.equal(await quiet.queue.releaseRun('w1', runId), true);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      heard.filter((p) => p === schema || p.startsWith(`${schema} `)),
      [],
    );
    assert.equal(woken, 0);
    assert.equal(appended, 0);
    await stop();
    await stopAppends();
    await assert.rejects(PostgresStore.open(`${url}?schema=${schema}&notify=maybe`), isCode('usage'));
  } finally {
    await listener.end();
    await quiet.close();
  }
});

test('runs carrying the same 100 KiB model answer store it once per tenant', async () => {
  const schema = fresh('blobs');
  const store = await openScratchStore(url, schema);
  try {
    const runs = Array.from(
      { length: 200 },
      (_, i) => [i % 2 ? 't1' : 't2', blobRun(i % 2 ? 't1' : 't2', `pg-${i}`)] as const,
    );
    await Promise.all(
      runs.map(([tenant, entries]) =>
        store.ledger.append({
          tenant,
          runId: entries[0]!.runId,
          expectedHead: null,
          entries,
          status: 'completed',
          create: { workflowId: 'wf', version: 1, specHash: hashOf('spec'), eventId: 'e', eventType: 't' },
        }),
      ),
    );
    const [tenant, last] = runs[199]!;
    assert.equal(
      verifyLedger(last[0]!.runId, await store.ledger.readEntries(tenant, last[0]!.runId)).ok,
      true,
    );
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const blobs = await c.query(`SELECT tenant, length(bytes) AS n FROM ${schema}.blobs ORDER BY tenant`);
      assert.deepEqual(
        blobs.rows.map((r) => r.tenant),
        ['t1', 't2'],
        'once per tenant',
      );
      assert.ok(blobs.rows.every((r) => Number(r.n) > LARGE_ANSWER.length));
      assert.equal(Number((await c.query(`SELECT count(*) FROM ${schema}.run_blobs`)).rows[0].count), 200);
    } finally {
      await c.end();
    }
  } finally {
    await store.close();
  }
});
