/**
 * Nothing acts on a run that does not verify, and `verify` sees what sits beside the ledger: a
 * real SQLite file tampered with through a second connection (as an attacker with the file would),
 * then acted on through the library. Each case checks the refusal names the failure and that the
 * tool was never called; the rows a person is shown (pending approvals) come from the ledger.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createKeel, type Keel } from '../../src/app/index.ts';
import type { Digest } from '../../src/core/canonical/index.ts';
import { isKeelError, KeelError } from '../../src/core/errors.ts';
import { chainEntry, type EntryKind, type StoredEntry } from '../../src/core/ledger/index.ts';
import { type Store, withPorts } from '../../src/ports/index.ts';
import { deploy, isCode, type SpyTool, spyTool } from '../../src/testing/index.ts';
import { Sandbox } from '../helpers/keel-cli.ts';
import {
  type EntryRow,
  entryRows,
  putEntryRow,
  runRow,
  setRunHead,
  withDb,
} from '../helpers/sqlite-files.ts';

const SPEC = `id: close
version: 1
status: LIVE
triggers: [{ event: go }]
steps:
  - { name: reply, tool: reply, args: { ticket: "{{event.subject}}" } }
  - { name: close, tool: close, args: { ticket: "{{event.subject}}", reason: "resolved" } }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;

const sandboxes: Sandbox[] = [];
after(() => {
  for (const s of sandboxes) s.remove();
});

let n = 0;
const go = (subject = 'T-1') => ({
  id: `e${n++}`,
  type: 'go',
  time: '2026-01-01T00:00:00Z',
  subject,
  payload: {},
});

/** A store file with one run waiting for the approval of its destructive `close` step. */
async function waiting(): Promise<{ keel: Keel; store: string; close: SpyTool; runId: string }> {
  const sandbox = new Sandbox('act-verified');
  sandboxes.push(sandbox);
  const store = sandbox.store();
  const close = spyTool('close', { destructive: true, idempotent: false });
  const keel = createKeel({ store, tools: [spyTool('reply'), close] });
  await deploy(keel, 'acme', SPEC);
  const [run] = (await keel.events.emit('acme', go())).runs;
  assert.equal(run?.status, 'waiting_approval');
  return { keel, store, close, runId: run!.runId };
}

/** Rewrites one entry's payload bytes in place (its hashes left as they were). */
function editPayload(store: string, runId: string, seq: number, edit: (p: string) => string): EntryRow {
  const row = entryRows(store, runId)[seq]!;
  putEntryRow(store, { ...row, payload: Buffer.from(edit(row.payload.toString())) });
  return row;
}

const sql = (store: string, text: string, ...params: unknown[]) =>
  withDb(store, (db) => db.prepare(text).run(...params));

test('approve refuses an edited ledger: the approver was never shown it, and the tool never runs', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    const seq = (await keel.runs.entries('acme', runId)).findIndex((e) => e.kind === 'approval.requested');
    editPayload(store, runId, seq, (p) => p.replace('"resolved"', '"refund everything"'));
    await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
      assert.deepEqual([e.details.code, e.details.seq], ['hash_mismatch', seq]);
      return true;
    });
    await assert.rejects(keel.approvals.deny('acme', runId, 'dana'), isCode('ledger_invalid'));
    await assert.rejects(keel.runs.cancel('acme', runId, { by: 'dana' }), isCode('ledger_invalid'));
    await assert.rejects(
      keel.runs.fork('acme', runId, { fromSeq: 1, mode: 'branch' }),
      isCode('ledger_invalid'),
    );
    await assert.rejects(keel.runs.rerun('acme', runId), isCode('ledger_invalid'));
    await assert.rejects(keel.runs.recover('acme', runId), isCode('ledger_invalid'));
    assert.equal(close.calls.length, 0);
    const [listed] = await keel.approvals.list('acme');
    assert.equal(listed?.invalid?.code, 'hash_mismatch', 'the approver is told, not shown the row');
    assert.equal((await keel.runs.list('acme')).runs.length, 1, 'no fork or rerun was created');
  } finally {
    await keel.close();
  }
});

