import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluatePolicy } from './evaluate-policy.ts';
import { parsePolicy, policyFromValue } from './parse-policy.ts';
import type { Policy, PolicyInput } from './policy.ts';

const refund: PolicyInput = {
  tool: { name: 'issue_refund', destructive: true, effect: 'external', scopes: ['payments:refund'] },
  args: { order_id: 'order-1042', amount_usd: 42.5 },
  tenant: 'acme',
  workflow: { id: 'refund-desk', status: 'LIVE' },
  clock: '2026-03-14T10:30:00Z', // a Saturday
};

const DESK = parsePolicy(
  `
rules:
  - id: reads
    match: { effect: read }
    outcome: allow
  - id: big-refunds
    match: { tool: issue_refund }
    when: args.amount_usd > 20
    outcome: require_approval
    channel: slack
    reason: refunds over $20 need a person
  - id: huge-refunds
    match: { tool: issue_refund }
    when: args.amount_usd >= 500
    outcome: deny
    reason: refunds of $500 or more go to finance
  - id: refunds
    match: { scopes: [payments:refund] }
    outcome: allow
`,
  'desk.yaml',
);

describe('evaluatePolicy', () => {
  it('require_approval beats a later allow; the trace lists every rule consulted, in order', () => {
    const d = evaluatePolicy(DESK, refund);
    assert.equal(d.outcome, 'require_approval');
    assert.equal(d.rule, 'big-refunds');
    assert.equal(d.channel, 'slack');
    assert.equal(
      d.reason,
      'policy rule big-refunds requires approval for issue_refund: refunds over $20 need a person',
    );
    assert.deepEqual(d.trace, [
      { rule: 'reads' },
      { rule: 'big-refunds', outcome: 'require_approval' },
      { rule: 'huge-refunds' },
      { rule: 'refunds', outcome: 'allow' },
    ]);
  });

  it('deny beats require_approval and stops the walk: nothing after it can change the outcome', () => {
    const d = evaluatePolicy(DESK, { ...refund, args: { amount_usd: 900 } });
    assert.equal(d.outcome, 'deny');
    assert.equal(d.rule, 'huge-refunds');
    assert.equal(d.channel, undefined);
    assert.match(
      d.reason,
      /^policy rule huge-refunds denies issue_refund: refunds of \$500 or more go to finance$/,
    );
    assert.deepEqual(
      d.trace.map((t) => t.rule),
      ['reads', 'big-refunds', 'huge-refunds'],
    );
  });

  it('allows when only allow rules match; the default applies when nothing matches', () => {
    assert.equal(evaluatePolicy(DESK, { ...refund, args: { amount_usd: 5 } }).outcome, 'allow');
    const none = evaluatePolicy(DESK, {
      ...refund,
      tool: { name: 'send_email', destructive: false, effect: 'external', scopes: [] },
    });
    assert.equal(none.outcome, 'deny');
    assert.equal(none.rule, null);
    assert.match(none.reason, /no policy rule matches send_email, so the default \(deny\) applies/);
    assert.equal(none.trace.length, 4);
    const open = policyFromValue({ default: 'allow', rules: [] });
    assert.equal(evaluatePolicy(open, refund).outcome, 'allow');
  });

  it('matches prefix patterns, flags, status, tenant and clock facts', () => {
    const p = parsePolicy(
      `
rules:
  - { id: pay, match: { tool: payments.* }, outcome: deny }
  - { id: drafts, match: { status: [DRAFT, TESTING] }, outcome: deny }
  - { id: other-tenant, match: { tenant: globex }, outcome: deny }
  - { id: weekend, when: 'clock.weekday == "saturday" and tool.destructive', outcome: require_approval }
  - { id: night, when: clock.hour >= 22 or clock.hour < 6, outcome: deny }
`,
      'p.yaml',
    );
    const payments = { ...refund, tool: { ...refund.tool, name: 'payments.refund' } };
    assert.equal(evaluatePolicy(p, payments).rule, 'pay');
    assert.equal(
      evaluatePolicy(p, { ...refund, tool: { ...refund.tool, name: 'paymentsx' } }).rule,
      'weekend',
    );
    assert.equal(evaluatePolicy(p, { ...refund, workflow: { id: 'w', status: 'TESTING' } }).rule, 'drafts');
    assert.equal(evaluatePolicy(p, { ...refund, tenant: 'globex' }).rule, 'other-tenant');
    assert.equal(evaluatePolicy(p, { ...refund, clock: '2026-03-16T10:30:00Z' }).outcome, 'deny'); // Monday: default
    assert.equal(evaluatePolicy(p, { ...refund, clock: '2026-03-14T23:10:00+00:00' }).rule, 'night');
    // An offset is an instant: 23:10 at +02:00 is 21:10 UTC, not night.
    assert.equal(evaluatePolicy(p, { ...refund, clock: '2026-03-14T23:10:00+02:00' }).rule, 'weekend');
  });

  it('a clock value that is not an ISO instant yields no clock facts: clock conditions are false', () => {
    const p = parsePolicy('rules: [{id: any-time, when: clock.hour >= 0, outcome: allow}]', 'p.yaml');
    assert.equal(evaluatePolicy(p, refund).outcome, 'allow');
    assert.equal(evaluatePolicy(p, { ...refund, clock: 'yesterday' }).outcome, 'deny');
  });

  it('never throws on odd argument values', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.anything()), (args) => {
        evaluatePolicy(DESK, { ...refund, args });
      }),
    );
  });
});

