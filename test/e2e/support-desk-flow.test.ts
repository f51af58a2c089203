/**
 * The support desk through the real CLI, one process per command, on one SQLite store:
 * publish and promote the reviewed specs, emit the example events, inspect the runs, re-emit
 * (nothing executes twice), and resolve approvals across process restarts (approve, deny, and
 * the refusals of a second resolution). The helpdesk's own tables are the witness of what ran.
 *
 * The tests in this file build on each other, in order.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  type CliError,
  DIGEST,
  exampleEvent,
  exampleSpec,
  failJson,
  failText,
  okJson,
  Sandbox,
} from '../helpers/keel-cli.ts';
import { HelpdeskFile, runRow, withDb } from '../helpers/sqlite-files.ts';

interface EmittedRun {
  runId: string;
  tenant: string;
  workflowId: string;
  version: number;
  status: string;
  reason?: string;
  created: boolean;
}
interface EmitJson {
  eventId: string;
  runs: EmittedRun[];
}
interface RunJson {
  runId: string;
  tenant: string;
  workflowId: string;
  version: number;
  specHash: string;
  status: string;
  head: { seq: number; hash: string };
  eventId: string;
  eventType: string;
  createdAt: string;
  updatedAt: string;
  /** A simulated run's mode (test, shadow); absent for a live run. */
  mode?: string;
}
interface PromotionJson {
  tenant: string;
  workflowId: string;
  version: number;
  from: string;
  to: string;
  by: string;
  override?: { reason: string };
}
interface PendingJson {
  runId: string;
  proposalId: string;
  step: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
}
interface HistoryJson {
  seq: number;
  kind: string;
  text: string;
}

const sandbox = new Sandbox('flow', { supportDesk: true });
after(() => sandbox.remove());
const keel = (...args: string[]) => sandbox.keel(args);
const desk = new HelpdeskFile(sandbox.helpdesk());

/** Emits one event file and returns its single run. */
function emitOne(file: string): EmittedRun {
  const out = okJson<EmitJson>(keel('emit', file, '--json'));
  assert.equal(out.runs.length, 1, `${file} should trigger exactly one workflow: ${JSON.stringify(out)}`);
  return out.runs[0]!;
}

const specHashes: Record<string, string> = {};
const ids = { small: '', large: '', missing: '', close: '', close5: '' };
/** The runs `keel test` made (simulated, mode test), listed beside the live ones. */
const testRunIds: string[] = [];