test('replay and fork of an edited ledger are refused, never reported identical or laundered', async () => {
  const { keel, store, runId } = await waiting();
  try {
    await keel.approvals.approve('acme', runId, 'dana');
    assert.equal((await keel.runs.replay('acme', runId)).identical, true);
    // The edit changes a recorded output: a replay serving it would regenerate it faithfully.
    const seq = (await keel.runs.entries('acme', runId)).findIndex((e) => e.kind === 'step.completed');
    editPayload(store, runId, seq, (p) => p.replace('"T-1"', '"T-9"'));
    await assert.rejects(keel.runs.replay('acme', runId), isCode('ledger_invalid'));
    await assert.rejects(
      keel.runs.fork('acme', runId, { fromSeq: seq + 1, mode: 'replay' }),
      isCode('ledger_invalid'),
    );
    assert.equal((await keel.runs.list('acme')).runs.length, 1);
  } finally {
    await keel.close();
  }
});

test('a row whose head disagrees with its ledger is refused at once, not retried at full CPU', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    const rows = entryRows(store, runId);
    setRunHead(store, runId, { seq: rows.length - 2, hash: rows.at(-2)!.hash });
    await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), (e: unknown) => {
      assert.ok(
        isKeelError(e) && e.code === 'ledger_invalid' && e.details.code === 'head_mismatch',
        String(e),
      );
      return true;
    });
    assert.equal(close.calls.length, 0);
  } finally {
    await keel.close();
  }
});

test('retries on a moving head are bounded and end in a typed error', async () => {
  const { keel, store, runId } = await waiting();
  await keel.close();
  let appends = 0;
  const real = createKeel({ store }).store;
  // The real store, except that every append meets a head another writer just moved.
  const moving: Store = withPorts(real, {
    ledger: Object.create(real.ledger, {
      append: {
        value: async () => {
          appends++;
          throw new KeelError('head_conflict', 'another writer moved the head');
        },
      },
    }),
  });
  const racing = createKeel({
    store: moving,
    tools: [spyTool('reply'), spyTool('close', { destructive: true })],
  });
  try {
    await assert.rejects(racing.approvals.approve('acme', runId, 'dana'), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'head_conflict' && /kept changing/.test(e.message), String(e));
      return true;
    });
    assert.equal(appends, 6, 'the first try and 5 retries');
  } finally {
    await racing.close();
  }
});

test('verify names the run row column that disagrees with the root, and a run moved to another tenant', async () => {
  const { keel, store, runId } = await waiting();
  try {
    for (const [column, value] of [
      ['workflow_id', 'other'],
      ['version', 2],
      ['spec_hash', `sha256:${'1'.repeat(64)}`],
      ['event_id', 'e-forged'],
      ['event_type', 'forged'],
    ] as const) {
      const before = withDb(store, (db) =>
        db.prepare(`SELECT ${column} AS v FROM runs WHERE run_id = ?`).get(runId),
      ) as { v: unknown };
      sql(store, `UPDATE runs SET ${column} = ? WHERE run_id = ?`, value, runId);
      const v = await keel.runs.verify('acme', runId);
      assert.ok(
        !v.ok && v.failure.code === 'row_mismatch' && v.failure.message.includes(column),
        JSON.stringify(v),
      );
      await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), isCode('ledger_invalid'));
      sql(store, `UPDATE runs SET ${column} = ? WHERE run_id = ?`, before.v, runId);
    }
    assert.equal((await keel.runs.verify('acme', runId)).ok, true, 'restored');
    // The whole run, rows and entries, moved into another tenant: it verifies there no more.
    sql(store, "UPDATE runs SET tenant = 'globex' WHERE run_id = ?", runId);
    sql(store, "UPDATE approvals SET tenant = 'globex' WHERE run_id = ?", runId);
    const moved = await keel.runs.verify('globex', runId);
    assert.ok(!moved.ok && moved.failure.code === 'row_mismatch' && /tenant/.test(moved.failure.message));
    await assert.rejects(keel.approvals.approve('globex', runId, 'mallory'), isCode('ledger_invalid'));
  } finally {
    await keel.close();
  }
});

