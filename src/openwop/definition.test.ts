import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isKeelError } from '../core/errors.ts';
import { validateSpec } from '../core/spec/index.ts';
import { compileDefinition, parseDefinition, runInputs, topologicalOrder } from './definition.ts';
import { fixtureDefinitions } from './fixtures.ts';

const node = (id: string, typeId = 'core.noop', extra: Record<string, unknown> = {}) => ({
  id,
  typeId,
  name: id,
  position: { x: 0, y: 0 },
  config: {},
  inputs: {},
  ...extra,
});
const def = (nodes: unknown[], edges: unknown[] = [], variables: unknown = []) => ({
  id: 'wf',
  name: 'wf',
  version: '1',
  nodes,
  edges,
  variables,
  triggers: [],
  metadata: {},
  settings: {},
});
const edge = (a: string, b: string, extra: Record<string, unknown> = {}) => ({
  id: `${a}-${b}`,
  sourceNodeId: a,
  targetNodeId: b,
  ...extra,
});

function problemsOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === 'spec_invalid', String(e));
    return e.details.problems as { field: string; message: string }[];
  }
  assert.fail('expected spec_invalid');
}

test('every fixture compiles to a valid spec whose steps follow the edges', () => {
  for (const d of fixtureDefinitions().values()) {
    const spec = validateSpec(compileDefinition(d), d.id, { knownTool: () => true });
    assert.equal(spec.steps.length, d.nodes.length, d.id);
    const pos = new Map(spec.steps.map((s, i) => [s.name, i]));
    for (const e of d.edges)
      assert.ok(
        pos.get(e.sourceNodeId)! < pos.get(e.targetNodeId)!,
        `${d.id}: ${e.sourceNodeId} before ${e.targetNodeId}`,
      );
  }
});

test('ports compile to templates: variables read run inputs, connections read step outputs', () => {
  const d = parseDefinition(
    def(
      [
        node('a', 'core.identity', {
          inputs: { v: { type: 'variable', variableName: 'msg' }, s: { type: 'static', value: 3 } },
        }),
        node('b', 'core.identity', { inputs: { x: { type: 'connection', nodeId: 'a', outputKey: 'v' } } }),
      ],
      [edge('a', 'b')],
      [{ name: 'msg', type: 'string', defaultValue: 'hi' }],
    ),
  );
  const spec = compileDefinition(d) as {
    steps: { args: Record<string, unknown> }[];
    inputDefaults: Record<string, unknown>;
  };
  assert.deepEqual(spec.steps[0]!.args, { v: '{{event.payload.inputs.msg}}', s: 3 });
  assert.deepEqual(spec.steps[1]!.args, { x: '{{steps.a.output.v}}' });
  assert.deepEqual(spec.inputDefaults, { msg: 'hi' });
  assert.deepEqual(runInputs(spec.inputDefaults, {}), { msg: 'hi' });
  assert.deepEqual(
    runInputs(spec.inputDefaults, { msg: 'yo', nonce: 'n' }),
    { msg: 'yo', nonce: 'n' },
    'inputs override defaults; undeclared keys kept',
  );
});

test('what Keel cannot run is refused, naming the field', () => {
  const cyc = problemsOf(() =>
    topologicalOrder(parseDefinition(def([node('a'), node('b')], [edge('a', 'b'), edge('b', 'a')]))),
  );
  assert.equal(cyc[0]!.field, 'edges');
  assert.match(cyc[0]!.message, /cycle through a, b/);
  const p = problemsOf(() =>
    parseDefinition(
      def(
        [
          node('a', 'Bad Type'),
          node('a'),
          node('c', 'core.noop', { inputs: { x: { type: 'expression', expression: '1+1' } } }),
        ],
        [
          edge('a', 'zz'),
          edge('a', 'c', { triggerRule: 'any_failed' }),
          edge('a', 'c', { condition: { type: 'truthy' } }),
        ],
      ),
    ),
  );
  const fields = p.map((x) => x.field);
  for (const f of [
    'nodes[0].typeId',
    'nodes[1].id',
    'nodes[2].inputs.x.type',
    'edges[0].targetNodeId',
    'edges[1].triggerRule',
    'edges[2].condition',
  ])
    assert.ok(fields.includes(f), `${f} in ${fields.join(', ')}`);
  assert.equal(problemsOf(() => parseDefinition([]))[0]!.field, '(definition)');
});

