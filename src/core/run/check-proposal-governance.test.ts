import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { payloadProblem } from '../ledger/index.ts';
import { parsePolicy } from '../policy/index.ts';
import type { ToolDescriptor } from '../tools/index.ts';
import { keyPair, signedRoot } from '../writs/fixtures.test-helpers.ts';
import { attenuate, signWrit, writHash } from '../writs/index.ts';
import {
  approvalCause,
  checkProposal,
  type ProposalContext,
  type WritCheckContext,
} from './check-proposal.ts';
import { describeEntry } from './describe-entry.ts';

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
    properties: { order_id: { type: 'string' }, amount_usd: { type: 'number', minimum: 0 } },
  },
};

const POLICY = parsePolicy(
  `
rules:
  - { id: big-refunds, match: { tool: issue_refund }, when: args.amount_usd > 20, outcome: require_approval, channel: slack, reason: over $20 }
  - { id: huge-refunds, match: { tool: issue_refund }, when: args.amount_usd >= 500, outcome: deny, reason: goes to finance }
  - { id: refunds, match: { tool: issue_refund }, outcome: allow }
`,
  'p.yaml',
);
const policy = {
  policy: POLICY,
  tenant: 'acme',
  workflowId: 'refund-desk',
  clock: '2026-03-14T10:00:00Z',
  pinned: false,
};

const k = keyPair('acme');
const root = signedRoot(k, { budget: { cents: 1_000_000, steps: 10, calls: 8 } });
const leaf = (() => {
  const r = attenuate(
    root.body,
    { id: 'run-writ', subject: 'run', issuer: k.trusted.keyId, budget: { calls: 2 } },
    root.body.budget,
  );
  assert.ok(r.ok);
  return signWrit(r.body, k.privateKey);
})();
const writ: WritCheckContext = {
  chain: [root, leaf],
  trusted: [k.trusted],
  revoked: new Set(),
  now: '2026-03-14T10:00:00Z',
  usage: { cents: 0, steps: 0, calls: 0 },
  tenant: 'acme',
};

function ctx(over: Partial<ProposalContext> = {}): ProposalContext {
  return {
    tool: issueRefund,
    args: { order_id: 'order-1042', amount_usd: 12 },
    stepsTaken: 0,
    maxSteps: 4,
    spentCents: 0,
    capCents: 100_000,
    versionStatus: 'AUTONOMOUS',
    approved: false,
    ...over,
  };
}