test('pending approvals are shown as the ledger records them; a run whose rows disagree is flagged, and verify names them', async () => {
  const { keel, store, runId } = await waiting();
  try {
    const shown = await keel.approvals.list('acme');
    assert.deepEqual(shown[0]?.args, { ticket: 'T-1', reason: 'resolved' });
    // An edited row: the approver is not shown it (nor anything of the run), but told; verify names the row.
    sql(
      store,
      `UPDATE approvals SET args = '{"ticket":"T-1","reason":"all of them"}' WHERE run_id = ?`,
      runId,
    );
    const flagged = await keel.approvals.list('acme');
    assert.deepEqual(
      flagged.map((a) => [a.runId, a.invalid?.code, a.args]),
      [[runId, 'projection_mismatch', {}]],
    );
    const edited = await keel.runs.verify('acme', runId);
    assert.ok(!edited.ok && edited.failure.code === 'projection_mismatch', JSON.stringify(edited));
    // A deleted row: the run still waits and is still listed (flagged); verify names it.
    sql(store, 'DELETE FROM approvals WHERE run_id = ?', runId);
    assert.equal((await keel.approvals.list('acme'))[0]?.invalid?.code, 'projection_mismatch');
    const deleted = await keel.runs.verify('acme', runId);
    assert.ok(
      !deleted.ok && deleted.failure.code === 'projection_mismatch' && /no row/.test(deleted.failure.message),
    );
    // A row invented for a run that waits for nothing: flagged, never shown as a request; verify names it.
    const [done] = (await keel.events.emit('acme', go('T-2'))).runs;
    await keel.approvals.approve('acme', done!.runId, 'dana');
    sql(
      store,
      `INSERT INTO approvals (run_id, proposal_id, tenant, step, tool, args, reason, channel, requested_at)
       VALUES (?, 'sha256:${'0'.repeat(64)}', 'acme', 'close', 'close', '{}', 'fake', 'cli', '2026-01-01T00:00:00Z')`,
      done!.runId,
    );
    const listed = await keel.approvals.list('acme');
    assert.deepEqual(listed.find((a) => a.runId === done!.runId)?.invalid?.code, 'projection_mismatch');
    assert.ok(
      listed.every((a) => a.invalid),
      'nothing of a disagreeing row is shown as a request',
    );
    const fake = await keel.runs.verify('acme', done!.runId);
    assert.ok(
      !fake.ok &&
        fake.failure.code === 'projection_mismatch' &&
        /waits for no approval/.test(fake.failure.message),
    );
  } finally {
    await keel.close();
  }
});

test('no action acts on a run whose pending-approval row disagrees with its ledger (projection_mismatch)', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    sql(
      store,
      `UPDATE approvals SET args = '{"ticket":"T-1","reason":"refund everything"}' WHERE run_id = ?`,
      runId,
    );
    const mismatch = (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
      assert.equal(e.details.code, 'projection_mismatch');
      return true;
    };
    const entries = (await keel.runs.entries('acme', runId)).length;
    await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), mismatch);
    await assert.rejects(keel.approvals.deny('acme', runId, 'dana'), mismatch);
    await assert.rejects(keel.runs.cancel('acme', runId, { by: 'dana' }), mismatch);
    await assert.rejects(keel.runs.pause('acme', runId, { by: 'dana' }), mismatch);
    await assert.rejects(keel.runs.resume('acme', runId, { by: 'dana' }), mismatch);
    await assert.rejects(keel.runs.rerun('acme', runId), mismatch);
    await assert.rejects(keel.runs.fork('acme', runId, { fromSeq: 1, mode: 'branch' }), mismatch);
    await assert.rejects(keel.runs.replay('acme', runId), mismatch);
    await assert.rejects(keel.runs.recover('acme', runId), mismatch);
    assert.equal(close.calls.length, 0, 'the destructive tool never ran');
    assert.equal((await keel.runs.entries('acme', runId)).length, entries, 'nothing was appended');
    assert.equal((await keel.runs.list('acme')).runs.length, 1, 'no fork or rerun was created');
  } finally {
    await keel.close();
  }
});