describe('publish and promote', () => {
  test('publish records the publisher and the spec hash', () => {
    for (const [name, who] of [
      ['refund-under-50', 'alice'],
      ['close-resolved-ticket', 'bob'],
    ] as const) {
      const p = okJson<{
        created: boolean;
        workflowId: string;
        version: number;
        status: string;
        specHash: string;
      }>(keel('publish', exampleSpec(name), '--as', who, '--json'));
      assert.deepEqual(
        { created: p.created, workflowId: p.workflowId, version: p.version, status: p.status },
        { created: true, workflowId: name, version: 1, status: 'DRAFT' },
      );
      assert.match(p.specHash, DIGEST);
      specHashes[name] = p.specHash;
      const row = withDb(sandbox.store(), (db) =>
        db.prepare('SELECT published_by, spec_hash FROM workflow_versions WHERE workflow_id = ?').get(name),
      );
      assert.deepEqual(row, { published_by: who, spec_hash: p.specHash });
    }
    assert.notEqual(specHashes['refund-under-50'], specHashes['close-resolved-ticket']);
  });

  test('promote goes one step at a time, each step up gated, and records who, from and to', () => {
    // A step skipped is a usage error, and nothing moves.
    const skipped = failJson(keel('promote', 'refund-under-50', 'AUTONOMOUS', '--as', 'alice', '--json'), 2);
    assert.equal(skipped.error, 'usage');
    assert.match(skipped.message, /one step at a time/);
    const a = okJson<{ promotion: PromotionJson }>(
      keel('promote', 'refund-under-50', 'TESTING', '--as', 'alice', '--json'),
    ).promotion;
    assert.deepEqual(
      { workflowId: a.workflowId, version: a.version, from: a.from, to: a.to, by: a.by, tenant: a.tenant },
      {
        workflowId: 'refund-under-50',
        version: 1,
        from: 'DRAFT',
        to: 'TESTING',
        by: 'alice',
        tenant: 'default',
      },
    );
    // The gate to SHADOW: the version's tests, run and passing. Not run yet: exit 10.
    const unmet = failJson(keel('promote', 'refund-under-50', 'SHADOW', '--as', 'alice', '--json'), 10);
    assert.equal(unmet.error, 'promotion_gate_unmet');
    assert.match(unmet.message, /not run yet \(keel test\)/);
    // `keel test` runs them in simulated mode: nothing is refunded, nobody is asked.
    const tested = okJson<{ passed: boolean; tests: { name: string; passed: boolean }[] }>(
      keel('test', 'refund-under-50', '--json'),
    );
    assert.equal(tested.passed, true);
    assert.deepEqual(
      tested.tests.map((t) => [t.name, t.passed]),
      [
        ['refunds 30', true],
        ['refuses 500 at the spend cap', true],
      ],
    );
    assert.equal(desk.calls('issue_refund'), 0, 'a test run never refunds');
    for (const to of ['SHADOW', 'LIVE'])
      assert.equal(
        okJson<{ promotion: PromotionJson }>(
          keel('promote', 'refund-under-50', to, '--as', 'alice', '--json'),
        ).promotion.to,
        to,
      );
    // AUTONOMOUS asks for 20 live runs; there are none: only a person's override, with a reason, gets past.
    const noRuns = failJson(keel('promote', 'refund-under-50', 'AUTONOMOUS', '--as', 'alice', '--json'), 10);
    assert.equal(noRuns.error, 'promotion_gate_unmet');
    assert.match(noRuns.message, /at least 20 live runs/);
    const auto = okJson<{ promotion: PromotionJson }>(
      keel(
        'promote',
        'refund-under-50',
        'AUTONOMOUS',
        '--as',
        'alice',
        '--override',
        '--reason',
        'finance signed off',
        '--json',
      ),
    ).promotion;
    assert.deepEqual(
      { from: auto.from, to: auto.to, by: auto.by, override: auto.override },
      { from: 'LIVE', to: 'AUTONOMOUS', by: 'alice', override: { reason: 'finance signed off' } },
    );
    // Lower-case status is accepted and upper-cased.
    okJson(keel('promote', 'close-resolved-ticket', 'testing', '--as', 'bob', '--json'));
    okJson(keel('test', 'close-resolved-ticket', '--json'));
    okJson(keel('promote', 'close-resolved-ticket', 'shadow', '--as', 'bob', '--json'));
    const b = okJson<{ promotion: PromotionJson }>(
      keel('promote', 'close-resolved-ticket', 'live', '--as', 'bob', '--json'),
    ).promotion;
    assert.deepEqual(
      { workflowId: b.workflowId, from: b.from, to: b.to, by: b.by },
      { workflowId: 'close-resolved-ticket', from: 'SHADOW', to: 'LIVE', by: 'bob' },
    );
    const promotions = withDb(sandbox.store(), (db) =>
      db
        .prepare(
          'SELECT workflow_id, from_status, to_status, by, override_reason FROM promotions ORDER BY id',
        )
        .all(),
    );
    const step = (workflow_id: string, from_status: string, to_status: string, by: string, why?: string) => ({
      workflow_id,
      from_status,
      to_status,
      by,
      override_reason: why ?? null,
    });
    assert.deepEqual(promotions, [
      step('refund-under-50', 'DRAFT', 'TESTING', 'alice'),
      step('refund-under-50', 'TESTING', 'SHADOW', 'alice'),
      step('refund-under-50', 'SHADOW', 'LIVE', 'alice'),
      step('refund-under-50', 'LIVE', 'AUTONOMOUS', 'alice', 'finance signed off'),
      step('close-resolved-ticket', 'DRAFT', 'TESTING', 'bob'),
      step('close-resolved-ticket', 'TESTING', 'SHADOW', 'bob'),
      step('close-resolved-ticket', 'SHADOW', 'LIVE', 'bob'),
    ]);
    // The tests ran as runs of their own (mode test), never as live ones: four, one per test.
    const testRuns = okJson<{ runs: RunJson[] }>(keel('runs', 'ls', '--json')).runs;
    assert.equal(testRuns.length, 4, JSON.stringify(testRuns));
    assert.ok(
      testRuns.every((r) => r.mode === 'test'),
      JSON.stringify(testRuns),
    );
    testRunIds.push(...testRuns.map((r) => r.runId));
    assert.equal(desk.calls('issue_refund') + desk.calls('close_ticket'), 0, 'nothing acted');
  });
});

