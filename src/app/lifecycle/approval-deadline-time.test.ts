/**
 * Approval deadlines in virtual time: a spec test whose approvals nobody answers (`approvals:
 * none`) runs a 24-hour deadline in milliseconds — reminders, the escalation to an approver group
 * and the expiry stamped at their virtual times — and the run replays byte for byte.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { payloadOf } from '../../core/ledger/index.ts';
import { parsePolicy } from '../../core/policy/index.ts';
import { deploy, spyTool } from '../../testing/index.ts';
import { createKeel } from '../keel.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-approval-time-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = `id: refunds
version: 1
status: TESTING
triggers: [{ event: refund.requested }]
steps:
  - name: refund
    tool: refund
    args: { amount: 90 }
    approval: { timeout: 24h, remind: 8h, then: { escalate: finance-leads, timeout: 24h } }
limits: { maxSteps: 2, maxCostUsd: 0 }
tests:
  - name: nobody answers for two days
    clock: "2026-01-01T09:00:00Z"
    approvals: none
    event: { type: refund.requested, subject: dana }
    expect: { status: refused, refusal: approval_timeout, approvals: [refund] }
`;

test('keel test runs an unanswered approval through 48 hours of deadlines in milliseconds', async () => {
  const refund = spyTool('refund', { effect: 'read', simulate: undefined });
  const policy = parsePolicy(
    'default: allow\nrules:\n  - {id: ask, match: {tool: refund}, outcome: require_approval}\n',
    'p.yaml',
  );
  const keel = createKeel({ store: join(dir, 'a.db'), tools: [refund], policies: { acme: policy } });
  try {
    await deploy(keel, 'acme', SPEC);
    const t0 = Date.now();
    const report = await keel.lifecycle.test('acme', 'refunds');
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(report.passed, true, JSON.stringify(report, null, 2));
    const entries = await keel.runs.entries('acme', report.tests[0]!.runId!);
    const timeline = entries.filter((e) => e.kind.startsWith('approval.')).map((e) => [e.kind, e.at]);
    assert.deepEqual(timeline, [
      ['approval.requested', '2026-01-01T09:00:00.000Z'],
      ['approval.reminded', '2026-01-01T17:00:00.000Z'],
      ['approval.reminded', '2026-01-02T01:00:00.000Z'],
      ['approval.escalated', '2026-01-02T09:00:00.000Z'],
      ['approval.reminded', '2026-01-02T17:00:00.000Z'],
      ['approval.reminded', '2026-01-03T01:00:00.000Z'],
      ['approval.expired', '2026-01-03T09:00:00.000Z'],
    ]);
    const esc = payloadOf(entries.find((e) => e.kind === 'approval.escalated')!, 'approval.escalated');
    assert.deepEqual([esc.to, esc.next], ['finance-leads', '2026-01-03T09:00:00.000Z']);
    assert.equal(payloadOf(entries.at(-2)!, 'step.refused').code, 'approval_timeout');
    assert.equal(refund.calls.length, 0);
    assert.deepEqual(await keel.approvals.list('acme'), [], "a test run is in nobody's inbox");
    const replay = await keel.runs.replay('acme', report.tests[0]!.runId!);
    assert.equal(replay.identical, true, JSON.stringify(replay));
  } finally {
    await keel.close();
  }
});