test('rerun of a completed run with an invented pending row is refused: no tool is called again', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    await keel.approvals.approve('acme', runId, 'dana');
    assert.equal(close.calls.length, 1);
    sql(
      store,
      `INSERT INTO approvals (run_id, proposal_id, tenant, step, tool, args, reason, channel, requested_at)
       VALUES (?, 'sha256:${'0'.repeat(64)}', 'acme', 'close', 'close', '{}', 'fake', 'cli', '2026-01-01T00:00:00Z')`,
      runId,
    );
    await assert.rejects(keel.runs.rerun('acme', runId), (e: unknown) => {
      assert.ok(isKeelError(e) && e.details.code === 'projection_mismatch', String(e));
      return true;
    });
    assert.equal(close.calls.length, 1);
    assert.equal((await keel.runs.list('acme')).runs.length, 1, 'no attempt was made');
  } finally {
    await keel.close();
  }
});

test('recover makes the same checks as every action: a run row with an edited event_id is not walked', async () => {
  const sandbox = new Sandbox('act-verified');
  sandboxes.push(sandbox);
  const store = sandbox.store();
  const reply = spyTool('reply');
  const queued = createKeel({ store, tools: [reply, spyTool('close')], walk: 'enqueue' });
  await deploy(queued, 'acme', SPEC);
  const [run] = (await queued.events.emit('acme', go())).runs;
  assert.equal(run?.status, 'running');
  await queued.close();
  const eventId = runRow(store, run!.runId)?.event_id;
  sql(store, "UPDATE runs SET event_id = 'e-forged' WHERE run_id = ?", run!.runId);
  const keel = createKeel({ store, tools: [reply, spyTool('close')] });
  try {
    await assert.rejects(keel.runs.recover('acme', run!.runId), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
      assert.equal(e.details.code, 'row_mismatch');
      assert.match(e.message, /event_id/);
      return true;
    });
    assert.equal(reply.calls.length, 0, 'nothing was walked');
    assert.equal((await keel.runs.entries('acme', run!.runId)).length, 1);
    // Its lease was given back: once the row is repaired, recover walks it here and now.
    sql(store, 'UPDATE runs SET event_id = ? WHERE run_id = ?', eventId, run!.runId);
    assert.equal((await keel.runs.recover('acme', run!.runId)).status, 'completed');
    assert.equal(reply.calls.length, 1);
  } finally {
    await keel.close();
  }
});

/**
 * Rewrites a run's whole ledger with `edit` applied to each decoded payload and every hash
 * recomputed, as a forger with the file and Keel's own code would: the chain is consistent.
 */
function rechain(store: string, runId: string, edit: (kind: string, p: unknown) => unknown): void {
  let prev: { seq: number; hash: Digest } | null = null;
  for (const row of entryRows(store, runId)) {
    const payload = edit(row.kind, JSON.parse(row.payload.toString()));
    const { stored }: { stored: StoredEntry } = chainEntry(
      runId,
      prev,
      row.kind as EntryKind,
      payload as never,
      row.at,
    );
    putEntryRow(store, {
      run_id: runId,
      seq: stored.seq,
      v: stored.v,
      kind: stored.kind,
      prev_hash: stored.prevHash,
      payload_hash: stored.payloadHash,
      hash: stored.hash,
      at: stored.at,
      payload: Buffer.from(stored.payload),
    });
    prev = { seq: stored.seq, hash: stored.hash };
  }
  setRunHead(store, runId, prev!);
}

