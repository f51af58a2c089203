import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ToolDescriptor } from '../tools/index.ts';
import { checkProposal, type ProposalContext } from './check-proposal.ts';

const issueRefund: ToolDescriptor = {
  name: 'issue_refund',
  description: 'Refunds an order',
  destructive: true,
  effect: 'external',
  idempotent: false,
  scopes: ['payments:refund'],
  cost: { fromArg: 'amount_usd' },
  args: {
    type: 'object',
    required: ['order_id', 'amount_usd'],
    additionalProperties: false,
    properties: { order_id: { type: 'string' }, amount_usd: { type: 'number', minimum: 0 } },
  },
};

const getOrder: ToolDescriptor = {
  name: 'get_order',
  description: 'Reads an order',
  destructive: false,
  effect: 'read',
  idempotent: true,
  scopes: ['orders:read'],
  cost: { fixedUsd: 0.29 },
  args: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } },
};

/** A proposal that passes every check but the destructive guardrail. */
function ctx(over: Partial<ProposalContext> = {}): ProposalContext {
  return {
    tool: issueRefund,
    args: { order_id: 'order-1042', amount_usd: 42.5 },
    stepsTaken: 1,
    maxSteps: 4,
    spentCents: 0,
    capCents: 5000,
    versionStatus: 'LIVE',
    approved: false,
    ...over,
  };
}

describe('checkProposal: order of checks', () => {
  // Each context fails every check from its position on; removing one failure reveals the next.
  const failsEverything = ctx({
    args: { order_id: 'order-1042', amount_usd: '500' },
    stepsTaken: 4,
    spentCents: 4900,
  });

  it('validates arguments before anything else', () => {
    const d = checkProposal(failsEverything);
    assert.equal(d.outcome, 'refuse');
    assert.equal(d.outcome === 'refuse' && d.check, 'validate');
  });

  it('checks the step limit after validation and before the spend cap', () => {
    const d = checkProposal({ ...failsEverything, args: { order_id: 'order-1042', amount_usd: 500 } });
    assert.equal(d.outcome === 'refuse' && d.check, 'max_steps');
  });

  it('checks the spend cap after the step limit and before approval', () => {
    const d = checkProposal({
      ...failsEverything,
      args: { order_id: 'order-1042', amount_usd: 500 },
      stepsTaken: 1,
    });
    assert.equal(d.outcome === 'refuse' && d.check, 'spend_cap');
  });

  it('asks for approval only once every refusal check has passed', () => {
    const d = checkProposal({
      ...failsEverything,
      args: { order_id: 'order-1042', amount_usd: 1 },
      stepsTaken: 1,
    });
    assert.equal(d.outcome, 'require_approval');
  });

  it('refuses an approved proposal that breaks a limit: approval never lifts the spend cap', () => {
    const d = checkProposal(
      ctx({ args: { order_id: 'order-1042', amount_usd: 500 }, approved: true, versionStatus: 'AUTONOMOUS' }),
    );
    assert.equal(d.outcome === 'refuse' && d.check, 'spend_cap');
  });
});

describe('checkProposal: validation', () => {
  it('refuses invalid arguments with invalid_arguments, every problem, and a message naming the fields', () => {
    const d = checkProposal(ctx({ args: { amount_usd: 'lots', extra: true } }));
    assert.equal(d.outcome, 'refuse');
    if (d.outcome !== 'refuse') return;
    assert.equal(d.code, 'invalid_arguments');
    assert.deepEqual(d.problems?.map((p) => [p.field, p.problem]).sort(), [
      ['amount_usd', 'type_mismatch'],
      ['extra', 'unexpected'],
      ['order_id', 'missing'],
    ]);
    assert.match(d.message, /order_id is missing/);
    assert.match(d.message, /amount_usd: type mismatch \(expected number, got string "lots"\)/);
  });
});

describe('checkProposal: step limit', () => {
  it('refuses the step that would go over maxSteps, naming the step and the limit', () => {
    const d = checkProposal(ctx({ stepsTaken: 4, maxSteps: 4 }));
    assert.deepEqual(d, {
      outcome: 'refuse',
      check: 'max_steps',
      code: 'max_steps_exceeded',
      message: 'this would be step 5, over the limit of 4 steps',
    });
  });

  it('allows the last step within the limit', () => {
    assert.notEqual(checkProposal(ctx({ stepsTaken: 3, maxSteps: 4 })).outcome, 'refuse');
  });
});

