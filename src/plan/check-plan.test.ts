import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isKeelError } from '../core/errors.ts';
import { checkPlanFiles, checkPlanSources } from './check-plan.ts';
import type { PlanFinding } from './plan-finding.ts';
import type { PlanSource } from './plan-program.ts';

const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'corpus');

function corpus(kind: 'allowed' | 'forbidden'): PlanSource[] {
  const dir = join(CORPUS, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.plan.ts'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}

const allowed = corpus('allowed');
const forbidden = corpus('forbidden');

/** `// expect: A, B` on a line: findings whose `what` is A and B must be reported on that line. */
function expectations(source: PlanSource): string[] {
  const out: string[] = [];
  source.text.split('\n').forEach((text, i) => {
    const m = /\/\/ expect: (.+)$/.exec(text);
    for (const what of m ? m[1]!.split(/,\s*/) : []) out.push(`${i + 1}: ${what.trim()}`);
  });
  return out.sort();
}

const reported = (findings: readonly PlanFinding[], source: PlanSource) =>
  findings
    .filter((f) => f.file === source.path)
    .map((f) => `${f.line}: ${f.what}`)
    .sort();

const name = (s: PlanSource) => s.path.slice(CORPUS.length + 1);
const usesReference = (s: PlanSource) => s.text.startsWith('/// <reference');

describe('keel check: the forbidden corpus', () => {
  test('every forbidden file states what must be found', () => {
    assert.ok(forbidden.length >= 40, `only ${forbidden.length} forbidden files`);
    for (const s of forbidden) assert.ok(expectations(s).length > 0, `${name(s)} has no // expect: line`);
  });

  test('each forbidden file, checked alone, yields exactly its expected findings on the expected lines', () => {
    for (const s of forbidden) {
      const { findings } = checkPlanSources([s]);
      assert.deepEqual(reported(findings, s), expectations(s), name(s));
      for (const f of findings) {
        assert.equal(f.file, s.path);
        assert.match(f.message, /is not allowed in a plan module|^syntax error: /, name(s));
      }
    }
  });

  test('checked together (one program), the findings are the same: files do not leak into each other', () => {
    const clean = forbidden.filter((s) => !usesReference(s));
    const { findings } = checkPlanSources(clean);
    for (const s of clean) assert.deepEqual(reported(findings, s), expectations(s), name(s));
  });

  test('with host typings pulled in by a /// <reference types="node" />, every host API is still refused', () => {
    // One file's directive loads @types/node into the shared program: process, fetch, node:fs ...
    // then resolve to real declarations, which are still not the module's own or ES built-ins.
    const all = [...forbidden, ...allowed];
    const { findings } = checkPlanSources(all);
    for (const s of forbidden) assert.deepEqual(reported(findings, s), expectations(s), name(s));
    for (const s of allowed) assert.deepEqual(reported(findings, s), [], name(s));
  });

  test('the corpus covers every API the check must refuse, aliases included', () => {
    const covered = new Set(forbidden.flatMap((s) => expectations(s).map((e) => e.replace(/^\d+: /, ''))));
    const required = [
      'Date.now',
      'new Date()',
      'Date()',
      'Math.random',
      'crypto.randomUUID',
      'crypto.getRandomValues',
      'crypto.randomBytes',
      'performance.now',
      'process.env',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'queueMicrotask',
      'fetch',
      'XMLHttpRequest',
      'WebSocket',
      'import()',
      'require',
      ...['node:fs', 'fs', 'fs/promises', 'node:net', 'node:http', 'node:https'].map((m) => `import "${m}"`),
      ...['node:child_process', 'node:dgram', 'node:dns', 'node:worker_threads'].map((m) => `import "${m}"`),
    ];
    for (const what of required) assert.ok(covered.has(what), `no corpus file expects ${what}`);
    const aliasFiles = [
      'alias-destructure-date-now',
      'alias-date-constructor',
      'alias-math-random-function',
      'alias-math-object',
      'global-this-date-now',
      'destructure-process-env',
      'import-alias-random-uuid',
      'element-access-math-random',
    ];
    for (const f of aliasFiles)
      assert.ok(
        forbidden.some((s) => s.path.endsWith(`/${f}.plan.ts`)),
        `missing alias form ${f}`,
      );
  });
});

describe('keel check: the allowed corpus', () => {
  test('every allowed file passes, alone and together', () => {
    assert.ok(allowed.length >= 8);
    for (const s of allowed) assert.deepEqual(checkPlanSources([s]).findings, [], name(s));
    assert.deepEqual(checkPlanSources(allowed).findings, []);
  });
});

describe('keel check: what it reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-check-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('it checks the text it is given, not what is on disk under that path', () => {
    const path = allowed[0]!.path;
    const { findings } = checkPlanSources([{ path, text: 'export const t = Date.now();\n' }]);
    assert.deepEqual(
      findings.map((f) => [f.line, f.column, f.what]),
      [[1, 23, 'Date.now']],
    );
  });

  test('a global declared by a type-only import cannot smuggle a host value in', () => {
    const helper = join(dir, 'globals.ts');
    writeFileSync(helper, 'declare global { var sneaky: () => number }\nexport type T = number;\n');
    const plan = join(dir, 'sneaky.plan.ts');
    const text = "import type { T } from './globals.ts';\nexport const n: T = sneaky();\n";
    const { findings } = checkPlanSources([{ path: plan, text }]);
    assert.deepEqual(
      findings.map((f) => [f.line, f.what]),
      [[2, 'sneaky']],
    );
    assert.match(findings[0]!.message, /declared outside the module/);
  });

  test('a directory is searched for *.plan.ts files, sorted; other files are ignored', () => {
    mkdirSync(join(dir, 'plans', 'nested'), { recursive: true });
    writeFileSync(join(dir, 'plans', 'b.plan.ts'), 'export const b = 1;\n');
    writeFileSync(join(dir, 'plans', 'nested', 'a.plan.ts'), 'export const a = Math.random();\n');
    writeFileSync(join(dir, 'plans', 'notes.ts'), 'export const c = Date.now();\n');
    const r = checkPlanFiles([join(dir, 'plans')]);
    assert.deepEqual(r.files, [join(dir, 'plans', 'b.plan.ts'), join(dir, 'plans', 'nested', 'a.plan.ts')]);
    assert.deepEqual(
      r.findings.map((f) => [f.file, f.what]),
      [[join(dir, 'plans', 'nested', 'a.plan.ts'), 'Math.random']],
    );
  });

  test('a file that is not a plan module (a YAML spec) is a usage error pointing to keel validate', () => {
    const yaml = join(dir, 'spec.yaml');
    writeFileSync(yaml, 'id: x\n');
    assert.throws(
      () => checkPlanFiles([yaml]),
      (e) => isKeelError(e) && e.code === 'usage' && e.message.includes(`keel validate ${yaml}`),
    );
  });

  test('a missing file, or a directory without plan modules, is a usage error naming the path', () => {
    const missing = join(dir, 'missing.plan.ts');
    assert.throws(
      () => checkPlanFiles([missing]),
      (e) => isKeelError(e) && e.code === 'usage' && e.message.includes(missing),
    );
    mkdirSync(join(dir, 'empty'));
    assert.throws(
      () => checkPlanFiles([join(dir, 'empty')]),
      (e) => isKeelError(e) && e.code === 'usage' && /no \*\.plan\.ts files/.test(e.message),
    );
  });
});
