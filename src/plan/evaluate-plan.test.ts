/**
 * The sandbox on its own, with code the determinism check would refuse: the check is the first
 * wall, these tests prove the second one holds even when the first is bypassed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isKeelError } from '../core/errors.ts';
import { evaluatePlanModule } from './evaluate-plan.ts';
import { type SandboxLimits, withSandbox } from './plan-sandbox.ts';
import { ABSENT_GLOBALS, SANDBOX_PRELUDE } from './sandbox-prelude.ts';
import { transpilePlan } from './transpile-plan.ts';

const FAST: SandboxLimits = { maxInterrupts: 20, memoryBytes: 8 * 1024 * 1024, stackBytes: 64 * 1024 };
const run = (js: string, limits?: SandboxLimits) => evaluatePlanModule(js, 'probe.plan.ts', limits);
const invalid = (pattern: RegExp) => (e: unknown) =>
  isKeelError(e) && e.code === 'plan_invalid' && pattern.test(e.message);

describe('the plan sandbox', () => {
  test('host and nondeterministic globals are absent: a module reaching for them gets nothing', async () => {
    const probes = [...ABSENT_GLOBALS, 'Math.random', 'Date.now', 'globalThis.process', 'globalThis.require'];
    const body = probes.map((p) => `${JSON.stringify(p)}: typeof ${p.includes('.') ? p : `globalThis.${p}`}`);
    const out = (await run(`export default { ${body.join(', ')} };`)) as Record<string, string>;
    for (const p of probes) assert.equal(out[p], 'undefined', `${p} is reachable in the sandbox`);
  });

  test('require and process are not even names: using them throws inside the sandbox', async () => {
    await assert.rejects(run("require('node:fs'); export default {};"), invalid(/ReferenceError: .*require/));
    await assert.rejects(run('process.env.HOME; export default {};'), invalid(/ReferenceError: .*process/));
  });

  test('Date knows only explicit UTC instants; the clock and the host time zone are refused with a reason', async () => {
    const out = await run(
      "export default { a: new Date(0), b: new Date('2026-01-01').toISOString(), c: Date.UTC(2026, 0, 2), d: String(new Date(86400000)), e: new Date('2026-01-01T10:00:00+02:00').getUTCHours() };",
    );
    assert.deepEqual(out, {
      a: '1970-01-01T00:00:00.000Z',
      b: '2026-01-01T00:00:00.000Z',
      c: Date.UTC(2026, 0, 2),
      d: '1970-01-02T00:00:00.000Z',
      e: 8,
    });
    await assert.rejects(
      run('new Date(); export default {};'),
      invalid(/new Date\(\) is not available .* reads the clock/),
    );
    await assert.rejects(run('Date(); export default {};'), invalid(/Date\(\) is not available/));
    await assert.rejects(
      run('new Date(0).getHours(); export default {};'),
      invalid(/getHours .* host time zone/),
    );
    await assert.rejects(run('new Date(2026, 0, 1); export default {};'), invalid(/Date\.UTC/));
    await assert.rejects(run("new Date('2026-01-01T10:00'); export default {};"), invalid(/ISO 8601/));
  });

  test('an endless loop is stopped, deterministically, by the step budget', async () => {
    await assert.rejects(run('for (;;) {} export default {};', FAST), invalid(/step limit/));
  });

  test('memory and recursion are bounded, and the host survives to evaluate the next module', async () => {
    const bomb = 'const a = []; for (;;) a.push([1, 2, 3, 4, 5, 6, 7, 8]); export default {};';
    await assert.rejects(run(bomb, { ...FAST, maxInterrupts: 100_000 }), invalid(/memory limit/));
    await assert.rejects(
      run('function f() { return f(); } f(); export default {};'),
      invalid(/stack overflow/),
    );
    const deep = 'let o = {}; for (let i = 0; i < 20000; i++) o = { o }; export default { o };';
    await assert.rejects(run(deep), invalid(/stack overflow|sandbox itself failed/));
    assert.deepEqual(await run('export default { ok: true };'), { ok: true });
  });

  test('a module cannot change how its spec is read: JSON.stringify is captured before it runs', async () => {
    const out = await run('JSON.stringify = () => \'{"forged":true}\'; export default { real: 1 };');
    assert.deepEqual(out, { real: 1 });
  });

  test('top-level await settles inside the sandbox', async () => {
    assert.deepEqual(await run('export default await Promise.resolve({ a: 1 });'), { a: 1 });
  });

  test('every handle is released: many evaluations in a row leave nothing behind', async () => {
    for (let i = 0; i < 5; i++) {
      const value = await withSandbox(FAST, (sb) => {
        sb.eval(SANDBOX_PRELUDE, 'prelude.js', 'global');
        const ns = sb.eval('export default { i: 1 };', 'm.js', 'module');
        return sb.typeOf(sb.get(ns, 'default'));
      });
      assert.equal(value, 'object');
    }
  });
});

describe('transpiling a plan module', () => {
  test('imports vanish; an aliased defineWorkflow becomes a local alias of the sandbox global', () => {
    const js = transpilePlan(
      "import type { StepSpec } from 'keel/plan';\nimport { defineWorkflow as wf, type WorkflowSpec } from 'keel/plan';\nconst s: StepSpec[] = [];\nexport default wf({} as WorkflowSpec);\n",
      'a.plan.ts',
    );
    assert.doesNotMatch(js, /\bimport\b/);
    assert.match(js, /const wf = defineWorkflow;/);
    assert.match(js, /export default wf\(\{\}\);/);
  });

  test('a module that does not parse is plan_invalid naming the file', () => {
    assert.throws(
      () => transpilePlan('export const = ;', 'broken.plan.ts'),
      invalid(/^broken\.plan\.ts: cannot transpile/),
    );
  });
});
