import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashOf } from '../canonical/index.ts';
import {
  chainEntry,
  type Entry,
  type EntryKind,
  type EventRecord,
  type Head,
  type PayloadOf,
} from '../ledger/index.ts';
import { applyEntry, foldRun, startState } from './run-state.ts';

const RUN = hashOf({ kind: 'keel.run', n: 1 });
const SPEC = hashOf({ id: 'refund-under-50', version: 3 });
const P_LOOKUP = hashOf({ kind: 'keel.proposal', step: 'lookup' });
const P_REFUND = hashOf({ kind: 'keel.proposal', step: 'refund' });
const KEY = hashOf({ kind: 'keel.idempotency' });

const EVENT: EventRecord = {
  id: 'evt_1042',
  type: 'refund.requested',
  tenant: 'acme',
  source: 'support-desk',
  subject: 'order-1042',
  payload: { amount_usd: 42.5 },
  time: '2026-03-01T11:59:58Z',
};

/** Builds decoded entries of one run with chainEntry. */
class Ledger {
  readonly entries: Entry[] = [];
  private head: Head | null = null;

  add<K extends EntryKind>(kind: K, payload: PayloadOf<K>): this {
    const { entry } = chainEntry(
      RUN,
      this.head,
      kind,
      payload,
      `2026-03-01T12:00:${String(this.entries.length).padStart(2, '0')}Z`,
    );
    this.entries.push(entry as Entry);
    this.head = { seq: entry.seq, hash: entry.hash };
    return this;
  }

  started(status = 'LIVE'): this {
    return this.add('run.started', {
      tenant: 'acme',
      workflowId: 'refund-under-50',
      version: 3,
      specHash: SPEC,
      status,
      event: EVENT,
      engine: 'keel/0.1.0',
    });
  }

  allowed(step: string, proposalId = step === 'refund' ? P_REFUND : P_LOOKUP, costCents = 0): this {
    const tool = step === 'refund' ? 'issue_refund' : 'get_order';
    return this.add('step.allowed', {
      step,
      tool,
      proposalId,
      args: { order_id: 'order-1042' },
      idempotencyKey: KEY,
      attempt: 1,
      costCents,
    });
  }

  completed(step: string, output: unknown, costCents = 0): this {
    const tool = step === 'refund' ? 'issue_refund' : 'get_order';
    return this.add('step.completed', {
      step,
      tool,
      proposalId: step === 'refund' ? P_REFUND : P_LOOKUP,
      output,
      costCents,
    });
  }

  requested(): this {
    return this.add('approval.requested', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      args: { order_id: 'order-1042', amount_usd: 42.5 },
      costCents: 4250,
      reason: 'issue_refund is destructive and this version is LIVE, not AUTONOMOUS',
      channel: 'cli',
    });
  }

  resolved(decision: 'approved' | 'denied'): this {
    return this.add('approval.resolved', { proposalId: P_REFUND, decision, by: 'dana@acme.test' });
  }
}

