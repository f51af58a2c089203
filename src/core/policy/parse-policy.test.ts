import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKeelError } from '../errors.ts';
import type { SpecProblem } from '../spec/index.ts';
import { parsePolicy, policyFromValue } from './parse-policy.ts';

function problemsOf(text: string): SpecProblem[] {
  try {
    parsePolicy(text, 'policy.yaml');
  } catch (e) {
    assert.ok(isKeelError(e), `expected a KeelError, got ${String(e)}`);
    assert.equal(e.code, 'policy_invalid');
    return e.details.problems as SpecProblem[];
  }
  assert.fail('expected the policy to be rejected');
}

const GOOD = `
default: deny
rules:
  - id: big-refunds
    match: { tool: [issue_refund, payments.*], destructive: true }
    when: args.amount_usd > 20
    outcome: require_approval
    channel: slack
    reason: refunds over $20 need a person
  - id: reads
    match: { effect: read }
    outcome: allow
`;

describe('parsePolicy', () => {
  it('reads rules in order, normalises single values to lists, and defaults the default to deny', () => {
    const p = parsePolicy(GOOD, 'policy.yaml');
    assert.equal(p.default, 'deny');
    assert.deepEqual(
      p.rules.map((r) => r.id),
      ['big-refunds', 'reads'],
    );
    assert.deepEqual(p.rules[0]!.match, { tool: ['issue_refund', 'payments.*'], destructive: true });
    assert.deepEqual(p.rules[1]!.match, { effect: ['read'] });
    assert.equal(p.rules[0]!.when?.source, 'args.amount_usd > 20');
    assert.equal(parsePolicy('rules: []', 'p.yaml').default, 'deny');
    assert.equal(parsePolicy('default: allow', 'p.yaml').default, 'allow');
  });

  it('hashes the normalised document: a scalar and a one-item list are the same policy, JSON and YAML alike', () => {
    const a = parsePolicy('rules: [{id: r, match: {tool: x}, outcome: deny}]', 'a.yaml');
    const b = parsePolicy('{"rules": [{"id": "r", "match": {"tool": ["x"]}, "outcome": "deny"}]}', 'b.json');
    assert.equal(a.hash, b.hash);
    assert.match(a.hash, /^sha256:[0-9a-f]{64}$/);
    const c = parsePolicy('rules: [{id: r, match: {tool: x}, outcome: allow}]', 'c.yaml');
    assert.notEqual(a.hash, c.hash);
    assert.equal(
      policyFromValue({ rules: [{ id: 'r', match: { tool: 'x' }, outcome: 'deny' }] }).hash,
      a.hash,
    );
  });

  it('names file, line, column and field for a bad condition, pointing inside the string', () => {
    const [p] = problemsOf('rules:\n  - id: r\n    when: args.amount_usd > > 3\n    outcome: deny\n');
    assert.equal(p!.field, 'rules[0].when');
    assert.equal(p!.line, 3);
    assert.equal(p!.column, 29);
    assert.match(p!.message, /invalid condition/);
  });

  it('rejects paths outside the policy facts with the list of valid roots', () => {
    const [p] = problemsOf('rules: [{id: r, when: payload.amount > 3, outcome: deny}]');
    assert.match(p!.message, /unknown field "payload.amount".*args\.<name>/);
    const [q] = problemsOf('rules: [{id: r, when: tool.colour == "red", outcome: deny}]');
    assert.match(q!.message, /tool has tool\.name, tool\.destructive/);
  });

  it('reports every problem at once, each at its field', () => {
    const problems = problemsOf(`
default: maybe
rules:
  - id: a
    outcome: permit
  - id: a
    outcome: allow
    channel: slack
  - id: b
    match: { tool: "pay ments", effect: [read, delete], statuz: LIVE, status: Live }
    outcome: deny
  - outcome: deny
`);
    const byField = Object.fromEntries(problems.map((p) => [p.field, p.message]));
    assert.match(byField.default!, /expected allow or deny, got "maybe"/);
    assert.match(byField['rules[0].outcome']!, /expected allow, deny, require_approval, got "permit"/);
    assert.match(byField['rules[1].id']!, /duplicate rule id "a" \(also rules\[0\]\)/);
    assert.match(byField['rules[1].channel']!, /only a require_approval rule has a channel/);
    assert.match(byField['rules[2].match.tool']!, /tool name or prefix pattern/);
    assert.match(byField['rules[2].match.effect[1]']!, /one of read, write, external, got "delete"/);
    assert.match(byField['rules[2].match.statuz']!, /unknown field; did you mean "status"\?/);
    assert.match(byField['rules[2].match.status']!, /one of DRAFT/);
    assert.match(byField['rules[3].id']!, /is missing/);
    assert.ok(problems.every((p) => p.file === 'policy.yaml' && typeof p.line === 'number'));
  });

  it('reports YAML syntax errors and duplicate keys with their line', () => {
    const [dup] = problemsOf('rules: []\nrules: []\n');
    assert.match(dup!.message, /duplicate key/);
    assert.equal(dup!.line, 2);
    assert.ok(problemsOf('rules: [\n').length > 0);
  });

  it('rejects a top-level value that is not a mapping and an empty tool list', () => {
    assert.match(problemsOf('- a\n')[0]!.message, /expected a mapping/);
    assert.match(
      problemsOf('rules: [{id: r, match: {tool: []}, outcome: deny}]')[0]!.message,
      /non-empty list/,
    );
  });

  it('policyFromValue validates objects too, without line numbers', () => {
    assert.throws(
      () => policyFromValue({ rules: [{ id: 'r', outcome: 'nope' }] }),
      (e: unknown) => isKeelError(e) && e.code === 'policy_invalid' && /rules\[0\]\.outcome/.test(e.message),
    );
  });
});