describe('emit the example events', () => {
  test('$30 refund completes and refunds once', () => {
    const r = emitOne(exampleEvent('refund-30'));
    assert.match(r.runId, DIGEST);
    assert.deepEqual(
      {
        workflowId: r.workflowId,
        version: r.version,
        status: r.status,
        created: r.created,
        tenant: r.tenant,
      },
      { workflowId: 'refund-under-50', version: 1, status: 'completed', created: true, tenant: 'default' },
    );
    ids.small = r.runId;
    assert.deepEqual(
      desk.refunds('T-1001').map((x) => x.amount_cents),
      [3000],
    );
  });

  test('$500 refund is refused by the spend cap; issue_refund never called for T-1002', () => {
    const r = emitOne(exampleEvent('refund-500'));
    assert.equal(r.status, 'refused');
    assert.equal(r.created, true);
    assert.match(r.reason ?? '', /amount_usd 500 exceeds the spend cap of 50/);
    ids.large = r.runId;
    assert.equal(desk.refunds('T-1002').length, 0);
  });

  test('refund without an amount is refused by validation; issue_refund never called for T-1003', () => {
    const r = emitOne(exampleEvent('refund-missing-amount'));
    assert.equal(r.status, 'refused');
    assert.match(r.reason ?? '', /amount_usd is missing/);
    ids.missing = r.runId;
    assert.equal(desk.refunds('T-1003').length, 0);
  });

  test('ticket close waits for approval; close_ticket not called', () => {
    const r = emitOne(exampleEvent('ticket-resolved'));
    assert.deepEqual(
      { workflowId: r.workflowId, status: r.status, created: r.created },
      { workflowId: 'close-resolved-ticket', status: 'waiting_approval', created: true },
    );
    ids.close = r.runId;
    assert.equal(desk.calls('close_ticket'), 0);
    assert.deepEqual(desk.ticket('T-1004'), { status: 'open', tags: ['resolved'] });
    // Across all four runs the refund tool ran exactly once.
    assert.equal(desk.calls('issue_refund'), 1);
    assert.equal(new Set(Object.values(ids).filter(Boolean)).size, 4, 'four distinct run ids');
  });
});