test('a ledger rewritten whole with consistent hashes is caught by its root: the run id is recomputed', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    // Another ticket in the root and in the request: every hash, the head and the row agree again.
    const retarget = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('"T-1"', '"T-9"'));
    rechain(store, runId, (_kind, p) => retarget(p));
    sql(store, `UPDATE approvals SET args = '{"reason":"resolved","ticket":"T-9"}' WHERE run_id = ?`, runId);
    const v = await keel.runs.verify('acme', runId);
    assert.ok(!v.ok && v.failure.code === 'identity_mismatch' && v.failure.seq === 0, JSON.stringify(v));
    await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'ledger_invalid', String(e));
      assert.equal(e.details.code, 'identity_mismatch');
      return true;
    });
    assert.equal(close.calls.length, 0, 'the forged request was never acted on');
    const [listed] = await keel.approvals.list('acme');
    assert.equal(listed?.invalid?.code, 'identity_mismatch');
    assert.deepEqual([listed?.tool, listed?.args], ['', {}], 'nothing of a run that fails is shown');
  } finally {
    await keel.close();
  }
});

test('a stored spec edited after publishing is caught by a long-lived process, and nothing runs on it', async () => {
  const { keel, store, close, runId } = await waiting();
  try {
    assert.equal((await keel.runs.verify('acme', runId)).ok, true, 'read (and parsed) before the edit');
    sql(store, `UPDATE workflow_versions SET spec = replace(spec, '"resolved"', '"wiped"')`);
    const v = await keel.runs.verify('acme', runId);
    assert.ok(!v.ok && v.failure.code === 'spec_mismatch', JSON.stringify(v));
    await assert.rejects(keel.approvals.approve('acme', runId, 'dana'), isCode('ledger_invalid'));
    await assert.rejects(keel.runs.replay('acme', runId), isCode('ledger_invalid'));
    // A new run of the edited version is refused before it exists.
    await assert.rejects(keel.events.emit('acme', go('T-2')), isCode('ledger_invalid'));
    assert.equal((await keel.runs.list('acme')).runs.length, 1);
    assert.equal(close.calls.length, 0);
  } finally {
    await keel.close();
  }
});

