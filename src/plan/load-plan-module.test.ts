import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { canonicalize } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { parseSpec, specHash } from '../core/spec/index.ts';
import { loadPlanModule, loadPlanSource } from './load-plan-module.ts';
import type { PlanFinding } from './plan-finding.ts';
import type { SandboxLimits } from './plan-sandbox.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REFUND_PLAN = join(HERE, 'corpus', 'allowed', 'refund-under-50.plan.ts');
const REFUND_YAML = join(HERE, '..', '..', 'examples', 'support-desk', 'refund-under-50.yaml');
const FAST: SandboxLimits = { maxInterrupts: 20, memoryBytes: 8 * 1024 * 1024, stackBytes: 64 * 1024 };

const isCode = (code: string, pattern?: RegExp) => (e: unknown) =>
  isKeelError(e) && e.code === code && (pattern === undefined || pattern.test(e.message));

const spec = (body: string) => `import { defineWorkflow } from 'keel/plan';
${body}
export default defineWorkflow({
  id: 'probe',
  version: 1,
  status: 'DRAFT',
  triggers: [],
  steps: [],
  limits: { maxSteps: 1, maxCostUsd: 0 },
});
`;

describe('loading a plan module', () => {
  test('the same module loaded twice yields byte-identical canonical specs and one spec hash', async () => {
    const a = await loadPlanModule(REFUND_PLAN);
    const b = await loadPlanModule(REFUND_PLAN);
    assert.equal(canonicalize(a.spec), canonicalize(b.spec));
    assert.equal(a.specHash, b.specHash);
    assert.equal(a.specHash, specHash(a.spec));
  });

  test('it yields the same spec, and hash, as its YAML twin', async () => {
    const plan = await loadPlanModule(REFUND_PLAN);
    const yaml = parseSpec(readFileSync(REFUND_YAML, 'utf8'), REFUND_YAML);
    assert.equal(canonicalize(plan.spec), canonicalize(yaml));
    assert.equal(plan.specHash, specHash(yaml));
  });

  test('a module that fails the check never runs: the refusal lists every finding', async () => {
    // If it ran, the endless loop would hit the step limit (plan_invalid), not determinism_violation.
    const text = spec('const t = Date.now();\nconst { env } = process;\nwhile (t > 0) {}');
    await assert.rejects(loadPlanSource(text, 'clock.plan.ts', { limits: FAST }), (e) => {
      assert.ok(isCode('determinism_violation', /^clock\.plan\.ts:2:16: Date\.now is not allowed/)(e));
      const findings = (e as { details: { findings: PlanFinding[] } }).details.findings;
      assert.deepEqual(
        findings.map((f) => [f.line, f.what]),
        [
          [2, 'Date.now'],
          [3, 'process'],
        ],
      );
      return true;
    });
  });

  test('an endless loop is stopped by the step limit with a clear error', async () => {
    const started = performance.now();
    await assert.rejects(
      loadPlanSource(spec('let i = 0;\nwhile (i >= 0) i++;'), 'loop.plan.ts', { limits: FAST }),
      isCode('plan_invalid', /^loop\.plan\.ts: .*ran past its step limit .* a loop that never ends/),
    );
    assert.ok(performance.now() - started < 5_000);
  });

  test('the spec it exports is validated like any spec: problems name the file and the field', async () => {
    const text = `import { defineWorkflow } from 'keel/plan';
export default defineWorkflow({ id: 'Bad Id', version: 1, status: 'DRAFT', triggers: [], steps: [], limits: { maxSteps: 1, maxCostUsd: 0 } });
`;
    await assert.rejects(loadPlanSource(text, 'bad.plan.ts'), isCode('spec_invalid', /^bad\.plan\.ts: id: /));
  });

  test('a module without a default export, or whose evaluation throws, is plan_invalid naming the file', async () => {
    await assert.rejects(
      loadPlanSource('export const x = 1;\n', 'none.plan.ts'),
      isCode('plan_invalid', /^none\.plan\.ts: .*no default export/),
    );
    await assert.rejects(
      loadPlanSource(spec("throw new Error('not today');"), 'throws.plan.ts'),
      isCode('plan_invalid', /^throws\.plan\.ts: .*threw while being evaluated: Error: not today/),
    );
    await assert.rejects(
      loadPlanSource('export default 42;\n', 'number.plan.ts'),
      isCode('plan_invalid', /default export is a number/),
    );
  });

  test('a missing file is a usage error naming the path', async () => {
    await assert.rejects(
      loadPlanModule(join(HERE, 'nope.plan.ts')),
      isCode('usage', /nope\.plan\.ts: no such file/),
    );
  });
});