describe('inspect runs', () => {
  let all: RunJson[] = [];

  test('runs ls lists every run, the tests beside the live ones; --status filters', () => {
    all = okJson<{ runs: RunJson[] }>(keel('runs', 'ls', '--json')).runs;
    const live = all.filter((r) => r.mode === undefined);
    assert.deepEqual(live.map((r) => r.runId).sort(), [ids.small, ids.large, ids.missing, ids.close].sort());
    assert.deepEqual(
      all
        .filter((r) => r.mode !== undefined)
        .map((r) => [r.runId, r.mode])
        .sort(),
      testRunIds.map((id) => [id, 'test']).sort(),
    );
    // --mode picks either side.
    const byMode = (mode: string) =>
      okJson<{ runs: RunJson[] }>(keel('runs', 'ls', '--mode', mode, '--json'))
        .runs.map((r) => r.runId)
        .sort();
    assert.deepEqual(byMode('live'), live.map((r) => r.runId).sort());
    assert.deepEqual(byMode('test'), [...testRunIds].sort());
    const statusOf = Object.fromEntries(live.map((r) => [r.runId, r.status]));
    assert.deepEqual(statusOf, {
      [ids.small]: 'completed',
      [ids.large]: 'refused',
      [ids.missing]: 'refused',
      [ids.close]: 'waiting_approval',
    });
    for (const r of all) {
      assert.equal(r.specHash, specHashes[r.workflowId], `run ${r.runId} is pinned to its version's hash`);
      assert.match(r.head.hash, DIGEST);
    }
    const refused = okJson<{ runs: RunJson[] }>(keel('runs', 'ls', '--status', 'refused', '--json')).runs;
    assert.deepEqual(
      refused
        .filter((r) => r.mode === undefined)
        .map((r) => r.runId)
        .sort(),
      [ids.large, ids.missing].sort(),
    );
    // Of the tests, the spend cap's and the denied close's end refused, as they expect.
    assert.deepEqual(
      refused
        .filter((r) => r.mode === 'test')
        .map((r) => r.eventId)
        .sort(),
      ['test-refuses 500 at the spend cap', 'test-stays open when the close is denied'],
    );
    assert.ok(refused.every((r) => r.status === 'refused'));
  });

  test('runs show', () => {
    const run = okJson<RunJson & { pendingApprovals: unknown[] }>(keel('runs', 'show', ids.small, '--json'));
    assert.deepEqual(
      {
        runId: run.runId,
        workflowId: run.workflowId,
        version: run.version,
        specHash: run.specHash,
        status: run.status,
        eventId: run.eventId,
        eventType: run.eventType,
        pendingApprovals: run.pendingApprovals,
      },
      {
        runId: ids.small,
        workflowId: 'refund-under-50',
        version: 1,
        specHash: specHashes['refund-under-50'],
        status: 'completed',
        eventId: 'evt-refund-T-1001',
        eventType: 'refund.requested',
        pendingApprovals: [],
      },
    );
    // started, 2 x (allowed, completed), finished
    assert.equal(run.head.seq, 5);
  });

  test('history tells the refusal in plain language, one line per entry', () => {
    const r = keel('history', ids.large);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Refused issue_refund: amount_usd 500 exceeds the spend cap of 50/);
    const large = all.find((x) => x.runId === ids.large)!;
    assert.equal(r.stdout.trim().split('\n').length, large.head.seq + 1);
    assert.doesNotMatch(r.stdout, /Ran issue_refund/);
  });

  test('emitting the same event again returns the same run and executes nothing', () => {
    const callsBefore = desk.calls();
    const again = emitOne(exampleEvent('refund-30'));
    assert.equal(again.runId, ids.small);
    assert.equal(again.created, false);
    assert.equal(again.status, 'completed');
    assert.equal(desk.calls(), callsBefore, 'no tool handler ran');
    assert.equal(desk.calls('issue_refund'), 1);
    assert.equal(desk.refunds('T-1001').length, 1);
    assert.equal(desk.refunds('T-1002').length, 0);
    assert.equal(desk.refunds('T-1003').length, 0);
    assert.equal(
      withDb(
        sandbox.store(),
        (db) => (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n,
      ),
      4 + testRunIds.length,
      'no new run',
    );
    assert.equal(
      runRow(sandbox.store(), ids.small)?.head_hash,
      all.find((x) => x.runId === ids.small)?.head.hash,
    );
  });
});

