/**
 * Tenants never see or touch each other's workflows, runs, approvals or ledgers through the CLI:
 * a run of tenant `a` is "not found" (exit 3) for tenant `b` through every command that names it,
 * and b's attempts change nothing for a. Tests share one store and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exampleEvent, exampleSpec, failJson, failText, okJson, Sandbox } from '../helpers/keel-cli.ts';
import { putAtStatus } from '../helpers/lifecycle.ts';
import { HelpdeskFile, runRow } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('tenants', { supportDesk: true });
after(() => sandbox.remove());
const as = (tenant: string, ...args: string[]) => sandbox.keel(['--tenant', tenant, ...args]);
const desk = new HelpdeskFile(sandbox.helpdesk());

let runId = '';
let headBefore: unknown;

before(async () => {
  okJson(as('a', 'publish', exampleSpec('close-resolved-ticket'), '--as', 'alice', '--json'));
  // Not a test of promotion: put at LIVE directly (a recorded fixture, past the gates).
  await putAtStatus(sandbox.store(), 'a', 'close-resolved-ticket', 'LIVE');
  const out = okJson<{ runs: { runId: string; status: string; tenant: string }[] }>(
    as('a', 'emit', exampleEvent('ticket-resolved'), '--json'),
  );
  assert.equal(out.runs.length, 1);
  assert.equal(out.runs[0]!.status, 'waiting_approval');
  assert.equal(out.runs[0]!.tenant, 'a');
  runId = out.runs[0]!.runId;
  headBefore = runRow(sandbox.store(), runId)?.head_hash;
});

describe("tenant b cannot reach tenant a's run", () => {
  test('runs show, history, verify: exit 3 not found', () => {
    assert.match(failText(as('b', 'runs', 'show', runId), 3), new RegExp(`run ${runId} not found`));
    assert.equal(failJson(as('b', 'history', runId, '--json'), 3).error, 'not_found');
    assert.equal(failJson(as('b', 'verify', runId, '--json'), 3).error, 'not_found');
  });

  test('approve and deny: exit 3, and the run still waits, untouched', () => {
    assert.equal(failJson(as('b', 'approve', runId, '--as', 'eve', '--json'), 3).error, 'not_found');
    assert.equal(failJson(as('b', 'deny', runId, '--as', 'eve', '--json'), 3).error, 'not_found');
    assert.equal(runRow(sandbox.store(), runId)?.head_hash, headBefore);
    assert.equal(runRow(sandbox.store(), runId)?.status, 'waiting_approval');
    assert.equal(desk.calls('close_ticket'), 0);
  });

  test('runs ls and approvals ls are empty for b', () => {
    assert.deepEqual(okJson(as('b', 'runs', 'ls', '--json')), { runs: [] });
    assert.deepEqual(okJson(as('b', 'approvals', 'ls', '--json')), []);
  });

  test("b cannot promote or test a's workflow, and a's event routes to nothing in b", () => {
    assert.match(
      failText(as('b', 'promote', 'close-resolved-ticket', 'AUTONOMOUS', '--as', 'eve'), 3),
      /not found/,
    );
    assert.equal(failJson(as('b', 'test', 'close-resolved-ticket', '--json'), 3).error, 'not_found');
    const out = okJson<{ runs: unknown[] }>(as('b', 'emit', exampleEvent('ticket-resolved'), '--json'));
    assert.deepEqual(out.runs, []);
  });

  test('the default tenant sees nothing of a either', () => {
    assert.deepEqual(okJson(sandbox.keel(['runs', 'ls', '--json'])), { runs: [] });
  });

  test('tenant a still sees and resolves its own run', () => {
    const pending = okJson<{ runId: string }[]>(as('a', 'approvals', 'ls', '--json'));
    assert.deepEqual(
      pending.map((p) => p.runId),
      [runId],
    );
    const r = okJson<{ status: string }>(as('a', 'approve', runId, '--as', 'alice', '--json'));
    assert.equal(r.status, 'completed');
    assert.equal(desk.ticket('T-1004').status, 'closed');
  });

  test('the same workflow and event in tenant c is a different run', async () => {
    okJson(as('c', 'publish', exampleSpec('close-resolved-ticket'), '--as', 'carol', '--json'));
    await putAtStatus(sandbox.store(), 'c', 'close-resolved-ticket', 'LIVE');
    const out = okJson<{ runs: { runId: string; created: boolean; tenant: string }[] }>(
      as('c', 'emit', exampleEvent('ticket-resolved'), '--json'),
    );
    assert.equal(out.runs.length, 1);
    assert.notEqual(out.runs[0]!.runId, runId, 'the tenant is part of the run identity');
    assert.equal(out.runs[0]!.created, true);
    assert.equal(out.runs[0]!.tenant, 'c');
    // In b the event was delivered when nothing took it: delivered again, that is still the answer.
    okJson(as('b', 'publish', exampleSpec('close-resolved-ticket'), '--as', 'bob', '--json'));
    await putAtStatus(sandbox.store(), 'b', 'close-resolved-ticket', 'LIVE');
    const again = okJson<{ runs: unknown[]; redelivery?: boolean }>(
      as('b', 'emit', exampleEvent('ticket-resolved'), '--json'),
    );
    assert.deepEqual([again.runs, again.redelivery], [[], true]);
    const listed = okJson<{ runs: { runId: string }[] }>(as('a', 'runs', 'ls', '--json')).runs;
    assert.deepEqual(
      listed.map((r) => r.runId),
      [runId],
    );
  });
});
