/**
 * Every documented declared source (README, "A workflow is a document": clock.now, random.float,
 * random.hex, id.new, env.NAME) read through the real system sources, in any combination, as a
 * whole value or inside text: the run completes, each value is ledgered as drawn, has its
 * documented form, and is exactly what the tool was given. (`{{random.float}}` once crashed every
 * run: the 48-bit draw asked node:crypto for one value past its range.)
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { systemSources } from '../../src/adapters/system/index.ts';
import { createKeel } from '../../src/app/index.ts';
import type { Entry } from '../../src/core/ledger/index.ts';

const SOURCES = {
  'clock.now': (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && v.endsWith('Z'),
  'random.float': (v: unknown) => typeof v === 'number' && v >= 0 && v < 1,
  'random.hex': (v: unknown) => typeof v === 'string' && /^[0-9a-f]{32}$/.test(v),
  'id.new': (v: unknown) =>
    typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(v),
  'env.GREETING': (v: unknown) => v === 'hello from the environment',
} as const;
type Source = keyof typeof SOURCES;

const keel = createKeel({
  store: ':memory:',
  sources: systemSources({ GREETING: 'hello from the environment' }),
  exposeEnv: { acme: ['GREETING'] },
});
after(() => keel.close());

let n = 0;

/** Publishes a one-step spec reading `uses` (each whole or inside text) and runs it once. */
async function runWith(uses: readonly { source: Source; inText: boolean }[]) {
  const id = `sources-${++n}`;
  const args = Object.fromEntries(
    uses.map((u, i) => [`a${i}`, u.inText ? `<{{ ${u.source} }}>` : `{{${u.source}}}`]),
  );
  const spec = {
    id,
    version: 1,
    status: 'DRAFT',
    env: ['GREETING'],
    steps: [{ name: 'echo', tool: 'core.identity', args }],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  };
  await keel.workflows.publishObject('acme', spec, 'tester');
  const event = { id: `e-${n}`, type: 'test', time: '2026-01-31T12:00:00Z' };
  const run = await keel.runs.start('acme', id, event, { live: true });
  return { run, entries: (await keel.runs.entries('acme', run.runId)) as Entry[] };
}

describe('declared sources', () => {
  test('each documented source, alone, completes a run with a value of its documented form', async () => {
    for (const source of Object.keys(SOURCES) as Source[]) {
      const { run, entries } = await runWith([{ source, inText: false }]);
      assert.equal(run.status, 'completed', `${source}: ${JSON.stringify(run)}`);
      const drawn = entries.filter((e) => e.kind === 'source.drawn');
      assert.equal(drawn.length, 1, source);
      const value = (drawn[0]!.payload as { value: unknown }).value;
      assert.ok(SOURCES[source](value), `${source} drew ${JSON.stringify(value)}`);
    }
  });

  test('any combination, whole or in text: every read is ledgered and is what the tool got', async () => {
    const use = fc.record({
      source: fc.constantFrom(...(Object.keys(SOURCES) as Source[])),
      inText: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(use, { minLength: 1, maxLength: 6 }), async (uses) => {
        const { run, entries } = await runWith(uses);
        assert.equal(run.status, 'completed', JSON.stringify(run));
        const drawn = entries
          .filter((e) => e.kind === 'source.drawn')
          .map((e) => e.payload as { value: unknown });
        assert.equal(drawn.length, uses.length);
        const done = entries.find((e) => e.kind === 'step.completed')!.payload as {
          output: Record<string, unknown>;
        };
        // Sources are drawn in canonical key order of the arguments: a0, a1, ... (fewer than 10).
        uses.forEach((u, i) => {
          const value = drawn[i]!.value;
          assert.ok(SOURCES[u.source](value), `${u.source} drew ${JSON.stringify(value)}`);
          assert.deepEqual(done.output[`a${i}`], u.inText ? `<${String(value)}>` : value);
        });
      }),
      { numRuns: 25 },
    );
  });

  test('the system random float stays in [0, 1) over many draws, and varies', () => {
    const random = systemSources({}).random;
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const f = random.float();
      assert.ok(Number.isFinite(f) && f >= 0 && f < 1, String(f));
      seen.add(f);
    }
    assert.ok(seen.size > 4990, `only ${seen.size} distinct floats in 5000 draws`);
  });
});
