import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError } from '../errors.ts';
import { isChooseStep, toolSteps, walkSteps } from './flow-steps.ts';
import { parseSpec } from './parse-spec.ts';
import { specHash } from './spec-hash.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

/** lookup; tag (if); route (choose: ask_lead | gold_reply | else refund); reply. */
function flow(): Record<string, unknown> {
  return {
    id: 'refund-desk',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'refund.requested' }],
    steps: [
      { name: 'lookup', tool: 'get_order', args: { order: '{{ event.subject }}' } },
      { name: 'tag', tool: 'add_tag', args: { tag: 'review' }, if: 'payload.refund_amount > 50' },
      {
        name: 'route',
        choose: [
          {
            when: 'payload.refund_amount > 50',
            steps: [{ name: 'ask_lead', tool: 'ask', args: { who: 'lead' } }],
          },
          {
            when: 'steps.lookup.output.tier == "gold"',
            steps: [{ name: 'gold_reply', tool: 'reply', args: { id: '{{ steps.lookup.output.id }}' } }],
          },
        ],
        else: [
          { name: 'refund', tool: 'issue_refund', args: { amount: '{{ event.payload.refund_amount }}' } },
        ],
      },
      { name: 'reply', tool: 'send_reply', args: { ticket: '{{ event.subject }}' } },
    ],
    limits: { maxSteps: 4, maxCostUsd: 50 },
  };
}

function problemsOf(value: unknown): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json');
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, `unexpected error ${String(e)}`);
    return e.details.problems as SpecProblem[];
  }
  return assert.fail('expected the spec to be invalid');
}

type Raw = Record<string, unknown>;
const steps = (s: Raw) => s.steps as Raw[];
const route = (s: Raw) => steps(s)[2]!;
const branches = (s: Raw) => route(s).choose as Raw[];

function expectProblem(edit: (s: Raw) => void, field: string, message: RegExp): void {
  const s = flow();
  edit(s);
  const problems = problemsOf(s);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.equal(problems[0]!.field, field);
  assert.match(problems[0]!.message, message);
}

