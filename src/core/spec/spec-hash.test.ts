import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { isDigest } from '../canonical/index.ts';
import { parseSpec } from './parse-spec.ts';
import { specHash } from './spec-hash.ts';
import { validateSpec } from './validate-spec.ts';
import { WORKFLOW_STATUSES, type WorkflowSpec } from './workflow-spec.ts';

const text = fc
  .string({ unit: 'binary', maxLength: 12 })
  .filter((s) => !/[\uD800-\uDFFF]/u.test(s))
  .filter((s) => !s.includes('{'));
const argValue = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 100 + 0),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(text, tie('v'), { maxKeys: 3 }),
  ),
})).v;

const specArb: fc.Arbitrary<WorkflowSpec> = fc
  .record({
    id: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/),
    version: fc.integer({ min: 1, max: 1000 }),
    status: fc.constantFrom(...WORKFLOW_STATUSES),
    description: fc.option(text, { nil: undefined }),
    triggers: fc.array(fc.record({ event: text.filter((s) => s !== '') }), { maxLength: 2 }),
    steps: fc.uniqueArray(
      fc.record({
        name: fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
        tool: text.filter((s) => s !== ''),
        args: fc.dictionary(text, argValue, { maxKeys: 4 }),
      }),
      { minLength: 1, maxLength: 3, selector: (s) => s.name },
    ),
    cents: fc.integer({ min: 0, max: 10_000_000 }),
  })
  .map(({ cents, description, ...s }) =>
    validateSpec(
      {
        ...s,
        ...(description === undefined ? {} : { description }),
        limits: { maxSteps: 10, maxCostUsd: cents / 100 },
      },
      'gen',
    ),
  );

/** Same content, keys inserted in a different (reversed) order at every level. */
function reverseKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) {
    Object.defineProperty(out, k, {
      value: reverseKeys((v as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe('specHash', () => {
  it('is a sha256 digest that ignores status but not content', () => {
    const spec = validateSpec(
      {
        id: 'a',
        version: 1,
        status: 'DRAFT',
        steps: [{ name: 's', tool: 't' }],
        limits: { maxSteps: 1, maxCostUsd: 0 },
      },
      'f',
    );
    assert.ok(isDigest(specHash(spec)));
    assert.equal(specHash({ ...spec, status: 'LIVE' }), specHash(spec));
    assert.notEqual(specHash({ ...spec, version: 2 }), specHash(spec));
    assert.notEqual(specHash({ ...spec, limits: { maxSteps: 1, maxCostUsd: 0.01 } }), specHash(spec));
  });

  it('is independent of key order and of YAML or JSON formatting', () => {
    fc.assert(
      fc.property(specArb, fc.integer({ min: 0, max: 4 }), (spec, indent) => {
        const h = specHash(spec);
        const reordered = reverseKeys(spec);
        assert.equal(specHash(reordered as WorkflowSpec), h);
        const fromJson = parseSpec(JSON.stringify(reordered, null, indent), 'spec.json');
        const fromYaml = parseSpec(stringify(reordered, { indent: indent + 2 }), 'spec.yaml');
        const fromFlowYaml = parseSpec(stringify(spec, { collectionStyle: 'flow' }), 'spec.yaml');
        assert.deepEqual(fromJson, spec);
        assert.deepEqual(fromYaml, spec);
        assert.equal(specHash(fromJson), h);
        assert.equal(specHash(fromYaml), h);
        assert.equal(specHash(fromFlowYaml), h);
      }),
      { numRuns: 200 },
    );
  });
});
