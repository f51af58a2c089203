/**
 * fast-check grammars of what people hand Keel: workflow specs (as values, JSON text and YAML
 * text, mostly well formed with one thing wrong), events, and raw HTTP requests. Shared by the
 * fuzz tests of the HTTP surface and the CLI. Each grammar leans towards inputs that get past the
 * first checks (a valid-looking spec with one bad template), and mixes in the hostile ones: names
 * inherited from Object.prototype, keys given twice, alias bombs, deep nesting, long strings, lone
 * surrogates, wrong media types.
 */
import fc from 'fast-check';
import { stringify as yamlText } from 'yaml';

const PROTO = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype'];

/** Text a hostile or careless author might put anywhere a name or string goes. */
export const oddString = fc.oneof(
  { arbitrary: fc.string({ maxLength: 12 }), weight: 4 },
  fc.constantFrom(...PROTO, '', ' ', '../x', '..%2F..', 'a/b', '%ZZ', '\u0000', '\ud800', 'é', '{{', '}}'),
  fc.constantFrom('x'.repeat(600), 'y'.repeat(70_000)),
);

/** A template between braces: documented paths, wrong ones, and inherited names. */
export const templatePath = fc.oneof(
  fc.constantFrom(
    'event.subject',
    'event.id',
    'event.payload',
    'event.payload.a',
    'event.payload.a.b',
    'event.payload.list[0]',
    'clock.now',
    'random.float',
    'random.hex',
    'id.new',
    'env.GREETING',
    'env.NOT_LISTED',
    'steps.first.output',
    'steps.first.output.echo',
    'steps.later.output',
    'steps.missing.output',
    'clock.later',
    'event.nope',
  ),
  fc
    .constantFrom(...PROTO)
    .chain((p) => fc.constantFrom(p, `event.payload.${p}`, `event.${p}`, `clock.${p}`, `steps.${p}.output`)),
  fc.string({ maxLength: 10 }),
);

export const templated = fc.oneof(
  templatePath.map((p) => `{{${p}}}`),
  fc.tuple(fc.string({ maxLength: 5 }), templatePath).map(([t, p]) => `${t}{{ ${p} }}!`),
  fc.constantFrom('{{', '{{ event.subject', '{{}}', '}} {{'),
);

const literal = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(2 ** 53, -0, 1e300),
);

/** A step argument value: literals, templates, nesting, and now and then a model slot. */
export const argValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { arbitrary: literal, weight: 3 },
    { arbitrary: templated, weight: 4 },
    { arbitrary: fc.array(tie('value'), { maxLength: 3 }), weight: 1 },
    { arbitrary: fc.dictionary(oddString, tie('value'), { maxKeys: 3 }), weight: 1 },
    { arbitrary: fc.constant({ $model: { prompt: 'pick one', schema: { type: 'string' } } }), weight: 1 },
  ),
})).value;

// Never core.delay: a fuzzed delay could hold a run (and the test) for minutes.
const TOOLS = ['core.noop', 'core.identity', 'core.approvalGate', 'core.conformance.fail', 'nope', ''];

const step = fc.record(
  {
    name: fc.oneof({ arbitrary: fc.constantFrom('first', 'second', 'later'), weight: 4 }, oddString),
    tool: fc.constantFrom(...TOOLS),
    args: fc.oneof(
      {
        arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'title', ...PROTO), argValue, { maxKeys: 4 }),
        weight: 5,
      },
      fc.constant(null),
      literal,
    ),
  },
  { requiredKeys: ['name', 'tool'] },
);

const condition = fc.oneof(
  fc.constantFrom(
    'payload.a == 1',
    'subject != "x" and not (payload.b < 2)',
    'payload.a ===',
    '(((',
    'payload.__proto__ == 1',
    'constructor == 1',
  ),
  fc.string({ maxLength: 20 }),
);