test('property: the order respects every edge of any acyclic graph, and keeps definition order among ties', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 12 })
        .chain((n) =>
          fc.tuple(
            fc.constant(n),
            fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }),
            fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
          ),
        ),
      ([n, pairs, perm]) => {
        // Edges only from a lower to a higher rank in a random permutation: always acyclic.
        const rank = new Map(perm.map((v, i) => [v, i]));
        const edges = pairs
          .filter(([a, b]) => rank.get(a)! < rank.get(b)!)
          .map(([a, b]) => edge(`n${a}`, `n${b}`));
        const d = parseDefinition(
          def(
            [...Array(n).keys()].map((i) => node(`n${i}`)),
            edges,
          ),
        );
        const order = topologicalOrder(d);
        assert.equal(order.length, n);
        const pos = new Map(order.map((id, i) => [id, i]));
        for (const e of edges) assert.ok(pos.get(e.sourceNodeId)! < pos.get(e.targetNodeId)!);
        if (edges.length === 0)
          assert.deepEqual(
            order,
            [...Array(n).keys()].map((i) => `n${i}`),
          );
      },
    ),
  );
});

test("a fan-out joined on one node with all_success compiles to a parallel step (OpenWOP's branching-workflow sample); any other shape stays a chain", () => {
  const all = { triggerRule: 'all_success' };
  const branching = parseDefinition(
    def(
      [
        node('source'),
        node('branchA', 'local.demo.up'),
        node('branchB', 'local.demo.ai'),
        node('merge', 'core.flow.merge'),
        node('sink'),
      ],
      [
        edge('source', 'branchA'),
        edge('source', 'branchB'),
        edge('branchA', 'merge', all),
        edge('branchB', 'merge', all),
        edge('merge', 'sink'),
      ],
    ),
  );
  const compiled = compileDefinition(branching);
  const spec = validateSpec(compiled, 'wf', { knownTool: () => true });
  assert.deepEqual(
    spec.steps.map((s) => s.name),
    ['source', 'source_branches', 'merge', 'sink'],
  );
  assert.deepEqual((compiled as { steps: unknown[] }).steps[1], {
    name: 'source_branches',
    parallel: {
      join: 'all',
      branches: {
        branchA: [{ name: 'branchA', tool: 'local.demo.up', args: {} }],
        branchB: [{ name: 'branchB', tool: 'local.demo.ai', args: {} }],
      },
    },
  });
  assert.equal((compiled as { limits: { maxSteps: number } }).limits.maxSteps, 5);
  // Chains of two in a branch are kept whole.
  const longer = compileDefinition(
    parseDefinition(
      def(
        [node('s'), node('a1'), node('a2'), node('b1'), node('j')],
        [edge('s', 'a1'), edge('a1', 'a2'), edge('s', 'b1'), edge('a2', 'j', all), edge('b1', 'j', all)],
      ),
    ),
  ) as { steps: { name: string; parallel?: { branches: Record<string, { name: string }[]> } }[] };
  assert.deepEqual(
    Object.values(longer.steps[1]!.parallel!.branches).map((b) => b.map((x) => x.name)),
    [['a1', 'a2'], ['b1']],
  );
  // A join edge without all_success, or branches that never join, compile to a chain.
  for (const edges of [
    [edge('s', 'a'), edge('s', 'b'), edge('a', 'j', all), edge('b', 'j')],
    [edge('s', 'a'), edge('s', 'b'), edge('a', 'j', all)],
  ]) {
    const nodes = [node('s'), node('a'), node('b'), node('j')];
    const chain = compileDefinition(parseDefinition(def(nodes, edges))) as { steps: { name: string }[] };
    assert.deepEqual(
      chain.steps.map((s) => s.name),
      ['s', 'a', 'b', 'j'],
    );
  }
});