describe('approvals, each command in a new process', () => {
  test('the waiting run is listed; nothing closed yet', () => {
    const pending = okJson<PendingJson[]>(keel('approvals', 'ls', '--json'));
    assert.equal(pending.length, 1);
    const p = pending[0]!;
    assert.deepEqual(
      { runId: p.runId, step: p.step, tool: p.tool, ticket: p.args.ticket_id },
      { runId: ids.close, step: 'close', tool: 'close_ticket', ticket: 'T-1004' },
    );
    assert.match(p.proposalId, DIGEST);
    assert.match(p.reason, /destructive/);
    const run = okJson<RunJson & { pendingApprovals: PendingJson[] }>(
      keel('runs', 'show', ids.close, '--json'),
    );
    assert.equal(run.status, 'waiting_approval');
    assert.deepEqual(
      run.pendingApprovals.map((x) => x.proposalId),
      [p.proposalId],
    );
    assert.equal(desk.ticket('T-1004').status, 'open');
    assert.equal(desk.calls('close_ticket'), 0);
  });

  test('approve in a new process completes the run', () => {
    const r = okJson<{ runId: string; status: string }>(keel('approve', ids.close, '--as', 'dana', '--json'));
    assert.equal(r.runId, ids.close);
    assert.equal(r.status, 'completed');
    assert.equal(desk.ticket('T-1004').status, 'closed');
    assert.equal(desk.calls('close_ticket'), 1);
    assert.deepEqual(okJson(keel('approvals', 'ls', '--json')), []);
    const history = okJson<HistoryJson[]>(keel('history', ids.close, '--json'));
    const resolved = history.filter((h) => h.kind === 'approval.resolved');
    assert.equal(resolved.length, 1);
    assert.match(resolved[0]!.text, /^dana approved/);
    assert.equal(history.at(-1)?.kind, 'run.finished');
    const v = okJson<{ ok: boolean; entries: number }>(keel('verify', ids.close, '--json'));
    assert.equal(v.ok, true);
    assert.equal(v.entries, history.length);
  });

  test('approving again is a conflict (exit 4) and changes nothing', () => {
    const headBefore = runRow(sandbox.store(), ids.close)?.head_hash;
    const text = failText(keel('approve', ids.close, '--as', 'erin'), 4);
    assert.match(text, /already approved by dana/);
    const err = failJson(keel('deny', ids.close, '--as', 'erin', '--json'), 4);
    assert.equal(err.error, 'already_resolved');
    assert.equal(runRow(sandbox.store(), ids.close)?.head_hash, headBefore);
    assert.equal(desk.calls('close_ticket'), 1);
  });

  test('approving a run that never waited is a conflict (exit 4, run_state)', () => {
    const err = failJson(keel('approve', ids.small, '--as', 'dana', '--json'), 4);
    assert.equal(err.error, 'run_state');
    assert.match(err.message, /not waiting/);
  });

  test('deny stops a waiting run: refused, close_ticket never called for T-1005', () => {
    const event = sandbox.write('events/resolved-T-1005.json', {
      id: 'evt-resolved-T-1005',
      type: 'ticket.resolved',
      source: 'helpdesk',
      subject: 'T-1005',
      time: '2026-11-30T10:00:00Z',
      payload: { resolution: 'Customer says it works now.' },
    });
    const r = emitOne(event);
    assert.equal(r.status, 'waiting_approval');
    assert.notEqual(r.runId, ids.close);
    ids.close5 = r.runId;
    const pending = okJson<PendingJson[]>(keel('approvals', 'ls', '--json'));
    assert.deepEqual(
      pending.map((p) => [p.runId, p.args.ticket_id]),
      [[ids.close5, 'T-1005']],
    );

    const denied = okJson<{ runId: string; status: string; reason?: string }>(
      keel('deny', ids.close5, '--as', 'erin', '--note', 'customer reopened it', '--json'),
    );
    assert.equal(denied.status, 'refused');
    assert.match(denied.reason ?? '', /erin denied/);
    assert.deepEqual(desk.ticket('T-1005'), { status: 'open', tags: ['resolved'] });
    assert.equal(desk.calls('close_ticket'), 1, 'only the approved T-1004 close ever ran');
    assert.deepEqual(okJson(keel('approvals', 'ls', '--json')), []);

    const history = okJson<HistoryJson[]>(keel('history', ids.close5, '--json'));
    assert.ok(
      history.some(
        (h) => h.kind === 'approval.resolved' && h.text === 'erin denied the proposal: customer reopened it.',
      ),
      JSON.stringify(history),
    );
    assert.ok(
      !history.some((h) => h.kind === 'step.allowed' && /close_ticket/.test(h.text)),
      'no allow for close_ticket',
    );
    assert.equal(okJson<{ ok: boolean }>(keel('verify', ids.close5, '--json')).ok, true);
  });

  test('approve after deny: exit 4, already_resolved, and still not closed', () => {
    const err: CliError = failJson(keel('approve', ids.close5, '--as', 'dana', '--json'), 4);
    assert.equal(err.error, 'already_resolved');
    assert.equal(err.details?.decision, 'denied');
    assert.equal(err.details?.by, 'erin');
    assert.equal(desk.ticket('T-1005').status, 'open');
    assert.equal(desk.calls('close_ticket'), 1);
    assert.equal(runRow(sandbox.store(), ids.close5)?.status, 'refused');
  });
});