/** A workflow spec value: well formed most of the time, with any one field replaced by junk. */
export const specValue: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    id: fc.oneof({ arbitrary: fc.constantFrom('fz-a', 'fz-b', 'fz-c'), weight: 6 }, oddString),
    version: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3 }), weight: 6 }, literal),
    status: fc.oneof({ arbitrary: fc.constant('DRAFT'), weight: 8 }, fc.constantFrom('LIVE', 'nope', 1)),
    triggers: fc.oneof(
      {
        arbitrary: fc.array(
          fc.record({ event: fc.constant('ping'), when: condition }, { requiredKeys: ['event'] }),
          { maxLength: 2 },
        ),
        weight: 5,
      },
      literal,
    ),
    env: fc.constantFrom(['GREETING'], [], ['__proto__'], 'GREETING'),
    steps: fc.oneof({ arbitrary: fc.array(step, { minLength: 1, maxLength: 3 }), weight: 8 }, literal),
    limits: fc.oneof(
      {
        arbitrary: fc.record({
          maxSteps: fc.constantFrom(1, 3, 5, 0, -1, 1.5),
          maxCostUsd: fc.constantFrom(0, 10, 0.001, -1, 'x'),
        }),
        weight: 6,
      },
      literal,
    ),
    extra: fc.option(fc.dictionary(oddString, literal, { maxKeys: 2 }), { nil: undefined }),
  })
  .map(({ extra, ...spec }) => ({ ...spec, ...(extra ?? {}) }));

/** Hostile YAML texts: keys that are one key once read, alias bombs, tags, nesting, size. */
export const hostileYaml = fc.constantFrom(
  'id: a\nid: b\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  'id: fz-a\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {1: x, "1": y}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  `id: fz-a\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {a: &a [${Array(4000).fill('x').join(',')}], b: *a, c: *a}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n`,
  `a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`).join('\n')}\n`,
  'id: !!binary aGk=\n',
  `id: fz-a\nversion: 1\nstatus: DRAFT\nsteps: [{name: s, tool: core.noop, args: {a: ${'['.repeat(60)}${']'.repeat(60)}}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n`,
  `${Array.from({ length: 12_000 }, (_, i) => `k${i}: 1`).join('\n')}\n`,
  'a: &a [*a]\n',
  '- just\n- a list\n',
  '{"id": "fz-a", "id": "fz-b"}',
  '? [a]\n: 1\n',
  '---\nid: a\n---\nid: b\n',
  '\ufeffid: fz-a\n',
);

/** A spec as the text a person would write: YAML or JSON of a spec value, or hostile YAML. */
export const specText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: specValue.map((v) => yamlText(v)), weight: 4 },
  { arbitrary: specValue.map((v) => JSON.stringify(v)), weight: 2 },
  { arbitrary: hostileYaml, weight: 3 },
);

/** A JSON value nested `depth` levels, for depth limits (built iteratively). */
export function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

/** JSON text nested `depth` levels (too deep for JSON.stringify, which recurses). */
export function nestedText(depth: number): string {
  return `${'{"a": ['.repeat(depth)}1${']}'.repeat(depth)}`;
}

const payload = fc.oneof(
  {
    arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'list', ...PROTO), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 4,
    }),
    weight: 8,
  },
  fc.constantFrom(nested(80), { a: nested(2_000) }, { a: 'z'.repeat(200_000) }, []),
  literal,
);

/** An event as a client sends it: mostly valid, with any field replaced by junk now and then. */
export const eventValue: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    id: fc.oneof({ arbitrary: fc.uuid(), weight: 6 }, oddString, literal),
    type: fc.oneof({ arbitrary: fc.constant('ping'), weight: 6 }, oddString),
    time: fc.oneof({ arbitrary: fc.constant('2026-01-31T12:00:00Z'), weight: 6 }, oddString),
    tenant: fc.constantFrom('acme', 'globex', 'x'.repeat(100_000)),
    source: oddString,
    subject: fc.oneof(oddString, fc.constantFrom(['x'.repeat(100_000)])),
    payload,
    extra: literal,
  },
  { requiredKeys: ['id', 'type', 'time'] },
);
