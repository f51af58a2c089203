/**
 * Approval deadlines in a spec: `approval: { timeout, then, remind }` on a tool step, checked
 * strictly (unknown keys, bad durations, a reminder never before the timeout, a bad group name,
 * each named by its field path), and what falls due next, as a pure function of the folded clock.
 */
// biome-ignore-all lint/suspicious/noThenProperty: a step's approval declares `then` (what a deadline does), as the spec writes it
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { nextApprovalDue } from './approval-deadline.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

function spec(approval: unknown): Record<string, unknown> {
  return {
    id: 'refunds',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'refund.requested' }],
    steps: [{ name: 'refund', tool: 'refund', args: {}, approval }],
    limits: { maxSteps: 2, maxCostUsd: 0 },
  };
}

function problems(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, String(e));
    return e.details.problems as SpecProblem[];
  }
  return [];
}

function one(value: unknown, field: string, message: RegExp): void {
  const p = problems(value);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.equal(p[0]!.field, field);
  assert.match(p[0]!.message, message);
}

describe('approval deadlines in a spec', () => {
  it('accepts deny, an escalation with or without its own timeout, and reminders; keeps them on the step', () => {
    const s = validateSpec(spec({ timeout: '24h', then: 'deny', remind: '4h' }), 'spec.json');
    assert.deepEqual((s.steps[0] as { approval?: unknown }).approval, {
      timeout: '24h',
      then: 'deny',
      remind: '4h',
    });
    assert.deepEqual(
      problems(spec({ timeout: '2d', then: { escalate: 'finance-leads', timeout: '1d' } })),
      [],
    );
    assert.deepEqual(problems(spec({ timeout: '90m', then: { escalate: 'ops' } })), []);
  });

  it('refuses what is not one, naming the field', () => {
    one(spec({ timeout: '24h', then: 'deny', otherwise: 'x' }), 'steps[0].approval.otherwise', /unknown/);
    one(spec({ then: 'deny' }), 'steps[0].approval.timeout', /is missing/);
    one(spec({ timeout: '24 hours', then: 'deny' }), 'steps[0].approval.timeout', /expected a duration/);
    one(spec({ timeout: '24h' }), 'steps[0].approval.then', /is missing/);
    one(spec({ timeout: '24h', then: 'approve' }), 'steps[0].approval.then', /expected deny or \{ escalate/);
    one(
      spec({ timeout: '24h', then: { escalate: 'Finance Leads' } }),
      'steps[0].approval.then.escalate',
      /group/,
    );
    one(
      spec({ timeout: '24h', then: { escalate: 'ops', after: '1h' } }),
      'steps[0].approval.then.after',
      /unknown/,
    );
    one(
      spec({ timeout: '24h', then: { escalate: 'ops', timeout: 'soon' } }),
      'steps[0].approval.then.timeout',
      /duration/,
    );
    one(
      spec({ timeout: '4h', then: 'deny', remind: '4h' }),
      'steps[0].approval.remind',
      /never comes before/,
    );
    one(spec('24h'), 'steps[0].approval', /mapping/);
  });

  it('what is due next: reminders before the deadline, then its consequence; deny after an escalation', () => {
    const s = { timeout: '24h', remind: '8h', then: { escalate: 'leads', timeout: '1h' } } as const;
    const h = 3_600_000;
    assert.deepEqual(nextApprovalDue(s, { sinceMs: 0, deadlineMs: 24 * h, escalated: false }), {
      what: 'remind',
      atMs: 8 * h,
    });
    assert.deepEqual(nextApprovalDue(s, { sinceMs: 16 * h, deadlineMs: 24 * h, escalated: false }), {
      what: 'escalate',
      atMs: 24 * h,
      to: 'leads',
      timeout: '1h',
    });
    assert.deepEqual(nextApprovalDue(s, { sinceMs: 24 * h, deadlineMs: 25 * h, escalated: true }), {
      what: 'deny',
      atMs: 25 * h,
    });
    assert.equal(nextApprovalDue(s, { sinceMs: 24 * h, escalated: true }), undefined, 'no deadline stands');
  });
});
