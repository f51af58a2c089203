/**
 * The operator console's files, served by `keel serve` at `/console/` (and `/` redirects there).
 * The console is a static build (web/, bundled by `npm run build` into dist/web/) that talks to the
 * Keel API like any client: these routes serve files and nothing else, need no key, and read no
 * tenant's data. Only the files of the build are served, by exact name, never a path taken from the
 * request; each answer carries a Content-Security-Policy that lets the page load nothing but its own
 * files and talk to nothing but this server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

const HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

interface ConsoleFile {
  readonly body: Buffer;
  readonly type: string;
}

/**
 * Where the build is: dist/web/ of the checkout (the server run from its sources through tsx) or of
 * the package (the compiled server, dist/src/server/ → dist/web/). Undefined when it was not built.
 */
export function consoleDir(): string | undefined {
  const here = import.meta.dirname;
  // From src/server/ the build is ../../dist/web (../../web is the console's source); from
  // dist/src/server/ it is ../../web.
  for (const dir of [join(here, '..', '..', 'dist', 'web'), join(here, '..', '..', 'web')])
    if (existsSync(join(dir, 'index.html'))) return dir;
  return undefined;
}

function readBuild(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && TYPES[extname(e.name)])
        files.set(relative(dir, p).split('\\').join('/'), {
          body: readFileSync(p),
          type: TYPES[extname(e.name)]!,
        });
    }
  };
  walk(dir);
  return files;
}

/** The console's routes; `dir` is the build (default: `consoleDir()`), read once on first use. */
export function consoleRoutes(dir: string | undefined = consoleDir()): Hono {
  const app = new Hono();
  let files: Map<string, ConsoleFile> | undefined;
  app.get('/', (c) => c.redirect('/console/', 302));
  app.get('/console', (c) => c.redirect('/console/', 301));
  app.get('/console/*', (c) => {
    if (!dir)
      return c.json(
        {
          error: 'not_found',
          message: 'the console is not built: run `npm run build` in the checkout (npm install does it)',
        },
        404,
      );
    files ??= readBuild(dir);
    const name = new URL(c.req.url).pathname.slice('/console/'.length) || 'index.html';
    const f = files.get(name);
    if (!f) return c.json({ error: 'not_found', message: `no console file ${name.slice(0, 200)}` }, 404);
    // Assets are named by their content (vite's hashes): cached for good; the page itself never.
    const cache = name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    return c.body(new Uint8Array(f.body), 200, {
      ...HEADERS,
      'Content-Type': f.type,
      'Cache-Control': cache,
    });
  });
  return app;
}
