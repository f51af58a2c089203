/**
 * The tenant's policy read against a spec's steps: each step says what the policy does with its
 * calls and by which rule; conditional rules (a `when`, a status) are named with their condition
 * only when they change the outcome; other tenants' rules are left out. Property: with no
 * conditional rules, the reading says exactly what evaluatePolicy decides for every call.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluatePolicy, parsePolicy, policyFromValue } from '../policy/index.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { explainSpec } from './explain-spec.ts';

const tool = (name: string, o: Partial<ToolDescriptor> = {}): ToolDescriptor =>
  ({
    name,
    description: `Does ${name}.`,
    effect: 'write',
    destructive: false,
    scopes: [],
    args: { type: 'object' },
    ...o,
  }) as ToolDescriptor;

const TOOLS = [
  tool('draft_reply'),
  tool('issue_refund', { destructive: true, effect: 'external', scopes: ['payments:refund'] }),
  tool('close_ticket', { destructive: true }),
];
const spec = (...tools: string[]): WorkflowSpec =>
  ({
    id: 'desk',
    version: 1,
    status: 'DRAFT',
    triggers: [],
    steps: tools.map((t, i) => ({ name: `s${i + 1}`, tool: t, args: {} })),
    limits: { maxSteps: tools.length, maxCostUsd: 0 },
  }) as unknown as WorkflowSpec;

const DESK = parsePolicy(
  `
default: deny
rules:
  - id: replies
    match: { tool: draft_reply }
    outcome: allow
  - id: refunds
    match: { scopes: [payments:refund] }
    outcome: allow
  - id: big-refunds
    match: { tool: issue_refund }
    when: args.amount_usd > 20
    outcome: require_approval
  - id: live-refunds-only
    match: { tool: issue_refund, status: [SHADOW] }
    outcome: allow
  - id: globex-closes
    match: { tool: close_ticket, tenant: [globex] }
    outcome: allow
`,
  'desk.yaml',
);

describe('explainSpec with a policy', () => {
  const r = explainSpec(spec('draft_reply', 'issue_refund', 'close_ticket'), TOOLS, {
    policy: DESK,
    tenant: 'acme',
  });

  it('reads each step: the deciding rule or the default, and the conditions that change it', () => {
    assert.match(
      r.policy[0]!,
      /^Policy [0-9a-f]{12}… \(5 rules\): a call no rule matches is refused \(default deny\)\.$/,
    );
    assert.equal(r.policy[1], '1. s1 (draft_reply): allowed (rule replies).');
    assert.equal(
      r.policy[2],
      "2. s2 (issue_refund): allowed (rule refunds); if args.amount_usd > 20, waits for a person's approval (rule big-refunds).",
    );
    // globex's rule is not acme's: acme's closes fall to the default.
    assert.equal(r.policy[3], "3. s3 (close_ticket): refused (the policy's default).");
    assert.match(r.text, /\nPolicy:\n {2}Policy /);
  });

  it('the steps the policy may refuse or hold for a person are risks', () => {
    assert.ok(
      r.risks.includes(
        "s2 (issue_refund): if args.amount_usd > 20, it waits for a person's approval (policy rule big-refunds).",
      ),
    );
    assert.ok(
      r.risks.includes(
        "s3 (close_ticket) is refused by the tenant's policy (the policy's default): a run cannot get past it.",
      ),
    );
    assert.ok(!r.risks.some((l) => l.startsWith('s1 ')), 'an allowed reply is no risk');
  });

  it('a rule limited to statuses reads as a condition, whatever the version is now', () => {
    const p = parsePolicy(
      'default: allow\nrules:\n  - id: no-live-closes\n    match: { tool: close_ticket, status: [LIVE, AUTONOMOUS] }\n    outcome: deny\n',
      'p.yaml',
    );
    const one = explainSpec(spec('close_ticket'), TOOLS, { policy: p, tenant: 'acme' });
    assert.equal(
      one.policy[1],
      "1. s1 (close_ticket): allowed (the policy's default); while the version is LIVE or AUTONOMOUS, refused (rule no-live-closes).",
    );
  });

  it('without a policy there is no policy section, and nothing else changes', () => {
    const bare = explainSpec(spec('draft_reply'), TOOLS);
    assert.deepEqual(bare.policy, []);
    assert.doesNotMatch(bare.text, /Policy/);
  });
});

const OUTCOMES = ['allow', 'deny', 'require_approval'] as const;
const WORDS = { allow: 'allowed', deny: 'refused', require_approval: "waits for a person's approval" };

it('with no conditional rules, each step reads as evaluatePolicy decides its calls', () => {
  const rule = fc.record({
    tool: fc.option(
      fc.subarray(
        TOOLS.map((t) => t.name),
        { minLength: 1 },
      ),
      { nil: undefined },
    ),
    destructive: fc.option(fc.boolean(), { nil: undefined }),
    outcome: fc.constantFrom(...OUTCOMES),
  });
  fc.assert(
    fc.property(fc.array(rule, { maxLength: 6 }), fc.constantFrom('allow', 'deny'), (rules, dflt) => {
      const policy = policyFromValue({
        default: dflt,
        rules: rules.map((r, i) => ({
          id: `r${i}`,
          match: {
            ...(r.tool ? { tool: r.tool } : {}),
            ...(r.destructive === undefined ? {} : { destructive: r.destructive }),
          },
          outcome: r.outcome,
        })),
      });
      const read = explainSpec(spec(...TOOLS.map((t) => t.name)), TOOLS, { policy, tenant: 'acme' });
      TOOLS.forEach((t, i) => {
        const d = evaluatePolicy(policy, {
          tool: t,
          args: {},
          tenant: 'acme',
          workflow: { id: 'desk', status: 'LIVE' },
          clock: '2026-12-03T00:00:00Z',
        });
        const by = d.rule ? `rule ${d.rule}` : "the policy's default";
        assert.equal(read.policy[i + 1], `${i + 1}. s${i + 1} (${t.name}): ${WORDS[d.outcome]} (${by}).`);
      });
    }),
  );
});