const SLOW = `id: slow
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: a, args: { ticket: "{{event.subject}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const PAY = `id: pay
version: 1
status: AUTONOMOUS
triggers: [{ event: pay }]
steps:
  - { name: charge, tool: charge, args: { amount: 5 } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

/**
 * A store with a run left to workers (running, no walker), a paused one, and one suspended as
 * outcome_unknown (its process "died" inside a non-idempotent call), with tools counting calls.
 */
async function heldRuns() {
  const sandbox = new Sandbox('act-verified');
  sandboxes.push(sandbox);
  const store = sandbox.store();
  let hung = false;
  const charge = spyTool('charge', {
    effect: 'external',
    idempotent: false,
    handler: () => {
      if (hung) return { id: 'ch_2' };
      hung = true;
      return new Promise(() => {});
    },
  });
  const a = spyTool('a');
  const first = createKeel({ store, tools: [a, charge] });
  await deploy(first, 'acme', SLOW);
  await deploy(first, 'acme', PAY);
  const [queued] = (await first.events.emit('acme', go('T-1'), { walk: 'enqueue' })).runs;
  const [paused] = (await first.events.emit('acme', go('T-2'), { walk: 'enqueue' })).runs;
  await first.runs.pause('acme', paused!.runId, { by: 'dana' });
  void first.events.emit('acme', { ...go(), type: 'pay' });
  while (charge.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  const suspendedId = (await first.runs.list('acme', { workflowId: 'pay' })).runs[0]!.runId;
  // Another process finds the dead call: the run is suspended for a person to reconcile.
  const keel = createKeel({ store, tools: [a, charge] });
  assert.equal((await keel.runs.recover('acme', suspendedId)).status, 'outcome_unknown');
  return { keel, store, a, charge, queued: queued!.runId, paused: paused!.runId, suspended: suspendedId };
}

test('pause, resume and reconcile refuse a run that fails verification, doing nothing', async () => {
  const { keel, store, a, charge, queued, paused, suspended } = await heldRuns();
  try {
    for (const runId of [queued, paused, suspended])
      editPayload(store, runId, 0, (p) => p.replace('"acme"', '"acmf"'));
    const lengths = async () =>
      Promise.all([queued, paused, suspended].map(async (r) => (await keel.runs.entries('acme', r)).length));
    const before = await lengths();
    await assert.rejects(keel.runs.pause('acme', queued, { by: 'dana' }), isCode('ledger_invalid'));
    await assert.rejects(keel.runs.resume('acme', paused, { by: 'dana' }), isCode('ledger_invalid'));
    await assert.rejects(
      keel.runs.reconcile('acme', suspended, { happened: false, by: 'dana' }),
      isCode('ledger_invalid'),
    );
    assert.deepEqual(await lengths(), before, 'nothing was appended');
    assert.deepEqual([a.calls.length, charge.calls.length], [0, 1], 'no tool ran again');
  } finally {
    await keel.close();
  }
});

test('cancel, pause and reconcile retry a moving head a bounded number of times', async () => {
  const { keel, store, queued, suspended } = await heldRuns();
  const { runId: waitingId, keel: other } = await waiting();
  await Promise.all([keel.close(), other.close()]);
  const racing = (path: string) => {
    let appends = 0;
    const real = createKeel({ store: path }).store;
    const moving: Store = withPorts(real, {
      ledger: Object.create(real.ledger, {
        append: {
          value: async () => {
            appends++;
            throw new KeelError('head_conflict', 'another writer moved the head');
          },
        },
      }),
    });
    const k = createKeel({
      store: moving,
      tools: [spyTool('a'), spyTool('charge', { effect: 'external', idempotent: false })],
    });
    return { k, appends: () => appends, close: () => Promise.all([k.close(), real.close()]) };
  };
  const keptChanging = (e: unknown) =>
    isKeelError(e) && e.code === 'head_conflict' && /kept changing/.test(e.message);
  for (const [what, act] of [
    ['pause', (k: Keel) => k.runs.pause('acme', queued, { by: 'dana' })],
    ['reconcile', (k: Keel) => k.runs.reconcile('acme', suspended, { happened: false, by: 'dana' })],
  ] as const) {
    const r = racing(store);
    try {
      await assert.rejects(act(r.k), keptChanging, what);
      assert.equal(r.appends(), 6, `${what}: the first try and 5 retries`);
    } finally {
      await r.close();
    }
  }
  const waitingStore = sandboxes.at(-1)!.store();
  const r = racing(waitingStore);
  try {
    await assert.rejects(r.k.runs.cancel('acme', waitingId, { by: 'dana' }), keptChanging);
    assert.equal(r.appends(), 6, 'cancel: the first try and 5 retries');
  } finally {
    await r.close();
  }
});

test('a row a walker moved between the reads of an action is read again, not called a mismatch', async () => {
  const { keel, store, runId } = await waiting();
  await keel.close();
  const rows = entryRows(store, runId);
  const real = createKeel({ store }).store;
  // The first read of the row is one taken before the last two entries were appended (a race).
  let stale = 0;
  const racing: Store = withPorts(real, {
    runs: Object.create(real.runs, {
      getRun: {
        value: async (tenant: string, id: string) => {
          const row = await real.runs.getRun(tenant, id);
          if (!row || stale++ > 0) return row;
          const before = rows.at(-3)!;
          return { ...row, status: 'running', head: { seq: before.seq, hash: before.hash as Digest } };
        },
      },
    }),
  });
  const k = createKeel({ store: racing, tools: [spyTool('reply'), spyTool('close', { destructive: true })] });
  try {
    assert.equal((await k.runs.verify('acme', runId)).ok, true, 'verify reads the row again');
    stale = 0;
    assert.equal((await k.approvals.approve('acme', runId, 'dana')).status, 'completed');
  } finally {
    await k.close();
    await real.close();
  }
});
