/**
 * Keel's layering, held by a test over every import of every source module: imports point
 * downward only — core → ports → engine (and the adapters, and plan modules' checker) → worker →
 * app → openwop → server → cli. `core` imports nothing of Keel's outside itself, the engine sees
 * ports and never adapters, only `app` names concrete adapters, and the edges (OpenWOP, server, CLI)
 * reach the engine through what `app` exports. Tests and `testing/` may reach anything.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';

const SRC = import.meta.dirname;

/** What each top-level folder of src/ may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  ports: ['core'],
  engine: ['core', 'ports'],
  adapters: ['core', 'ports'],
  plan: ['core', 'ports'],
  worker: ['core', 'ports', 'engine'],
  app: ['core', 'ports', 'engine', 'adapters', 'plan', 'worker'],
  openwop: ['core', 'ports', 'app'],
  server: ['core', 'ports', 'app', 'openwop', 'worker'],
  cli: ['core', 'ports', 'app', 'plan', 'server', 'worker'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'corpus' ? [] : sources(path);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [path] : [];
  });
}

const layerOf = (path: string) => relative(SRC, path).split(sep)[0]!;

test('every import of a source module points down the layers', () => {
  const wrong: string[] = [];
  let seen = 0;
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    const allowed = ALLOWED[from];
    if (!allowed) continue; // index.ts, testing/: the public barrel and test support
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'|(?:^|\n)\s*import\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g,
    )) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(SRC + sep)) {
        wrong.push(`${relative(SRC, file)} imports ${spec}, outside src/`);
        continue;
      }
      seen++;
      const to = layerOf(target);
      if (to !== from && !allowed.includes(to))
        wrong.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  assert.ok(seen > 500, `read ${seen} imports`);
  assert.deepEqual(wrong, []);
});