describe('foldRun', () => {
  it('starts running, pinned to the version and event of run.started', () => {
    const l = new Ledger().started('SHADOW');
    const s = foldRun(l.entries);
    assert.equal(s.status, 'running');
    assert.equal(s.runId, RUN);
    assert.equal(s.tenant, 'acme');
    assert.equal(s.workflowId, 'refund-under-50');
    assert.equal(s.version, 3);
    assert.equal(s.specHash, SPEC);
    assert.equal(s.versionStatus, 'SHADOW');
    assert.deepEqual(s.event, EVENT);
    assert.deepEqual(s.head, { seq: 0, hash: l.entries[0]!.hash });
    assert.equal(s.stepsTaken, 0);
    assert.equal(s.spentCents, 0);
    assert.deepEqual(s.outputs, {});
    assert.equal(s.completed.size, 0);
    assert.equal(s.approval, undefined);
    assert.equal(s.inFlight, undefined);
  });

  it('marks an allowed step in flight until its result is recorded', () => {
    const l = new Ledger().started().allowed('lookup');
    const s = foldRun(l.entries);
    assert.equal(s.inFlight?.step, 'lookup');
    assert.equal(s.stepsTaken, 1);
    l.completed('lookup', { total_usd: 42.5 });
    const done = foldRun(l.entries);
    assert.equal(done.inFlight, undefined);
    assert.deepEqual(done.outputs, { lookup: { total_usd: 42.5 } });
    assert.ok(done.completed.has('lookup'));
  });

  it('clears the in-flight step when it failed, without recording an output', () => {
    const l = new Ledger()
      .started()
      .allowed('lookup')
      .add('step.failed', {
        step: 'lookup',
        tool: 'get_order',
        proposalId: P_LOOKUP,
        error: { code: 'ECONNRESET', message: 'hung up' },
      });
    const s = foldRun(l.entries);
    assert.equal(s.inFlight, undefined);
    assert.deepEqual(s.outputs, {});
    assert.equal(s.completed.has('lookup'), false);
    assert.equal(s.stepsTaken, 1, 'a failed step still counts against maxSteps');
  });

  it('adds the cost of each completed step to spentCents', () => {
    const l = new Ledger()
      .started()
      .allowed('lookup', P_LOOKUP, 29)
      .completed('lookup', {}, 29)
      .allowed('refund', P_REFUND, 4250)
      .completed('refund', {}, 4250);
    assert.equal(foldRun(l.entries).spentCents, 4279);
  });

  it('waits for approval after approval.requested, and holds the pending request', () => {
    const l = new Ledger().started().allowed('lookup').completed('lookup', { total_usd: 42.5 }).requested();
    const s = foldRun(l.entries);
    assert.equal(s.status, 'waiting_approval');
    assert.equal(s.approval?.request.proposalId, P_REFUND);
    assert.equal(s.approval?.request.costCents, 4250);
    assert.equal(s.approval?.decision, undefined);
  });

  it('runs again once the approval is resolved, keeping the decision until the step is allowed', () => {
    const l = new Ledger().started().requested().resolved('approved');
    const s = foldRun(l.entries);
    assert.equal(s.status, 'running');
    assert.equal(s.approval?.decision?.decision, 'approved');
    assert.equal(s.approval?.decision?.by, 'dana@acme.test');
    l.allowed('refund', P_REFUND, 4250);
    const after = foldRun(l.entries);
    assert.equal(after.approval, undefined);
    assert.equal(after.inFlight?.proposalId, P_REFUND);
  });

  it('keeps a pending approval when a different proposal is allowed', () => {
    const l = new Ledger().started().requested().allowed('lookup', P_LOOKUP);
    const s = foldRun(l.entries);
    assert.equal(s.approval?.request.proposalId, P_REFUND);
  });

  it('drops the approval when its proposal is refused after a denial, and finishes refused', () => {
    const l = new Ledger().started().requested().resolved('denied').add('step.refused', {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P_REFUND,
      check: 'approval',
      code: 'approval_denied',
      message: 'dana@acme.test denied the approval',
    });
    assert.equal(foldRun(l.entries).approval, undefined);
    l.add('run.finished', {
      status: 'refused',
      outputs: {},
      reason: 'issue_refund: dana@acme.test denied the approval',
    });
    const s = foldRun(l.entries);
    assert.equal(s.status, 'refused');
    assert.equal(s.finished?.reason, 'issue_refund: dana@acme.test denied the approval');
  });

  it('derives a completed run with all outputs in completion order', () => {
    const l = new Ledger()
      .started()
      .add('source.drawn', { source: 'clock', value: '2026-03-01T12:00:01Z' })
      .allowed('lookup')
      .completed('lookup', { total_usd: 42.5 })
      .requested()
      .resolved('approved')
      .allowed('refund', P_REFUND, 4250)
      .completed('refund', { refund_id: 're_9' }, 4250)
      .add('run.finished', {
        status: 'completed',
        outputs: { lookup: { total_usd: 42.5 }, refund: { refund_id: 're_9' } },
      });
    const s = foldRun(l.entries);
    assert.equal(s.status, 'completed');
    assert.deepEqual(Object.keys(s.outputs), ['lookup', 'refund']);
    assert.deepEqual(s.outputs.refund, { refund_id: 're_9' });
    assert.deepEqual([...s.completed], ['lookup', 'refund']);
    assert.equal(s.stepsTaken, 2);
    assert.equal(s.spentCents, 4250);
    assert.equal(s.inFlight, undefined);
    assert.equal(s.approval, undefined);
    assert.deepEqual(s.head, { seq: 8, hash: l.entries[8]!.hash });
    assert.equal(s.finished?.status, 'completed');
  });

  it('derives a failed run from run.finished', () => {
    const l = new Ledger()
      .started()
      .allowed('lookup')
      .add('step.failed', {
        step: 'lookup',
        tool: 'get_order',
        proposalId: P_LOOKUP,
        error: { code: 'tool_error', message: 'boom' },
      });
    l.add('run.finished', { status: 'failed', outputs: {}, reason: 'get_order: boom' });
    assert.equal(foldRun(l.entries).status, 'failed');
  });

  it('derives a cancelled run that waited for an approval: nothing is pending any more', () => {
    const l = new Ledger().started().requested();
    assert.equal(foldRun(l.entries).status, 'waiting_approval');
    l.add('run.finished', { status: 'cancelled', outputs: {}, reason: 'cancelled by dana: duplicate' });
    const s = foldRun(l.entries);
    assert.equal(s.status, 'cancelled');
    assert.equal(s.approval, undefined);
    assert.equal(s.finished?.reason, 'cancelled by dana: duplicate');
  });

  it('moves the head to every entry, including source draws', () => {
    const l = new Ledger().started().add('source.drawn', { source: 'random', value: 0.25 });
    const s = foldRun(l.entries);
    assert.deepEqual(s.head, { seq: 1, hash: l.entries[1]!.hash });
    assert.equal(s.status, 'running');
  });

  it('refuses a ledger that does not start with run.started', () => {
    assert.throws(() => foldRun([]), /starts with run\.started/);
    const l = new Ledger().add('source.drawn', { source: 'clock', value: 'now' });
    assert.throws(() => foldRun(l.entries), /starts with run\.started/);
  });

  it('gives the same state folded at once as applied entry by entry, at every prefix', () => {
    const l = new Ledger()
      .started()
      .allowed('lookup')
      .completed('lookup', { total_usd: 42.5 })
      .requested()
      .resolved('approved')
      .allowed('refund', P_REFUND, 4250)
      .completed('refund', { refund_id: 're_9' }, 4250);
    const s = startState(l.entries[0] as Entry<'run.started'>);
    for (let i = 1; i < l.entries.length; i++) {
      applyEntry(s, l.entries[i]!);
      assert.deepEqual(s, foldRun(l.entries.slice(0, i + 1)), `after seq ${i}`);
    }
  });
});