describe('checkProposal with a writ and a policy', () => {
  it("without either, the decision carries no governance fields (today's behaviour)", () => {
    assert.deepEqual(checkProposal(ctx()), { outcome: 'allow', costCents: 1200 });
  });

  it('schema comes first: invalid arguments are refused before the writ or policy is consulted', () => {
    const d = checkProposal(
      ctx({ args: { order_id: 'x', amount_usd: '9' }, writ: { ...writ, chain: [leaf] }, policy }),
    );
    assert.equal(d.outcome === 'refuse' && d.check, 'validate');
    assert.equal(d.policy, undefined);
    assert.equal(d.outcome === 'refuse' && d.writ, undefined);
  });

  it('the writ comes before the policy: a writ failure refuses with its code and no policy trace', () => {
    const d = checkProposal(ctx({ writ: { ...writ, usage: { cents: 0, steps: 2, calls: 2 } }, policy }));
    assert.ok(d.outcome === 'refuse');
    assert.equal(d.check, 'writ');
    assert.equal(d.code, 'writ_budget_exhausted');
    assert.deepEqual(d.writ, { hash: writHash(leaf), code: 'writ_budget_exhausted' });
    assert.equal(d.policy, undefined);
    const unchained = checkProposal(ctx({ writ: { ...writ, chain: [leaf] } }));
    assert.ok(unchained.outcome === 'refuse' && unchained.code === 'writ_chain_untrusted');
  });

  it('a policy deny refuses with the trace, before the guardrails, even when approved', () => {
    const d = checkProposal(
      ctx({ args: { order_id: 'x', amount_usd: 900 }, policy, writ, approved: true, stepsTaken: 9 }),
    );
    assert.ok(d.outcome === 'refuse');
    assert.equal(d.check, 'policy');
    assert.equal(d.code, 'policy_denied');
    assert.equal(d.message, 'policy rule huge-refunds denies issue_refund: goes to finance');
    assert.deepEqual(d.policy, {
      hash: POLICY.hash,
      outcome: 'deny',
      rule: 'huge-refunds',
      trace: [
        { rule: 'big-refunds', outcome: 'require_approval' },
        { rule: 'huge-refunds', outcome: 'deny' },
      ],
    });
    assert.equal(d.writ, undefined, 'a writ check that passed records nothing: the root names the writ');
  });

  it("a run's root that pins the policy is not repeated in each decision, which is one frozen object", () => {
    const args = { order_id: 'x', amount_usd: 42 };
    const d = checkProposal(ctx({ args, policy: { ...policy, pinned: true } }));
    assert.deepEqual(d.policy, {
      outcome: 'require_approval',
      rule: 'big-refunds',
      trace: [
        { rule: 'big-refunds', outcome: 'require_approval' },
        { rule: 'huge-refunds' },
        { rule: 'refunds', outcome: 'allow' },
      ],
    });
    const again = checkProposal(ctx({ args: { ...args }, policy: { ...policy, pinned: true } }));
    assert.equal(again.policy, d.policy, 'the same decision is the same record');
    assert.ok(Object.isFrozen(d.policy) && Object.isFrozen(d.policy?.trace[0]));
    const unpinned = checkProposal(ctx({ args, policy }));
    assert.equal(unpinned.policy?.hash, POLICY.hash);
    const other = checkProposal(
      ctx({ args: { order_id: 'x', amount_usd: 900 }, policy: { ...policy, pinned: true } }),
    );
    assert.equal(other.policy?.rule, 'huge-refunds', 'another decision is another record');
  });

  it('a policy require_approval asks on its channel, but only after the refusing guardrails pass', () => {
    const d = checkProposal(ctx({ args: { order_id: 'x', amount_usd: 42 }, policy }));
    assert.ok(d.outcome === 'require_approval');
    assert.equal(d.channel, 'slack');
    assert.equal(d.reason, 'policy rule big-refunds requires approval for issue_refund: over $20');
    assert.equal(d.policy?.rule, 'big-refunds');
    const overSteps = checkProposal(ctx({ args: { order_id: 'x', amount_usd: 42 }, policy, stepsTaken: 4 }));
    assert.ok(overSteps.outcome === 'refuse' && overSteps.check === 'max_steps');
    assert.equal(overSteps.policy?.outcome, 'require_approval');
  });

  it('once approved, the policy approval rule is satisfied and the step is allowed with its trace', () => {
    const d = checkProposal(ctx({ args: { order_id: 'x', amount_usd: 42 }, policy, writ, approved: true }));
    assert.ok(d.outcome === 'allow');
    assert.equal(d.policy?.outcome, 'require_approval');
    assert.equal('writ' in d, false, 'an allow records no writ: the root names it');
  });

  it('a policy allow does not bypass the guardrails: a destructive tool on a LIVE version still needs a person', () => {
    const d = checkProposal(ctx({ policy, versionStatus: 'LIVE' }));
    assert.ok(d.outcome === 'require_approval');
    assert.equal(d.channel, 'cli');
    assert.equal(d.policy?.outcome, 'allow');
  });

  it('the ledger accepts the governance fields and history says what the policy did', () => {
    const d = checkProposal(ctx({ args: { order_id: 'x', amount_usd: 900 }, policy, writ }));
    assert.ok(d.outcome === 'refuse');
    const payload = {
      step: 'refund',
      tool: 'issue_refund',
      proposalId: null,
      check: d.check,
      code: d.code,
      message: d.message,
      policy: d.policy,
      writ: d.writ,
    };
    assert.equal(payloadProblem('step.refused', payload), undefined);
    assert.equal(payloadProblem('step.refused', { ...payload, policy: 'deny' }), 'policy is not a object');
    const entry = { kind: 'step.refused', payload } as unknown as Parameters<typeof describeEntry>[0];
    assert.equal(
      describeEntry(entry),
      'Refused issue_refund: policy rule huge-refunds denies issue_refund: goes to finance (2 policy rules consulted).',
    );
    const allowed = checkProposal(ctx({ policy, writ }));
    const allowedEntry = {
      kind: 'step.allowed',
      payload: {
        step: 's',
        tool: 'issue_refund',
        proposalId: writHash(leaf),
        args: {},
        idempotencyKey: writHash(leaf),
        attempt: 1,
        costCents: 1200,
        policy: allowed.policy,
      },
    } as unknown as Parameters<typeof describeEntry>[0];
    assert.match(describeEntry(allowedEntry), /all checks passed; policy rule refunds allowed it\.$/);
  });
});

describe('approvalCause', () => {
  const asked = (d: ReturnType<typeof checkProposal>, tool: string) => {
    assert.equal(d.outcome, 'require_approval');
    if (d.outcome !== 'require_approval') throw new Error('unreachable');
    return approvalCause({ tool, reason: d.reason, ...(d.policy ? { policy: d.policy } : {}) });
  };

  it('names a policy rule, the destructive guardrail or an approval gate, as the decision recorded it', () => {
    assert.equal(
      asked(checkProposal(ctx({ args: { order_id: 'x', amount_usd: 42 }, policy })), 'issue_refund'),
      'policy',
    );
    // The policy allowed it; the destructive guardrail still asks (the record keeps the allow).
    const destructive = checkProposal(ctx({ policy, versionStatus: 'LIVE' }));
    assert.equal(destructive.policy?.outcome, 'allow');
    assert.equal(asked(destructive, 'issue_refund'), 'destructive');
    assert.equal(asked(checkProposal(ctx({ versionStatus: 'LIVE' })), 'issue_refund'), 'destructive');
    const gate: ToolDescriptor = {
      ...issueRefund,
      name: 'core.approvalGate',
      destructive: false,
      approval: 'always',
    };
    assert.equal(asked(checkProposal(ctx({ tool: gate })), 'core.approvalGate'), 'gate');
  });
});
