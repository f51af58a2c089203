import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashOf } from '../canonical/index.ts';
import { chainEntry, type Entry, type EntryKind, type PayloadOf } from '../ledger/index.ts';
import { describeEntry } from './describe-entry.ts';

const RUN = hashOf({ kind: 'keel.run', n: 1 });
const P = hashOf({ kind: 'keel.proposal', step: 'refund' });

function entry<K extends EntryKind>(kind: K, payload: PayloadOf<K>): Entry {
  return chainEntry(RUN, { seq: 0, hash: RUN }, kind, payload, '2026-03-01T12:00:00Z').entry as Entry;
}

/** One realistic payload per kind, and the sentence it reads as. Typed so a new kind must be added here. */
const SENTENCES: { [K in EntryKind]: [PayloadOf<K>, string] } = {
  'run.started': [
    {
      tenant: 'acme',
      workflowId: 'refund-under-50',
      version: 3,
      specHash: hashOf('spec'),
      status: 'LIVE',
      event: {
        id: 'evt_1042',
        type: 'refund.requested',
        tenant: 'acme',
        source: 'support-desk',
        subject: 'order-1042',
        payload: {},
        time: '2026-03-01T11:59:58Z',
      },
      engine: 'keel/0.1.0',
    },
    'Started refund-under-50 v3 (LIVE) for event refund.requested about order-1042.',
  ],
  'source.drawn': [{ source: 'clock', value: '2026-03-01T12:00:01Z' }, 'Read clock: "2026-03-01T12:00:01Z".'],
  'step.allowed': [
    {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P,
      args: { order_id: 'order-1042', amount_usd: 42.5 },
      idempotencyKey: hashOf('key'),
      attempt: 1,
      costCents: 4250,
      approvedBy: 'dana@acme.test',
    },
    'Allowed issue_refund with order_id="order-1042", amount_usd=42.5 (cost $42.50): all checks passed, approved by dana@acme.test.',
  ],
  'step.refused': [
    {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P,
      check: 'spend_cap',
      code: 'spend_cap_exceeded',
      message: 'amount_usd 500 exceeds the spend cap of 50',
    },
    'Refused issue_refund: amount_usd 500 exceeds the spend cap of 50.',
  ],
  'approval.requested': [
    {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P,
      args: { order_id: 'order-1042' },
      costCents: 4250,
      reason: 'issue_refund is destructive and this version is LIVE, not AUTONOMOUS',
      channel: 'cli',
    },
    'Waiting for approval to run issue_refund with order_id="order-1042": issue_refund is destructive and this version is LIVE, not AUTONOMOUS.',
  ],
  'approval.simulated': [
    {
      step: 'close',
      tool: 'close_ticket',
      proposalId: P,
      args: { ticket_id: 'T-1' },
      costCents: 0,
      reason: 'close_ticket is destructive and this version is SHADOW, not AUTONOMOUS',
      channel: 'cli',
      assumed: 'approved',
      by: 'shadow',
    },
    'would_wait_approval: would wait for approval to run close_ticket with ticket_id="T-1": close_ticket is destructive and this version is SHADOW, not AUTONOMOUS; nobody was asked, and shadow assumed it approved.',
  ],
  'step.suppressed': [
    {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: P,
      reason: 'issue_refund is external and has no simulate; nothing was called',
    },
    'Suppressed issue_refund for step refund: issue_refund is external and has no simulate; nothing was called.',
  ],
  'approval.resolved': [
    { proposalId: P, decision: 'denied', by: 'dana@acme.test', note: 'customer already refunded' },
    'dana@acme.test denied the proposal: customer already refunded.',
  ],
  'step.completed': [
    { step: 'refund', tool: 'issue_refund', proposalId: P, output: { refund_id: 're_9' }, costCents: 4250 },
    'Ran issue_refund for step refund: returned {"refund_id":"re_9"}.',
  ],
  'step.failed': [
    {
      step: 'lookup',
      tool: 'get_order',
      proposalId: P,
      error: { code: 'ECONNRESET', message: 'orders service hung up' },
    },
    'get_order failed in step lookup: orders service hung up (ECONNRESET).',
  ],
  'run.finished': [{ status: 'completed', outputs: {} }, 'Run completed.'],
  'run.suspended': [
    {
      reason: 'outcome_unknown',
      step: 'charge',
      tool: 'charge_card',
      proposalId: P,
      idempotencyKey: hashOf('key'),
      message: 'charge_card started and its outcome was never recorded',
    },
    'Suspended as outcome_unknown: charge_card started and its outcome was never recorded. Nothing re-runs charge_card until someone reconciles step charge.',
  ],
  'step.reconciled': [
    {
      step: 'charge',
      tool: 'charge_card',
      proposalId: P,
      happened: true,
      via: 'operator',
      by: 'dana@acme.test',
      output: { charge_id: 'ch_7' },
      note: 'seen in the payment console',
    },
    'dana@acme.test reconciled step charge: charge_card did happen and returned {"charge_id":"ch_7"} (seen in the payment console).',
  ],
  'run.paused': [
    { by: 'dana', reason: 'checking the refund policy', drainPolicy: 'drain-current-node' },
    'dana paused the run: checking the refund policy; no step starts until it is resumed.',
  ],
  'run.resumed': [{ by: 'dana' }, 'dana resumed the run.'],
  'step.skipped': [
    {
      step: 'tag_review',
      condition: 'payload.refund_amount > 50',
      value: false,
      reads: { 'payload.refund_amount': 30 },
    },
    'Skipped step tag_review: its condition payload.refund_amount > 50 was false (read payload.refund_amount = 30); it called nothing.',
  ],
  'branch.chosen': [
    {
      step: 'route',
      branch: 1,
      when: 'steps.lookup.output.tier == "gold"',
      reads: { 'payload.refund_amount': 30, 'steps.lookup.output.tier': 'gold' },
    },
    'Step route took branch 2, as steps.lookup.output.tier == "gold" held (read payload.refund_amount = 30, steps.lookup.output.tier = "gold").',
  ],
  'parallel.joined': [
    { step: 'enrich', join: 'first', finished: ['crm'], cut: ['billing'], notRun: ['bill_total'] },
    'The branches of step enrich joined: crm finished first; cut billing, whose steps bill_total never started.',
  ],
  'wait.started': [
    { step: 'cool_off', kind: 'timer', fireAt: '2026-03-01T12:15:00.000Z', for: '15m' },
    'Waiting at step cool_off for 15m: the timer fires at 2026-03-01T12:15:00.000Z; nothing holds the run meanwhile.',
  ],
  'wait.ended': [
    { step: 'cool_off', reason: 'timer', at: '2026-03-01T12:15:00.212Z' },
    'The timer of step cool_off fired; the run goes on (2026-03-01T12:15:00.212Z).',
  ],
  'approval.reminded': [
    { proposalId: P, step: 'refund', at: '2026-03-01T16:00:00.000Z' },
    'Reminded the approvers that step refund still waits for a decision (2026-03-01T16:00:00.000Z).',
  ],
  'approval.escalated': [
    {
      proposalId: P,
      step: 'refund',
      to: 'finance-leads',
      deadline: '2026-03-02T12:00:00.000Z',
      at: '2026-03-02T12:00:00.100Z',
      next: '2026-03-03T12:00:00.100Z',
    },
    'Nobody decided on step refund by 2026-03-02T12:00:00.000Z: the approval now waits for finance-leads; if nobody decides by 2026-03-03T12:00:00.100Z, it is denied.',
  ],
  'approval.expired': [
    {
      proposalId: P,
      step: 'refund',
      deadline: '2026-03-02T12:00:00.000Z',
      at: '2026-03-02T12:00:00.100Z',
      reason: 'approval_timeout',
    },
    'Nobody decided on step refund by 2026-03-02T12:00:00.000Z: the approval expired (approval_timeout) and the step is denied.',
  ],
  'foreach.started': [
    { step: 'refund_lines', count: 2, items: [{ amount: 5 }, { amount: 7 }] },
    'Step refund_lines loops over 2 items: its steps run 2 times, as refund_lines[0] to refund_lines[1].',
  ],
};

