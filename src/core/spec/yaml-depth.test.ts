/**
 * The YAML depth limit holds before anything recursive reads the text: every shape (compact
 * sequences, flow sequences and mappings, block mappings, pairs in flow sequences, aliases of
 * aliases) is refused past maxDepth with the field and the place named, at 33 levels and at
 * 100,000 alike, and the measures agree with the value's own depth on any value (property).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { Composer, Parser, stringify } from 'yaml';
import { DEEP_SPEC_HEAD, DEEP_YAML_SHAPES, deepestFitting, deepSpecText } from '../../testing/deep-yaml.ts';
import { ErrorCode, isKeelError, type KeelError } from '../errors.ts';
import { measureValue, SPEC_LIMITS } from './input-limits.ts';
import { parseSpec, parseYamlWith } from './parse-spec.ts';
import { yamlNodeBreach, yamlTokenBreach } from './yaml-depth.ts';

const HEAD = DEEP_SPEC_HEAD;
const SHAPES = DEEP_YAML_SHAPES;

function refusal(text: string): KeelError {
  try {
    parseSpec(text, 'deep.yaml');
  } catch (e) {
    assert.ok(isKeelError(e), String(e));
    return e;
  }
  return assert.fail('expected a refusal');
}

/** The depth of the value under `args.a` a shape gives, as measured on the value. */
const fieldOfDepth = (shape: string) =>
  shape === 'flow mapping' || shape === 'block mapping'
    ? /^steps\[0\]\.args\.a(\.[a-z0-9]+)+$/
    : /^steps\[0\]\.args\.a(\[0\]|\.a)+$/;

describe('the YAML depth limit (issue 26)', () => {
  for (const [shape, make] of Object.entries(SHAPES)) {
    it(`${shape}: 32 levels pass the limit, 33, 3,000 and 100,000 (or as deep as fits) are payload_too_large naming maxDepth and the field`, () => {
      // 3 levels above args.a (steps, [0], args) and args.a's own value: 28 more fit in 32.
      const fits = `${HEAD}${make(28)}\n`;
      const v = refusalOrValue(fits);
      assert.equal(v, 'accepted', `${shape} at 32 levels`);
      for (const n of [30, 3_000, 100_000].map((n) => deepestFitting(shape, n))) {
        const text = `${HEAD}${make(n)}\n`;
        const e = refusal(text);
        assert.equal(e.code, ErrorCode.payloadTooLarge, `${shape} ${n}: ${e.message}`);
        assert.equal(e.details.limit, 'maxDepth', `${shape} ${n}`);
        assert.match(String(e.details.field), fieldOfDepth(shape), `${shape} ${n}: ${e.message}`);
        assert.match(
          e.message,
          /^deep\.yaml:\d+:\d+: steps\[0\]\.args\.a.*: more than 32 levels of nesting \(limit maxDepth\)$/,
        );
        assert.equal(typeof e.details.line, 'number');
      }
    });
  }

  it('is decided before anything recursive runs: a 100,000-deep text is refused on a small stack', async () => {
    // A worker with a stack of 1 MiB: far too small for the parser's composition (or any visit) to
    // get 100,000 levels deep, ample for the iterative measures.
    const texts = Object.entries(SHAPES)
      .map(([shape]) => deepSpecText(shape, 100_000))
      .filter((t) => Buffer.byteLength(t) <= SPEC_LIMITS.maxBytes);
    assert.equal(texts.length, Object.keys(SHAPES).length);
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const entry = JSON.stringify(new URL('../../testing/yaml-depth-worker.ts', import.meta.url).href);
    const w = new Worker(`import(${tsx}).then((t) => { t.register(); return import(${entry}); })`, {
      eval: true,
      workerData: texts,
      resourceLimits: { stackSizeMb: 1 },
    });
    const got = await new Promise<unknown>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    assert.deepEqual(
      got,
      texts.map(() => 'payload_too_large maxDepth named'),
    );
  });

  it('aliases of aliases: refused past the limit once expanded, before the document is converted', () => {
    // Each anchor nests 20 levels around the previous one: the fourth is 80 deep once expanded.
    let text = 'id: deep\nversion: 1\nstatus: DRAFT\ntriggers: []\nx-defs:\n';
    text += `  a0: &a0 ${'['.repeat(20)}1${']'.repeat(20)}\n`;
    for (let i = 1; i < 4; i++) text += `  a${i}: &a${i} ${'['.repeat(20)}*a${i - 1}${']'.repeat(20)}\n`;
    text += 'steps:\n  - tool: core.noop\n    args:\n      a: *a3\n';
    const e = refusal(text);
    assert.equal(e.code, ErrorCode.payloadTooLarge, e.message);
    assert.equal(e.details.limit, 'maxDepth');
    // Down the deepest branch (steps[0].args.a, 83 levels), located at the alias it goes through.
    assert.match(e.message, /^deep\.yaml:13:10: steps\[0\]\.args\.a(\[0\])+: more than 32 levels/);
  });

  it('an alias inside its own anchor is not deep: validation names it', () => {
    const e = refusal(
      'id: deep\nversion: 1\nstatus: DRAFT\ntriggers: []\nsteps: &s\n  - tool: core.noop\n    args: {a: *s}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    assert.equal(e.code, ErrorCode.specInvalid, e.message);
    assert.match(JSON.stringify(e.details), /refers to itself/);
  });

  it('an alias bomb is measured once per node, not once per expansion', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 30; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    // 30 levels of 10 aliases each: 10^30 values expanded, 31 levels deep (within 32, under 33 no).
    const tokens = [...new Parser().parse(lines.join('\n'))];
    assert.equal(yamlTokenBreach(tokens, 32), undefined);
    const [doc] = [...new Composer().compose(tokens)];
    assert.equal(yamlNodeBreach(doc!, 32), undefined);
    assert.deepEqual(yamlNodeBreach(doc!, 30)?.path.slice(0, 1), ['a29']);
  });

  it('agrees with the value’s depth on any value, written in block or flow style (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 7 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        (v, flow, max) => {
          const text = stringify(v, flow ? { collectionStyle: 'flow' } : {});
          const deep = measureValue(v, { ...SPEC_LIMITS, maxDepth: max, maxKeys: 1e9 })?.limit === 'maxDepth';
          const tokens = [...new Parser().parse(text)];
          const [doc] = [...new Composer().compose(tokens)];
          const byTokens = yamlTokenBreach(tokens, max) !== undefined;
          const byNodes = yamlNodeBreach(doc!, max) !== undefined;
          assert.equal(byNodes, deep, text);
          // The tokens never count more levels than the value has.
          if (byTokens) assert.ok(deep, text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the same limit guards every YAML document (a tools file read through parseYamlWith)', () => {
    const text = `tools:\n  - name: t\n    schema:\n      ${'- '.repeat(3000)}1\n`;
    assert.throws(
      () => parseYamlWith(text, 'tools.yaml', (_c, v) => v),
      (e: KeelError) =>
        e.code === ErrorCode.payloadTooLarge && e.details.field === `tools[0].schema${'[0]'.repeat(29)}`,
    );
  });
});

function refusalOrValue(text: string): string {
  try {
    parseSpec(text, 'deep.yaml');
    return 'accepted';
  } catch (e) {
    return isKeelError(e) && e.code === ErrorCode.payloadTooLarge ? `refused: ${e.message}` : 'accepted';
  }
}