// ---- properties --------------------------------------------------------------------------

const TOOLS = ['issue_refund', 'get_order', 'payments.refund', 'payments.charge', 'helpdesk.reply'];
const OUTCOMES = ['allow', 'deny', 'require_approval'] as const;

const ruleArb = (id: string) =>
  fc.record(
    {
      id: fc.constant(id),
      match: fc.record(
        {
          tool: fc.subarray(['issue_refund', 'payments.*', 'helpdesk.*', '*', 'get_order'], { minLength: 1 }),
          destructive: fc.boolean(),
          effect: fc.subarray(['read', 'write', 'external'], { minLength: 1 }),
          tenant: fc.subarray(['acme', 'globex'], { minLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      when: fc.constantFrom(
        'args.amount_usd > 20',
        'args.amount_usd <= 100',
        'clock.hour < 12',
        'tool.destructive',
      ),
      outcome: fc.constantFrom(...OUTCOMES),
    },
    { requiredKeys: ['id', 'match', 'outcome'] },
  );

const rulesArb = fc
  .integer({ min: 0, max: 8 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => ruleArb(`r${i}`))))
  .map((rules) => rules as Record<string, unknown>[]);

const inputArb: fc.Arbitrary<PolicyInput> = fc.record({
  tool: fc.record({
    name: fc.constantFrom(...TOOLS),
    destructive: fc.boolean(),
    effect: fc.constantFrom('read' as const, 'write' as const, 'external' as const),
    scopes: fc.constant([]),
  }),
  args: fc.record({ amount_usd: fc.integer({ min: 0, max: 200 }) }),
  tenant: fc.constantFrom('acme', 'globex'),
  workflow: fc.record({ id: fc.constant('w'), status: fc.constantFrom('LIVE', 'DRAFT') }),
  clock: fc.constantFrom('2026-03-14T08:00:00Z', '2026-03-14T18:00:00Z'),
});

const build = (rules: Record<string, unknown>[], dflt: 'allow' | 'deny' = 'deny'): Policy =>
  policyFromValue({ default: dflt, rules });
const RANK = { allow: 0, require_approval: 1, deny: 2 } as const;

describe('evaluatePolicy: properties', () => {
  it('adding a deny rule anywhere never makes the outcome more permissive (a deny stays a deny)', () => {
    fc.assert(
      fc.property(
        rulesArb,
        ruleArb('extra'),
        fc.nat(),
        fc.constantFrom('allow' as const, 'deny' as const),
        inputArb,
        (rules, extra, at, dflt, input) => {
          const before = evaluatePolicy(build(rules, dflt), input).outcome;
          const withDeny = [...rules];
          withDeny.splice(at % (rules.length + 1), 0, { ...extra, outcome: 'deny' });
          const after = evaluatePolicy(build(withDeny, dflt), input).outcome;
          if (before === 'deny') assert.equal(after, 'deny');
          assert.ok(RANK[after] >= RANK[before], `${before} -> ${after}`);
        },
      ),
    );
  });

  it('when a deny matches, reordering the other rules never changes the outcome', () => {
    fc.assert(
      fc.property(rulesArb, inputArb, fc.infiniteStream(fc.nat()), (rules, input, rand) => {
        const d = evaluatePolicy(build(rules), input);
        if (!d.trace.some((t) => t.outcome === 'deny')) return;
        const shuffled = [...rules];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = rand.next().value % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        assert.equal(evaluatePolicy(build(shuffled), input).outcome, 'deny');
      }),
    );
  });

  it('the outcome does not depend on the order of rules at all (only the deciding rule and trace do)', () => {
    fc.assert(
      fc.property(rulesArb, inputArb, (rules, input) => {
        const a = evaluatePolicy(build(rules), input).outcome;
        const b = evaluatePolicy(build([...rules].reverse()), input).outcome;
        assert.equal(a, b);
      }),
    );
  });

  it('the trace holds exactly the rules consulted, in order: all of them, or up to the first matching deny', () => {
    fc.assert(
      fc.property(rulesArb, inputArb, (rules, input) => {
        const d = evaluatePolicy(build(rules), input);
        const firstDeny = d.trace.findIndex((t) => t.outcome === 'deny');
        assert.equal(d.trace.length, firstDeny === -1 ? rules.length : firstDeny + 1);
        assert.deepEqual(
          d.trace.map((t) => t.rule),
          rules.slice(0, d.trace.length).map((r) => r.id),
        );
        // The outcome is the strongest matched outcome, or the default.
        const matched = d.trace.flatMap((t) => (t.outcome ? [t.outcome] : []));
        const strongest = matched.sort((x, y) => RANK[y] - RANK[x])[0] ?? 'deny';
        assert.equal(d.outcome, strongest);
      }),
    );
  });

  it('a remembered decision is the decision: one policy judging many inputs agrees with a fresh policy per input', () => {
    fc.assert(
      fc.property(rulesArb, fc.array(inputArb, { minLength: 1, maxLength: 8 }), (rules, inputs) => {
        const shared = build(rules);
        for (const input of inputs) {
          const d = evaluatePolicy(shared, input);
          assert.deepEqual(d, evaluatePolicy(build(rules), input));
          assert.ok(Object.isFrozen(d) && Object.isFrozen(d.trace));
        }
      }),
    );
  });

  it('a tool seen before is judged like a new one: one policy and one tool object over many inputs agree with fresh ones', () => {
    // The view of a policy per tool descriptor is kept by identity; only the proposal's facts vary.
    const tools = TOOLS.flatMap((name) =>
      (['read', 'write', 'external'] as const).map((effect) => ({
        name,
        destructive: effect === 'external',
        effect,
        scopes: [] as string[],
      })),
    );
    fc.assert(
      fc.property(
        rulesArb,
        fc.array(fc.tuple(fc.nat(tools.length - 1), inputArb), { minLength: 1, maxLength: 12 }),
        (rules, inputs) => {
          const shared = build(rules);
          for (const [t, input] of inputs) {
            const d = evaluatePolicy(shared, { ...input, tool: tools[t]! });
            assert.deepEqual(d, evaluatePolicy(build(rules), { ...input, tool: { ...tools[t]! } }));
          }
        },
      ),
    );
  });
});