describe('describeEntry', () => {
  for (const [kind, [payload, sentence]] of Object.entries(SENTENCES) as [EntryKind, [never, string]][]) {
    it(`describes ${kind} in one plain sentence`, () => {
      assert.equal(describeEntry(entry(kind, payload)), sentence);
    });
  }

  it('leaves out what is absent: no subject, no name, no cost, no approver, no note', () => {
    const [started] = SENTENCES['run.started'];
    assert.equal(
      describeEntry(entry('run.started', { ...started, event: { ...started.event, subject: '' } })),
      'Started refund-under-50 v3 (LIVE) for event refund.requested.',
    );
    assert.equal(
      describeEntry(entry('source.drawn', { source: 'env', name: 'REGION', value: 'eu' })),
      'Read env REGION: "eu".',
    );
    assert.equal(
      describeEntry(
        entry('step.allowed', {
          step: 'lookup',
          tool: 'get_order',
          proposalId: P,
          args: {},
          idempotencyKey: P,
          attempt: 1,
          costCents: 0,
        }),
      ),
      'Allowed get_order with no arguments: all checks passed.',
    );
    assert.equal(
      describeEntry(entry('approval.resolved', { proposalId: P, decision: 'approved', by: 'dana' })),
      'dana approved the proposal.',
    );
  });

  it('names why a run did not complete', () => {
    assert.equal(
      describeEntry(
        entry('run.finished', { status: 'refused', outputs: {}, reason: 'issue_refund: over the cap' }),
      ),
      'Run refused: issue_refund: over the cap.',
    );
    assert.equal(describeEntry(entry('run.finished', { status: 'failed', outputs: {} })), 'Run failed.');
    assert.equal(
      describeEntry(
        entry('run.finished', { status: 'cancelled', outputs: {}, reason: 'cancelled by dana: duplicate' }),
      ),
      'Run cancelled by dana: duplicate.',
    );
  });

  it('shortens long argument strings and long outputs', () => {
    const long = 'x'.repeat(100);
    const allowed = describeEntry(
      entry('step.allowed', {
        step: 's',
        tool: 't',
        proposalId: P,
        args: { note: long },
        idempotencyKey: P,
        attempt: 1,
        costCents: 0,
      }),
    );
    assert.ok(allowed.includes(`note="${'x'.repeat(37)}..."`), allowed);
    const ran = describeEntry(
      entry('step.completed', { step: 's', tool: 't', proposalId: P, output: { text: long }, costCents: 0 }),
    );
    assert.ok(ran.length < 130, ran);
    assert.match(ran, /\.\.\.\.$/);
  });

  it('says who reconciled a step and what follows when the effect did not happen', () => {
    const base = { step: 'charge', tool: 'charge_card', proposalId: P } as const;
    assert.equal(
      describeEntry(entry('step.reconciled', { ...base, happened: false, via: 'operator', by: 'dana' })),
      'dana reconciled step charge: charge_card did not happen, so the step is proposed again.',
    );
    assert.equal(
      describeEntry(
        entry('step.reconciled', { ...base, happened: true, via: 'tool', by: 'charge_card', output: 1 }),
      ),
      "The charge_card tool's own check reconciled step charge: charge_card did happen and returned 1.",
    );
  });

  it('describes a step that returned nothing as returning null', () => {
    assert.equal(
      describeEntry(
        entry('step.completed', { step: 's', tool: 't', proposalId: P, output: null, costCents: 0 }),
      ),
      'Ran t for step s: returned null.',
    );
  });

  it('describes a wait for an event: started, ended on an event, timed out', () => {
    assert.equal(
      describeEntry(
        entry('wait.started', {
          step: 'await_reply',
          kind: 'event',
          event: 'customer.replied',
          match: 'event.subject == run.event.subject',
          fireAt: '2026-03-03T12:00:00.000Z',
          timeout: '48h',
          since: '2026-03-01T11:00:00.000Z',
        } as never),
      ),
      'Waiting at step await_reply for a customer.replied event where event.subject == run.event.subject (one arrived since 2026-03-01T11:00:00.000Z counts), at most until 2026-03-03T12:00:00.000Z; nothing holds the run meanwhile.',
    );
    assert.equal(
      describeEntry(
        entry('wait.ended', {
          step: 'await_reply',
          reason: 'event',
          at: '2026-03-01T14:00:00.100Z',
          event: {
            id: 'r1',
            type: 'customer.replied',
            tenant: 'acme',
            source: 'helpdesk',
            subject: 'T-1',
            payload: {},
            time: '2026-03-01T14:00:00Z',
          },
          arrivedAt: '2026-03-01T14:00:00.000Z',
          reads: { 'event.subject': 'T-1', 'run.event.subject': 'T-1' },
        } as never),
      ),
      'Step await_reply took event r1 of helpdesk (customer.replied, subject "T-1"), arrived 2026-03-01T14:00:00.000Z (read event.subject = "T-1", run.event.subject = "T-1"); the run goes on (2026-03-01T14:00:00.100Z).',
    );
    assert.equal(
      describeEntry(
        entry('wait.ended', {
          step: 'await_reply',
          reason: 'timeout',
          at: '2026-03-03T12:00:00.000Z',
        } as never),
      ),
      'No event came for step await_reply before its timeout; the run goes on (2026-03-03T12:00:00.000Z).',
    );
  });

  it('shows a value’s direction controls as escapes, so no value reverses the sentence around it', () => {
    const waiting = describeEntry(
      entry('approval.requested', {
        step: 'archive',
        tool: 'archive_file',
        proposalId: P,
        args: { name: 'invoice-\u202Efdp.exe' },
        reason: 'archive_file is destructive',
        costCents: 0,
        channel: 'console',
      }),
    );
    assert.equal(
      waiting,
      'Waiting for approval to run archive_file with name="invoice-⟨U+202E⟩fdp.exe": archive_file is destructive.',
    );
    const resolved = describeEntry(
      entry('approval.resolved', {
        proposalId: P,
        decision: 'approved',
        by: 'dana\u2067',
        note: 'ok\u202B\u200F\u061C',
      }),
    );
    assert.equal(resolved, 'dana⟨U+2067⟩ approved the proposal: ok⟨U+202B⟩⟨U+200F⟩⟨U+061C⟩.');
  });
});
