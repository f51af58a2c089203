/**
 * Keel's layering, held by a test over every import of every source module: imports point
 * downward only — core → ports → engine (and the adapters, and plan modules' checker) → worker →
 * app → openwop → server → cli. `core` imports nothing of Keel's outside itself, the engine sees
 * ports and never adapters, only `app` names concrete adapters, and the edges (OpenWOP, server, CLI)
 * reach the engine through what `app` exports. Tests and `testing/` may reach anything.
 *
 * The same import graph (and the console's, web/src) holds two more rules: no import circle
 * between modules, and no source file over 400 lines. Today's offenders are listed below, each
 * until its room is split (issue 27); the lists only shrink: a new offender fails, and so does
 * one that is fixed but still listed.
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

/** The console's sources: no layers, but the same rules on circles and length. */
const WEB = resolve(SRC, '..', 'web', 'src');

/** The most lines a source file may have (tests and the plan checker's corpus of fixtures aside). */
const MAX_LINES = 400;

/**
 * Import circles allowed, each as its modules (paths from src/, or web/src/ for `web:`), sorted,
 * joined by ` ↔ `: none. Type-only imports count: a circle of types is still modules that must be
 * read together. Break a circle by moving the shared piece down into a module both import.
 */
const KNOWN_CYCLES: readonly string[] = [];

/**
 * Source files over MAX_LINES: none. Keep it so; a file that grows past the limit is split along
 * its concerns (docs/architecture.md). Never add one.
 */
const KNOWN_LONG_FILES: readonly string[] = [];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'corpus' ? [] : sources(path);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [path] : [];
  });
}

const layerOf = (path: string) => relative(SRC, path).split(sep)[0]!;

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'|(?:^|\n)\s*import\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;

/** Each relative import of `file`: as written, and the absolute path it names. */
function importsOf(file: string, text: string): { spec: string; target: string }[] {
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    return { spec, target: resolve(dirname(file), spec) };
  });
}

/** The source modules under `root`, each with its text and the modules under `root` it imports. */
function moduleGraph(root: string): Map<string, { text: string; imports: string[] }> {
  const files = sources(root);
  const known = new Set(files);
  const graph = new Map<string, { text: string; imports: string[] }>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const imports = importsOf(file, text)
      .map((i) => i.target)
      .filter((t) => known.has(t));
    graph.set(file, { text, imports: [...new Set(imports)] });
  }
  return graph;
}

/**
 * The import circles of `graph`: its strongly connected components of more than one module (or a
 * module importing itself), by Tarjan's algorithm, each as its members' names, sorted.
 */
function importCycles(
  graph: ReadonlyMap<string, { imports: readonly string[] }>,
  name: (f: string) => string,
) {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!.imports) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    if (members.length > 1 || graph.get(v)!.imports.includes(v))
      cycles.push(members.map(name).sort().join(' ↔ '));
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles.sort();
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

const srcGraph = moduleGraph(SRC);
const webGraph = moduleGraph(WEB);
const srcName = (f: string) => relative(SRC, f).split(sep).join('/');
const webName = (f: string) => `web:${relative(WEB, f).split(sep).join('/')}`;

test('every import of a source module points down the layers', () => {
  const wrong: string[] = [];
  let seen = 0;
  for (const [file, { text }] of srcGraph) {
    const from = layerOf(file);
    const allowed = ALLOWED[from];
    if (!allowed) continue; // index.ts, testing/: the public barrel and test support
    for (const { spec, target } of importsOf(file, text)) {
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

/** What is found against what is listed: both lists must be empty. */
function offenders(found: readonly string[], known: readonly string[]) {
  return {
    'new (fix them; never list them)': found.filter((x) => !known.includes(x)),
    'fixed, so delete them from the list': known.filter((x) => !found.includes(x)),
  };
}
const none = { 'new (fix them; never list them)': [], 'fixed, so delete them from the list': [] };

test('no import circle but the listed ones (KNOWN_CYCLES), and none of those is gone', () => {
  assert.ok(srcGraph.size > 300 && webGraph.size > 5, `read ${srcGraph.size} + ${webGraph.size} modules`);
  const found = [...importCycles(srcGraph, srcName), ...importCycles(webGraph, webName)];
  assert.deepEqual(offenders(found, KNOWN_CYCLES), none);
});

test(`no source file over ${MAX_LINES} lines but the listed ones (KNOWN_LONG_FILES), and none of those is short now`, () => {
  const long = [
    ...[...srcGraph].filter(([, m]) => lineCount(m.text) > MAX_LINES).map(([f]) => srcName(f)),
    ...[...webGraph].filter(([, m]) => lineCount(m.text) > MAX_LINES).map(([f]) => webName(f)),
  ].sort();
  assert.deepEqual(offenders(long, KNOWN_LONG_FILES), none);
});

test('the circle finder finds a circle of two, of three, a module importing itself, and no tree', () => {
  const g = (edges: Record<string, string[]>) =>
    new Map(Object.entries(edges).map(([k, imports]) => [k, { imports }]));
  const id = (f: string) => f;
  assert.deepEqual(importCycles(g({ a: ['b'], b: ['a'], c: ['a'] }), id), ['a ↔ b']);
  assert.deepEqual(importCycles(g({ a: ['b'], b: ['c'], c: ['a'], d: ['d'] }), id), ['a ↔ b ↔ c', 'd']);
  assert.deepEqual(importCycles(g({ a: ['b', 'c'], b: ['c'], c: [] }), id), []);
  assert.deepEqual(importCycles(g({ a: ['b'], b: ['a'], c: ['d'], d: ['c', 'a'] }), id), ['a ↔ b', 'c ↔ d']);
});