describe('conditions and choices in the step list', () => {
  it('validates into a nested flow: if kept, branches and else in order, tool steps in document order', () => {
    const spec = validateSpec(flow(), 'spec.json');
    assert.equal(toolSteps(spec).find((s) => s.name === 'tag')!.if, 'payload.refund_amount > 50');
    const choice = spec.steps[2]!;
    assert.ok(isChooseStep(choice));
    assert.deepEqual(
      choice.choose.map((b) => b.when),
      ['payload.refund_amount > 50', 'steps.lookup.output.tier == "gold"'],
    );
    assert.deepEqual(
      toolSteps(spec).map((s) => s.name),
      ['lookup', 'tag', 'ask_lead', 'gold_reply', 'refund', 'reply'],
    );
    const paths: string[] = [];
    walkSteps(spec, (st, path) => paths.push(`${st.name}@${path.join('.')}`));
    assert.ok(paths.includes('refund@steps.2.else.0'), paths.join(' '));
  });

  it('keeps a spec without the new keys byte-identical in hash (no if/else keys appear)', () => {
    const plain = flow();
    plain.steps = [steps(plain)[0]!, steps(plain)[3]!];
    const spec = validateSpec(plain, 'spec.json');
    assert.deepEqual(Object.keys(spec.steps[0]!), ['name', 'tool', 'args']);
    assert.equal(specHash(spec), specHash(validateSpec(JSON.parse(JSON.stringify(plain)), 'again.json')));
  });

  it('refuses a duplicate name anywhere in the document, naming both places', () => {
    expectProblem(
      (s) => {
        ((branches(s)[1]!.steps as Raw[])[0] as Raw).name = 'lookup';
      },
      'steps[2].choose[1].steps[0].name',
      /duplicate step name "lookup" \(also steps\[0\]\)/,
    );
  });

  it('refuses unknown keys with the field path, on choices, branches and tool steps', () => {
    expectProblem((s) => (route(s).otherwise = []), 'steps[2].otherwise', /unknown field/);
    expectProblem((s) => (branches(s)[0]!.if = 'x'), 'steps[2].choose[0].if', /unknown field/);
    expectProblem((s) => (steps(s)[1]!.when = 'x'), 'steps[1].when', /unknown field/);
  });

  it('needs at least one branch; each when must parse', () => {
    expectProblem((s) => (route(s).choose = []), 'steps[2].choose', /non-empty list of branches/);
    expectProblem(
      (s) => (branches(s)[1]!.when = 'payload.a >'),
      'steps[2].choose[1].when',
      /invalid condition/,
    );
    expectProblem((s) => (steps(s)[1]!.if = 'payload..a'), 'steps[1].if', /invalid condition/);
    expectProblem(
      (s) => (branches(s)[0]!.when = 'steps.lookup.tier == 1'),
      'steps[2].choose[0].when',
      /names no step output/,
    );
  });

  it('refuses a condition reading a step that is not sure to have run before it', () => {
    expectProblem(
      (s) => (steps(s)[1]!.if = 'steps.reply.output.ok'),
      'steps[1].if',
      /steps\.reply: step "reply" runs later/,
    );
    expectProblem(
      (s) => (steps(s)[3]!.if = 'steps.tag.output.ok'),
      'steps[3].if',
      /step "tag" has an if: and may be skipped/,
    );
    expectProblem(
      (s) => (steps(s)[3]!.if = 'steps.refund.output.ok'),
      'steps[3].if',
      /step "refund" \(steps\[2\]\.else\[0\]\) is in a branch of "route" that may not be taken/,
    );
    expectProblem(
      (s) => (branches(s)[0]!.when = 'steps.ask_lead.output.ok'),
      'steps[2].choose[0].when',
      /runs later/,
    );
  });

  it('lets a template read a step of its own branch, never one of another branch', () => {
    expectProblem(
      (s) => {
        route(s).else = [
          { name: 'refund', tool: 'issue_refund', args: { note: '{{ steps.ask_lead.output.id }}' } },
        ];
      },
      'steps[2].else[0].args.note',
      /step "ask_lead" \(steps\[2\]\.choose\[0\]\.steps\[0\]\) is in another branch of "route"/,
    );
    const s = flow();
    (branches(s)[0]!.steps as Raw[]).push({
      name: 'note_lead',
      tool: 'note',
      args: { id: '{{ steps.ask_lead.output.id }}' },
      if: 'steps.ask_lead.output.ok',
    });
    s.limits = { maxSteps: 5, maxCostUsd: 50 };
    assert.equal(toolSteps(validateSpec(s, 'spec.json')).length, 7);
  });

  it('bounds nesting depth and counts maxSteps along the longest way through the branches', () => {
    const deep = flow();
    let list = steps(deep);
    for (let d = 0; d < 7; d++) {
      const inner: Raw[] = [{ name: `t${d}`, tool: 'noop', args: {} }];
      list.push({ name: `c${d}`, choose: [{ when: 'payload.a', steps: inner }] });
      list = inner;
    }
    deep.limits = { maxSteps: 40, maxCostUsd: 1 };
    const problems = problemsOf(deep);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.match(problems[0]!.field, /\.choose$/);
    assert.match(problems[0]!.message, /nested deeper than 6 levels/);
    expectProblem(
      (s) => (s.limits = { maxSteps: 3, maxCostUsd: 1 }),
      'limits.maxSteps',
      /3 is fewer than the 4 steps a run can take/,
    );
  });

  it('reports YAML problems at their line, and parses else as an empty list', () => {
    const yaml = [
      'id: desk',
      'version: 1',
      'status: DRAFT',
      'steps:',
      '  - name: route',
      '    choose:',
      '      - when: payload.a > 1',
      '        steps: []',
      '    else: []',
      '  - name: reply',
      '    tool: send_reply',
      '    if: payload.a >',
      'limits: { maxSteps: 2, maxCostUsd: 0 }',
    ].join('\n');
    try {
      parseSpec(yaml, 'desk.yaml');
      assert.fail('expected a problem');
    } catch (e) {
      assert.ok(isKeelError(e));
      const p = (e.details.problems as SpecProblem[])[0]!;
      assert.equal(p.field, 'steps[1].if');
      assert.equal(p.line, 12);
    }
    const ok = parseSpec(yaml.replace('if: payload.a >', 'if: payload.a > 2'), 'desk.yaml');
    const choice = ok.steps[0]!;
    assert.ok(isChooseStep(choice));
    assert.deepEqual(choice.else, []);
    assert.deepEqual(choice.choose[0]!.steps, []);
  });
});
