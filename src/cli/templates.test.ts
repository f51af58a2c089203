import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import { KeelError } from '../core/errors.ts';
import { findTemplate, initFromTemplate, listTemplates, TEMPLATES_DIR, templateNames } from './templates.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-templates-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('templates', () => {
  test('each lists its workflows by file, and each spec file is named by its id and is a DRAFT v1 with tests and limits', () => {
    for (const t of listTemplates()) {
      assert.ok(t.workflows.length >= 1, t.name);
      for (const w of t.workflows) {
        const spec = parse(readFileSync(join(TEMPLATES_DIR, t.name, 'workflows', `${w}.yaml`), 'utf8')) as {
          id: string;
          version: number;
          status: string;
          tests?: unknown[];
          limits: { maxSteps: number; maxCostUsd: number };
        };
        assert.equal(spec.id, w, `${t.name}: workflows/${w}.yaml has id ${w}`);
        assert.equal(spec.version, 1);
        assert.equal(spec.status, 'DRAFT', 'specs publish only as DRAFT');
        assert.ok((spec.tests?.length ?? 0) >= 2, `${w} has at least two tests`);
        assert.ok(spec.limits.maxSteps >= 1);
      }
      assert.ok(
        readdirSync(join(TEMPLATES_DIR, t.name, 'events')).length >= 2,
        `${t.name} has two sample events`,
      );
    }
  });

  test('an unknown name, or one that walks out of the templates, is a usage error naming the ones there are', () => {
    for (const name of ['refundz', '../support-refunds', 'support-refunds/workflows', '', '.']) {
      assert.throws(
        () => findTemplate(name),
        (e: unknown) =>
          e instanceof KeelError &&
          e.code === 'usage' &&
          e.message.includes(`available: ${templateNames().join(', ')}`) &&
          (e.details as { available: string[] }).available.length === templateNames().length,
        name,
      );
    }
    assert.throws(() => initFromTemplate('nope', join(dir, 'nope')), /no template named "nope"/);
    assert.equal(existsSync(join(dir, 'nope')), false, 'nothing written for an unknown name');
  });

  test('init keeps every file that exists, writes the rest, never template.json or dot files', () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'workflows'), { recursive: true });
    writeFileSync(join(project, 'workflows', 'refund-request.yaml'), 'mine\n');
    const first = initFromTemplate('support-refunds', project);
    assert.deepEqual(
      first.kept.map((f) => f.split(/[\\/]/).slice(-2).join('/')),
      ['workflows/refund-request.yaml'],
    );
    assert.equal(readFileSync(join(project, 'workflows', 'refund-request.yaml'), 'utf8'), 'mine\n');
    assert.ok(existsSync(join(project, 'keel.tools.mjs')));
    assert.equal(existsSync(join(project, 'template.json')), false);
    const second = initFromTemplate('support-refunds', project);
    assert.deepEqual(second.written, []);
    assert.equal(second.kept.length, first.kept.length + first.written.length);
  });

  test('for any template and any files already there, init changes none of them and leaves every template file present', () => {
    const names = templateNames();
    const filesOf = (name: string): string[] => {
      const out: string[] = [];
      const walk = (d: string, rel: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          if (e.name === 'template.json' && rel === '') continue;
          if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
          else out.push(`${rel}${e.name}`);
        }
      };
      walk(join(TEMPLATES_DIR, name), '');
      return out.sort();
    };
    let n = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.func(fc.boolean()),
        fc.string({ maxLength: 20 }),
        (name, present, text) => {
          const project = join(dir, `prop-${n++}`);
          const files = filesOf(name);
          const before = files.filter((_f, i) => present(i));
          for (const f of before) {
            mkdirSync(join(project, f, '..'), { recursive: true });
            writeFileSync(join(project, f), `${text}:${f}`);
          }
          const r = initFromTemplate(name, project);
          assert.equal(r.kept.length, before.length);
          assert.equal(r.written.length, files.length - before.length);
          for (const f of before) assert.equal(readFileSync(join(project, f), 'utf8'), `${text}:${f}`);
          for (const f of files) assert.ok(existsSync(join(project, f)), f);
          rmSync(project, { recursive: true, force: true });
        },
      ),
      { numRuns: 25 },
    );
  });
});
