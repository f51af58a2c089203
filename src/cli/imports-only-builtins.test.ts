/**
 * A tool pack that imports only Node's built-ins is loaded without pack hooks (no loader thread);
 * any other import, or a form the text read does not know, keeps them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { importsOnlyBuiltins } from './imports-only-builtins.ts';
import { TEMPLATES_DIR } from './templates.ts';
import { needsPackHooks } from './tool-pack.ts';

describe('importsOnlyBuiltins', () => {
  test('static, bare and literal dynamic imports of built-ins, and import.meta.url, pass', () => {
    const text = `import { appendFileSync, existsSync } from 'node:fs';
import path, { dirname } from "node:path";
import * as url from 'node:url';
import os from 'os';
import 'node:process';
export { join } from 'node:path';
const OUT = url.fileURLToPath(new URL('./out.jsonl', import.meta.url));
const here = import.meta.dirname;
export default async () => [(await import('node:crypto')).randomUUID(), OUT, here, os, path, dirname];
`;
    assert.equal(importsOnlyBuiltins(text), true);
  });

  test('keel, a package, a relative module or a re-export of one: not only built-ins', () => {
    for (const text of [
      `import { withDeltas } from 'keel';`,
      `import { tools } from 'keel/support-desk';`,
      `import ajv from 'ajv';`,
      `import { helper } from './helper.mjs';`,
      `import './setup.mjs';`,
      `export * from './more-tools.mjs';`,
      `export { tools as default } from "keel/support-desk";`,
      `import { readFileSync } from 'node:fs';\nimport { x } from '../x.js';`,
    ])
      assert.equal(importsOnlyBuiltins(text), false, text);
  });

  test('what a text read cannot follow answers no: a computed import, import.meta.resolve', () => {
    for (const text of [
      `const m = await import(process.env.PACK);`,
      'const m = await import(`./$' + '{name}.mjs`);',
      `const u = import.meta.resolve('keel');`,
      `const m = await import('node:fs').then(() => import(name));`,
    ])
      assert.equal(importsOnlyBuiltins(text), false, text);
  });

  test("keel init's templates qualify (their packs import only node:)", () => {
    const packs = readdirSync(TEMPLATES_DIR).map((t) => join(TEMPLATES_DIR, t, 'keel.tools.mjs'));
    assert.ok(packs.length >= 8);
    for (const p of packs) assert.equal(importsOnlyBuiltins(readFileSync(p, 'utf8')), true, p);
  });
});

describe('needsPackHooks, where no Keel is installed beside the pack', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-pack-hooks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const pack = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test('a pack of built-ins only needs no hooks; one importing keel, or a .ts pack, does', () => {
    assert.equal(
      needsPackHooks(pack('plain.mjs', `import { join } from 'node:path';\nexport default [];`)),
      false,
    );
    assert.equal(
      needsPackHooks(pack('keel.mjs', `import { withDeltas } from 'keel';\nexport default [];`)),
      true,
    );
    assert.equal(
      needsPackHooks(pack('local.mjs', `import { t } from './plain.mjs';\nexport default [t];`)),
      true,
    );
    assert.equal(needsPackHooks(pack('typed.ts', `export default [] as unknown[];`)), true);
  });
});
