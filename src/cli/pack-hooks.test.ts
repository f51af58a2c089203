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
import { load, resolve } from './pack-hooks.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-ts-hooks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const refuses = async (url: string) => {
  throw Object.assign(new Error(`Unknown file extension ".ts" for ${url}`), {
    code: 'ERR_UNKNOWN_FILE_EXTENSION',
  });
};

describe('pack-hooks load', () => {
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

describe('pack-hooks resolve', () => {
  const notFound = () => Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' });
  const parentURL = pathToFileURL(join(dir, 'keel.tools.mjs')).href;

  test('keel and keel/… that do not resolve beside the pack resolve from the Keel running it', async () => {
    for (const specifier of ['keel', 'keel/support-desk', 'keel/plan']) {
      const asked: (string | undefined)[] = [];
      const r = await resolve(specifier, { parentURL }, async (s, c) => {
        asked.push(c?.parentURL);
        if (c?.parentURL === parentURL) throw notFound();
        return { url: `file:///keel/${s}.js` };
      });
      assert.equal(r.url, `file:///keel/${specifier}.js`);
      assert.equal(asked[0], parentURL, 'the pack’s own location is asked first');
      assert.match(String(asked[1]), /\/src\/cli\/pack-hooks\.ts$/, 'then Keel’s own package');
    }
  });

  test('a Keel installed beside the pack is the one used', async () => {
    const beside = { url: 'file:///project/node_modules/keel/dist/src/index.js' };
    assert.equal(await resolve('keel', { parentURL }, async () => beside), beside);
  });

  test('other specifiers and other failures pass through untouched', async () => {
    const seen: string[] = [];
    const missing = notFound();
    for (const specifier of ['keelhaul', 'lodash', './keel']) {
      await assert.rejects(
        resolve(specifier, { parentURL }, async (s) => {
          seen.push(s);
          throw missing;
        }),
        (e) => e === missing,
      );
    }
    assert.deepEqual(seen, ['keelhaul', 'lodash', './keel'], 'each asked once, never retried elsewhere');
    const other = Object.assign(new Error('bad'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
    await assert.rejects(
      resolve('keel', { parentURL }, async () => {
        throw other;
      }),
      (e) => e === other,
    );
  });

  test('the real self-reference: keel/support-desk resolves from this package', async () => {
    // What the hook does on the loader thread, done here with the same package's own resolution.
    // The package's exports name the bundle (scripts/bundle-dist.mjs), the same files `keel` runs.
    const url = import.meta.resolve('keel/support-desk');
    assert.match(url, /\/dist\/bundle\/support-desk\.js$/);
  });
});
