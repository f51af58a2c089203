import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, isKeelError } from '../errors.ts';
import { toolSteps } from './flow-steps.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';
import type { SpecOptions } from './workflow-spec.ts';

function base(): Record<string, unknown> {
  return {
    id: 'refund-under-50',
    version: 1,
    status: 'DRAFT',
    triggers: [{ event: 'refund.requested', when: 'payload.amount_usd < 50' }],
    steps: [
      { name: 'lookup', tool: 'get_order', args: { order: '{{ event.subject }}' } },
      { name: 'refund', tool: 'issue_refund', args: { amount_usd: '{{ steps.lookup.output.total }}' } },
    ],
    limits: { maxSteps: 4, maxCostUsd: 50 },
  };
}

function problemsOf(value: unknown, options?: SpecOptions): SpecProblem[] {
  try {
    validateSpec(value, 'spec.json', options);
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, `unexpected error ${String(e)}`);
    return e.details.problems as SpecProblem[];
  }
  return assert.fail('expected the spec to be invalid');
}

/** Applies `edit` to a fresh base spec and expects exactly one problem on `field` matching `message`. */
function expectProblem(
  edit: (s: Record<string, unknown>) => void,
  field: string,
  message: RegExp,
  options?: SpecOptions,
) {
  const s = base();
  edit(s);
  const problems = problemsOf(s, options);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.equal(problems[0]!.field, field);
  assert.match(problems[0]!.message, message);
  assert.equal(problems[0]!.line, undefined);
}

const step = (s: Record<string, unknown>, i: number) => (s.steps as Record<string, unknown>[])[i]!;
const args = (s: Record<string, unknown>, i: number) => step(s, i).args as Record<string, unknown>;

