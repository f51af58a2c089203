/**
 * The load hook that lets Node 20 import a TypeScript tool pack: it leaves every other file and any
 * loader that already compiles TypeScript alone, and transpiles a `.ts` file the chain refuses.
 * (test/e2e/package.test.ts loads real packs through it, from the installed package.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { load } from './typescript-hooks.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-ts-hooks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const refuses = async (url: string) => {
  throw Object.assign(new Error(`Unknown file extension ".ts" for ${url}`), {
    code: 'ERR_UNKNOWN_FILE_EXTENSION',
  });
};

describe('typescript-hooks load', () => {
  test('a .ts file the chain refuses is transpiled to an ES module: types gone, values kept', async () => {
    const file = join(dir, 'pack.ts');
    writeFileSync(
      file,
      `import type { ToolDefinition } from 'keel';
import { withDeltas } from 'keel';
interface Args { n: number }
const double = (a: Args): number => a.n * 2;
export default [withDeltas(double({ n: 2 } as Args), [])] satisfies unknown[] as ToolDefinition[];
`,
    );
    const r = await load(pathToFileURL(file).href, {}, refuses);
    assert.equal(r.format, 'module');
    assert.equal(r.shortCircuit, true);
    const js = String(r.source);
    assert.match(js, /import \{ withDeltas \} from 'keel';/);
    assert.doesNotMatch(js, /ToolDefinition|interface|: number|satisfies/);
    assert.match(js, /export default \[withDeltas\(double\(\{ n: 2 \}\), \[\]\)\]/);
  });

  test('a loader that compiles TypeScript itself (tsx) is left to do it', async () => {
    const url = pathToFileURL(join(dir, 'other.ts')).href;
    const theirs = { format: 'module', source: 'export default 1;' };
    assert.equal(await load(url, {}, async () => theirs), theirs);
  });

  test('other files, and other failures of .ts files, pass through untouched', async () => {
    const js = pathToFileURL(join(dir, 'pack.js')).href;
    const seen: string[] = [];
    await load(js, {}, async (u) => {
      seen.push(u);
      return { format: 'module', source: '' };
    });
    assert.deepEqual(seen, [js]);
    const missing = pathToFileURL(join(dir, 'missing.ts')).href;
    const notFound = Object.assign(new Error('not found'), { code: 'ERR_MODULE_NOT_FOUND' });
    await assert.rejects(
      load(missing, {}, async () => {
        throw notFound;
      }),
      (e) => e === notFound,
    );
  });
});
