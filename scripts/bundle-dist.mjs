/**
 * The bundle step of the build (scripts/build.mjs): Keel's compiled modules (dist/src/, dist/examples/)
 * bundled by esbuild into dist/bundle/, one file per entry below and shared chunks, split where a
 * module is imported lazily (`await import()`) so a command still loads only what it needs. Loading
 * ~400 files one by one (resolve, read, compile each) was most of a command's start-up; a few large
 * files cost far less. Packages (node_modules) stay outside, loaded by Node as before, but for the
 * few BUNDLED_PACKAGES.
 *
 * The compiled modules stay where tsc wrote them, and every path a module computes from its own
 * location (templates, fixtures, web/, the meta-schema check, pack-hooks.js) still starts there:
 * in the bundle, each module's `import.meta.url` is rewritten to the URL of its compiled file.
 *
 * The CLI and the package's exports (package.json) load the same bundle, so a tool pack that
 * imports `keel` shares Keel's modules (its classes, its KeelError) with the command running it.
 *
 * Without esbuild (an install without development dependencies), each entry is written as a module
 * re-exporting its compiled file: the same API, unbundled.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The bundle's entries: its file name in dist/bundle/ and the compiled module it starts from. */
export const BUNDLE_ENTRIES = [
  { out: 'keel-command', from: 'src/cli/keel-command.js' },
  { out: 'index', from: 'src/index.js' },
  { out: 'plan', from: 'src/plan/define-workflow.js' },
  { out: 'support-desk', from: 'examples/support-desk/index.js' },
];

/** Where the bundle's esbuild metafile is written: which module went into which file. */
export const BUNDLE_META = 'bundle-meta.json';

/**
 * Packages bundled with Keel's modules instead of loaded from node_modules: read at the start of
 * most commands, spread over many small CommonJS files (ajv ~90, yaml ~75), so resolving and
 * reading them one by one cost more than running them. Their own dependencies come with them.
 * The MCP SDK, left outside, loads node_modules' zod for its own schemas when /mcp is first asked
 * for; Keel's routes never hand it theirs, so the two copies never meet.
 */
export const BUNDLED_PACKAGES = ['ajv', 'ajv-formats', 'yaml', 'zod', 'hono', '@hono/node-server', 'pino'];

/** Every other dependency of Keel stays in node_modules (and with it its subpaths). */
function externalPackages(dist) {
  const { dependencies } = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8'));
  return Object.keys(dependencies)
    .filter((d) => !BUNDLED_PACKAGES.includes(d))
    .flatMap((d) => [d, `${d}/*`]);
}

const posix = (p) => p.split('\\').join('/');

/**
 * A bundled package imported lazily (`await import('yaml')`) is given a default export only in the
 * bundle (esbuild's split chunk of a CommonJS module), so its named exports would be undefined at
 * run time: refused here, before anything is built. Import it from a Keel module instead.
 */
export function checkLazyImports(dist) {
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js'))
        for (const m of readFileSync(p, 'utf8').matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
          if (BUNDLED_PACKAGES.some((b) => m[1] === b || m[1].startsWith(`${b}/`)))
            found.push(`${posix(relative(dist, p))}: import('${m[1]}')`);
    }
  };
  walk(join(dist, 'src'));
  if (found.length > 0)
    throw new Error(
      `bundle: a bundled package is imported lazily, which the bundle cannot give named exports: ${found.join('; ')}`,
    );
}

/** Builds dist/bundle/; false when esbuild is not installed (the re-exporting entries are written). */
export async function bundleDist(dist) {
  const outdir = join(dist, 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  checkLazyImports(dist);
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    mkdirSync(outdir, { recursive: true });
    for (const e of BUNDLE_ENTRIES) {
      const target = posix(relative(outdir, join(dist, e.from)));
      const text = readFileSync(join(dist, e.from), 'utf8');
      const hasDefault = /^export default\b|^export \{[^}]*\bas default\b/m.test(text);
      writeFileSync(
        join(outdir, `${e.out}.js`),
        `export * from './${target}';\n${hasDefault ? `export { default } from './${target}';\n` : ''}`,
      );
    }
    return false;
  }
  /** Each module's own `import.meta.url`: its compiled file's, relative to the bundle's file. */
  const ownLocation = {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta')) return { contents: text, loader: 'js' };
        if (/import\.meta\.(dirname|filename)/.test(text))
          throw new Error(`${args.path}: use import.meta.url (the bundle rewrites it), not dirname/filename`);
        const url = `new URL(${JSON.stringify(posix(relative(outdir, args.path)))}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', `(${url})`), loader: 'js' };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: BUNDLE_ENTRIES.map((e) => ({ in: join(dist, e.from), out: e.out })),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: externalPackages(dist),
    chunkNames: 'chunk-[hash]',
    // The metafile's paths relative to the package: dist/src/..., dist/bundle/..., node_modules/...
    absWorkingDir: join(dist, '..'),
    metafile: true,
    // The bundled CommonJS packages require Node's built-ins (`process`, `util`): through a real require.
    banner: {
      js: "import { createRequire as __keelRequire } from 'node:module';\nconst require = __keelRequire(import.meta.url);",
    },
    plugins: [ownLocation],
    logLevel: 'warning',
  });
  writeFileSync(join(dist, BUNDLE_META), JSON.stringify(result.metafile));
  return true;
}