describe('checkProposal: spend cap', () => {
  it('refuses an amount over the cap, naming the argument, the amount and the cap', () => {
    const d = checkProposal(ctx({ args: { order_id: 'order-1042', amount_usd: 500 } }));
    assert.deepEqual(d, {
      outcome: 'refuse',
      check: 'spend_cap',
      code: 'spend_cap_exceeded',
      message: 'amount_usd 500 exceeds the spend cap of 50',
    });
  });

  it('counts what the run already spent, and says so', () => {
    const d = checkProposal(ctx({ args: { order_id: 'order-1042', amount_usd: 42.5 }, spentCents: 1000 }));
    assert.equal(
      d.outcome === 'refuse' && d.message,
      'amount_usd 42.50 plus 10 already spent exceeds the spend cap of 50',
    );
  });

  it('names the cost when the tool charges a fixed amount', () => {
    const d = checkProposal(ctx({ tool: getOrder, args: { order_id: 'order-1042' }, capCents: 20 }));
    assert.equal(d.outcome === 'refuse' && d.message, 'cost 0.29 exceeds the spend cap of 0.20');
  });

  it('allows spending exactly up to the cap and refuses one cent more', () => {
    const at = checkProposal(
      ctx({ args: { order_id: 'order-1042', amount_usd: 40.01 }, spentCents: 999, approved: true }),
    );
    assert.deepEqual(at, { outcome: 'allow', costCents: 4001 });
    const over = checkProposal(
      ctx({ args: { order_id: 'order-1042', amount_usd: 40.02 }, spentCents: 999, approved: true }),
    );
    assert.equal(over.outcome === 'refuse' && over.check, 'spend_cap');
  });

  it('refuses exactly when spent + cost exceeds the cap, in whole cents', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 100_000 }),
        fc.nat({ max: 100_000 }),
        fc.nat({ max: 100_000 }),
        (amountCents, spent, cap) => {
          const amount = amountCents / 100;
          const d = checkProposal(
            ctx({
              args: { order_id: 'o', amount_usd: amount },
              spentCents: spent,
              capCents: cap,
              approved: true,
            }),
          );
          if (spent + amountCents > cap) assert.equal(d.outcome === 'refuse' && d.check, 'spend_cap');
          else assert.deepEqual(d, { outcome: 'allow', costCents: amountCents });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('checkProposal: destructive tools', () => {
  it('requires an approval for a destructive tool on a version that is not AUTONOMOUS', () => {
    for (const versionStatus of ['DRAFT', 'TESTING', 'SHADOW', 'LIVE']) {
      const d = checkProposal(ctx({ versionStatus }));
      assert.equal(d.outcome, 'require_approval', versionStatus);
      if (d.outcome !== 'require_approval') continue;
      assert.equal(d.costCents, 4250);
      assert.equal(d.channel, 'cli');
      assert.equal(
        d.reason,
        `issue_refund is destructive and this version is ${versionStatus}, not AUTONOMOUS`,
      );
    }
  });

  it('allows a destructive tool without a person on an AUTONOMOUS version', () => {
    assert.deepEqual(checkProposal(ctx({ versionStatus: 'AUTONOMOUS' })), {
      outcome: 'allow',
      costCents: 4250,
    });
  });

  it('allows a destructive tool once a person approved this proposal', () => {
    assert.deepEqual(checkProposal(ctx({ approved: true })), { outcome: 'allow', costCents: 4250 });
  });

  it('allows a non-destructive tool on any version, with its cost', () => {
    assert.deepEqual(
      checkProposal(ctx({ tool: getOrder, args: { order_id: 'order-1042' }, versionStatus: 'DRAFT' })),
      {
        outcome: 'allow',
        costCents: 29,
      },
    );
  });
});

describe('checkProposal: approval gates', () => {
  const gate: ToolDescriptor = { ...getOrder, name: 'core.approvalGate', approval: 'always', cost: {} };
  const gated = (over: Partial<ProposalContext> = {}) =>
    ctx({ tool: gate, args: { order_id: 'order-1042' }, ...over });

  it('waits for a person on every version status, AUTONOMOUS included', () => {
    for (const versionStatus of ['DRAFT', 'TESTING', 'SHADOW', 'LIVE', 'AUTONOMOUS']) {
      assert.deepEqual(checkProposal(gated({ versionStatus })), {
        outcome: 'require_approval',
        costCents: 0,
        reason: 'core.approvalGate is an approval gate',
        channel: 'openwop',
      });
    }
  });

  it('allows the proposal once a person approved it', () => {
    assert.deepEqual(checkProposal(gated({ approved: true, versionStatus: 'AUTONOMOUS' })), {
      outcome: 'allow',
      costCents: 0,
    });
  });

  it('refuses first when a refusing check fails: nobody is asked to approve a refused step', () => {
    const d = checkProposal(gated({ stepsTaken: 4 }));
    assert.equal(d.outcome === 'refuse' && d.check, 'max_steps');
  });
});