describe('validateSpec', () => {
  it('returns a clean spec with defaults applied and optional null treated as absent', () => {
    const s = base();
    s.triggers = null;
    delete step(s, 0).args;
    s.description = null;
    const spec = validateSpec(s, 'spec.json');
    assert.deepEqual(spec.triggers, []);
    assert.deepEqual(toolSteps(spec)[0]!.args, {});
    assert.equal('description' in spec, false);
    assert.equal('env' in spec, false);
  });

  it('detaches the result from the input', () => {
    const s = base();
    const spec = validateSpec(s, 'spec.json');
    args(s, 0).order = 'changed';
    assert.equal(toolSteps(spec)[0]!.args.order, '{{ event.subject }}');
  });

  it('throws one spec_invalid with every problem and the first in the message', () => {
    const s = base();
    s.id = 'Bad Id';
    s.version = 0;
    s.status = 'live';
    try {
      validateSpec(s, 'spec.json');
      assert.fail('expected a throw');
    } catch (e) {
      assert.ok(isKeelError(e));
      assert.equal(e.code, ErrorCode.specInvalid);
      assert.match(e.message, /^spec\.json: id: expected an id .*got "Bad Id" \(\+2 more\)$/);
      assert.equal((e.details.problems as SpecProblem[]).length, 3);
    }
  });

  it('requires a mapping at the top level', () => {
    for (const v of [null, [], 'id: x', 42]) {
      const [p] = problemsOf(v);
      assert.equal(p!.field, '');
      assert.match(p!.message, /expected a workflow spec mapping/);
    }
  });

  it('reports unknown keys everywhere, with a suggestion for typos', () => {
    expectProblem((s) => Object.assign(s, { stpes: [] }), 'stpes', /did you mean "steps"/);
    expectProblem((s) => Object.assign(s, { owner: 'me' }), 'owner', /unknown field; expected id, version/);
    expectProblem(
      (s) => Object.assign((s.triggers as object[])[0]!, { wen: 'x' }),
      'triggers[0].wen',
      /"when"/,
    );
    expectProblem((s) => Object.assign(step(s, 1), { retries: 3 }), 'steps[1].retries', /unknown field/);
    expectProblem((s) => Object.assign(s.limits as object, { maxCost: 1 }), 'limits.maxCost', /"maxCostUsd"/);
  });

  it('checks id, version and status', () => {
    expectProblem((s) => delete s.id, 'id', /is missing/);
    for (const id of ['Refund', '-x', '', 'a'.repeat(129), 'a b', 7]) {
      expectProblem((s) => Object.assign(s, { id }), 'id', /expected an id/);
    }
    validateSpec({ ...base(), id: `9${'a._-'.repeat(31)}abc` }, 'spec.json');
    for (const version of [0, -1, 1.5, '1', 2 ** 53, null]) {
      expectProblem((s) => Object.assign(s, { version }), 'version', /positive whole number|is missing/);
    }
    // A store's integer column holds at most 2^31 - 1 (issue 26): past it, refused as bad input here.
    for (const version of [2 ** 31, 2 ** 40])
      expectProblem((s) => Object.assign(s, { version }), 'version', /of at most 2147483647, got \d+$/);
    for (const maxSteps of [2 ** 31])
      expectProblem(
        (s) => Object.assign(s, { limits: { ...(s.limits as object), maxSteps } }),
        'limits.maxSteps',
        /of at most 2147483647/,
      );
    assert.equal(validateSpec({ ...base(), version: 2 ** 31 - 1 }, 'spec.json').version, 2 ** 31 - 1);
    expectProblem(
      (s) => Object.assign(s, { status: 'live' }),
      'status',
      /^expected one of DRAFT, TESTING, SHADOW, LIVE, AUTONOMOUS, got "live"$/,
    );
    expectProblem((s) => delete s.status, 'status', /is missing; expected one of DRAFT/);
  });

  it('checks description', () => {
    expectProblem((s) => Object.assign(s, { description: 3 }), 'description', /expected a string, got 3/);
    assert.equal(validateSpec({ ...base(), description: '' }, 'f').description, '');
  });

  it('checks triggers and their conditions', () => {
    expectProblem(
      (s) => Object.assign(s, { triggers: {} }),
      'triggers',
      /expected a list of triggers, got a mapping/,
    );
    expectProblem((s) => Object.assign(s, { triggers: ['x'] }), 'triggers[0]', /expected a mapping, got "x"/);
    expectProblem(
      (s) => Object.assign(s, { triggers: [{ event: '' }] }),
      'triggers[0].event',
      /expected an event type/,
    );
    expectProblem((s) => Object.assign(s, { triggers: [{}] }), 'triggers[0].event', /is missing/);
    expectProblem(
      (s) => Object.assign(s, { triggers: [{ event: 'e', when: 'payload.a <' }] }),
      'triggers[0].when',
      /invalid condition: expected a field.*\(at character 12\)/,
    );
    expectProblem(
      (s) => Object.assign(s, { triggers: [{ event: 'e', when: 'amount < 5' }] }),
      'triggers[0].when',
      /unknown field "amount"/,
    );
    const spec = validateSpec(
      { ...base(), triggers: [{ event: 'a' }, { event: 'b', when: 'subject == "x"' }] },
      'f',
    );
    assert.deepEqual(spec.triggers, [{ event: 'a' }, { event: 'b', when: 'subject == "x"' }]);
  });

  it('checks the step list, names and tools', () => {
    expectProblem((s) => delete s.steps, 'steps', /is missing; expected a non-empty list/);
    expectProblem((s) => Object.assign(s, { steps: [] }), 'steps', /got an empty list/);
    expectProblem((s) => Object.assign(s, { steps: 'x' }), 'steps', /non-empty list of steps, got "x"/);
    expectProblem((s) => (s.steps as unknown[]).push(3), 'steps[2]', /expected a mapping, got 3/);
    for (const name of ['1st', 'a-b', '', 'a.b']) {
      expectProblem((s) => Object.assign(step(s, 1), { name }), 'steps[1].name', /step name of letters/);
    }
    // A later reader of a duplicated name is not reported again.
    expectProblem(
      (s) => (s.steps as unknown[]).splice(1, 0, { name: 'lookup', tool: 't' }),
      'steps[1].name',
      /duplicate step name "lookup"/,
    );
    expectProblem(
      (s) => Object.assign(step(s, 1), { name: 'lookup', args: {} }),
      'steps[1].name',
      /duplicate step name "lookup" \(also steps\[0\]\)/,
    );
    expectProblem((s) => Object.assign(step(s, 0), { tool: '' }), 'steps[0].tool', /expected a tool name/);
    expectProblem((s) => delete step(s, 0).tool, 'steps[0].tool', /is missing/);
  });

  it('checks tools against knownTool when given', () => {
    const knownTool = (n: string) => n === 'get_order' || n === 'issue_refund';
    validateSpec(base(), 'f', { knownTool });
    expectProblem(
      (s) => Object.assign(step(s, 1), { tool: 'issue_refnd' }),
      'steps[1].tool',
      /^unknown tool "issue_refnd"$/,
      { knownTool },
    );
  });

  it('checks args are a mapping of plain JSON', () => {
    expectProblem(
      (s) => Object.assign(step(s, 0), { args: [1] }),
      'steps[0].args',
      /expected a mapping, got a list/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { n: Number.NaN }),
      'steps[0].args.n',
      /NaN is not a JSON number/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { n: [1, -0] }),
      'steps[0].args.n[1]',
      /-0 is not allowed/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { n: { big: 2 ** 60 } }),
      'steps[0].args.n.big',
      /too large/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { 'a b': '\uD800' }),
      'steps[0].args["a b"]',
      /lone surrogate/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { d: new Date(0) }),
      'steps[0].args.d',
      /not a plain JSON value/,
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectProblem(
      (s) => Object.assign(args(s, 0), { c: cyclic }),
      'steps[0].args.c.self',
      /refers to itself/,
    );
  });

  it('checks templates: syntax, roots, earlier steps and the env allow-list', () => {
    const cases: [unknown, string, RegExp][] = [
      ['{{ foo.bar }}', 'x', /unknown template root "foo"/],
      ['{{ event.payload.x', 'x', /not closed/],
      ['{{ }}', 'x', /empty template/],
      ['{{ event.payload..x }}', 'x', /is not a path/],
      ['{{ event.body }}', 'x', /unknown event field "body"/],
      ['{{ event.subject.x }}', 'x', /is a string and has no fields/],
      [{ deep: ['ok', '{{ steps.lookup.total }}'] }, 'x.deep[1]', /steps\.<name>\.output/],
      ['{{ steps.lokup.output }}', 'x', /no step named "lokup"; did you mean "lookup"\?/],
      ['{{ env.API_TOKEN }}', 'x', /env\.API_TOKEN is not allowed; add "API_TOKEN"/],
      ['{{ clock.today }}', 'x', /read as clock\.now/],
      ['{{ id.new.x }}', 'x', /read as id\.new/],
    ];
    for (const [value, field, message] of cases) {
      expectProblem((s) => Object.assign(args(s, 1), { x: value }), `steps[1].args.${field}`, message);
    }
    expectProblem(
      (s) => Object.assign(args(s, 0), { x: '{{ steps.refund.output }}' }),
      'steps[0].args.x',
      /step "refund" runs later \(steps\[1\]\); only earlier steps' output can be read/,
    );
    expectProblem(
      (s) => Object.assign(args(s, 0), { x: '{{ steps.lookup.output }}' }),
      'steps[0].args.x',
      /cannot read its own output/,
    );
    const ok = base();
    ok.env = ['API_TOKEN'];
    Object.assign(args(ok, 1), {
      all: '{{event}} {{event.payload.a[0].b}} {{steps.lookup.output.items[2]}} {{clock.now}}',
      more: ['{{random.float}}', '{{id.new}}', '{{ env.API_TOKEN }}', 'plain }} text'],
    });
    validateSpec(ok, 'f');
  });

  it('checks limits', () => {
    expectProblem(
      (s) => delete s.limits,
      'limits',
      /is missing; expected a mapping with maxSteps and maxCostUsd/,
    );
    expectProblem((s) => Object.assign(s, { limits: 5 }), 'limits', /expected a mapping, got 5/);
    expectProblem((s) => Object.assign(s, { limits: { maxCostUsd: 1 } }), 'limits.maxSteps', /is missing/);
    expectProblem(
      (s) => Object.assign(s, { limits: { maxSteps: 2.5, maxCostUsd: 1 } }),
      'limits.maxSteps',
      /positive/,
    );
    expectProblem(
      (s) => Object.assign(s, { limits: { maxSteps: 1, maxCostUsd: 1 } }),
      'limits.maxSteps',
      /1 is fewer than the 2 steps/,
    );
    expectProblem(
      (s) => Object.assign(s, { limits: { maxSteps: 2, maxCostUsd: 'fifty' } }),
      'limits.maxCostUsd',
      /^expected a number >= 0 with at most 2 decimals, got "fifty"$/,
    );
    for (const maxCostUsd of [-1, 0.295, Number.POSITIVE_INFINITY, 1e300]) {
      expectProblem(
        (s) => Object.assign(s, { limits: { maxSteps: 2, maxCostUsd } }),
        'limits.maxCostUsd',
        /at most 2 decimals/,
      );
    }
    expectProblem((s) => Object.assign(s, { limits: { maxSteps: 2 } }), 'limits.maxCostUsd', /is missing/);
    const spec = validateSpec({ ...base(), limits: { maxSteps: 2, maxCostUsd: -0 } }, 'f');
    assert.ok(Object.is(spec.limits.maxCostUsd, 0));
    assert.equal(
      validateSpec({ ...base(), limits: { maxSteps: 2, maxCostUsd: 0.29 } }, 'f').limits.maxCostUsd,
      0.29,
    );
  });

  it('checks env names', () => {
    expectProblem(
      (s) => Object.assign(s, { env: 'API' }),
      'env',
      /expected a list of environment variable names/,
    );
    expectProblem((s) => Object.assign(s, { env: ['api_key'] }), 'env[0]', /UPPER_CASE/);
    expectProblem((s) => Object.assign(s, { env: ['A', 'B', 'A'] }), 'env[2]', /duplicate name "A"/);
    assert.deepEqual(validateSpec({ ...base(), env: ['_X', 'API_2'] }, 'f').env, ['_X', 'API_2']);
  });

  it('collects every problem at once', () => {
    const s = base();
    s.version = '1';
    Object.assign(step(s, 1), { name: '', tool: '' });
    s.limits = { maxSteps: 0, maxCostUsd: -1, extra: 1 };
    s.env = [1];
    assert.deepEqual(
      problemsOf(s)
        .map((p) => p.field)
        .sort(),
      [
        'env[0]',
        'limits.extra',
        'limits.maxCostUsd',
        'limits.maxSteps',
        'steps[1].name',
        'steps[1].tool',
        'version',
      ],
    );
  });

  it('tests may expect an event not to start the version (starts: false), and then nothing of a run', () => {
    const test = (expect: unknown) => (s: Record<string, unknown>) => {
      s.tests = [
        { name: 'ignores EUR', event: { type: 'refund.requested', payload: { currency: 'EUR' } }, expect },
      ];
    };
    const ok = base();
    test({ starts: false })(ok);
    assert.deepEqual(validateSpec(ok, 'spec.json').tests?.[0]?.expect, { starts: false });
    expectProblem(test({ starts: 'no' }), 'tests[0].expect.starts', /expected true or false, got/);
    expectProblem(
      test({ starts: false, status: 'completed', steps: ['lookup'] }),
      'tests[0].expect.starts',
      /starts: false says the event starts no run, so status, steps cannot be expected of one/,
    );
    expectProblem(test({ start: false }), 'tests[0].expect.start', /unknown/i);
  });

  it('is idempotent: a validated spec validates to itself', () => {
    fc.assert(
      fc.property(
        fc.record({
          maxSteps: fc.integer({ min: 2, max: 1000 }),
          cents: fc.integer({ min: 0, max: 10_000_000 }),
        }),
        fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('{{')),
        ({ maxSteps, cents }, extra) => {
          const s = base();
          s.limits = { maxSteps, maxCostUsd: cents / 100 };
          args(s, 0).extra = JSON.parse(JSON.stringify(extra));
          let once: ReturnType<typeof validateSpec>;
          try {
            once = validateSpec(s, 'f');
          } catch {
            return; // jsonValue may hold unsafe integers, which validation rightly refuses
          }
          assert.deepEqual(validateSpec(once, 'f'), once);
        },
      ),
    );
  });
});
