/**
 * The operator console's files, served by `keel serve` at `/console/` (and `/` redirects there).
 * The console is a static build (web/, bundled by `npm run build` into dist/web/) that talks to the
 * Keel API like any client: these routes serve files and nothing else, need no key, and read no
 * tenant's data. Only the files of the build are served, by exact name, never a path taken from the
 * request; each answer carries a Content-Security-Policy that lets the page load nothing but its own
 * files and talk to nothing but this server. Each file is compressed once, when the build is first
 * read (brotli and gzip, kept only where smaller), and sent in the best encoding the browser accepts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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

type Encoding = 'br' | 'gzip';

interface ConsoleFile {
  readonly body: Buffer;
  readonly type: string;
  /** The body compressed, for each encoding that made it smaller. */
  readonly encoded: Partial<Record<Encoding, Buffer>>;
}

function compress(body: Buffer): ConsoleFile['encoded'] {
  const encoded: ConsoleFile['encoded'] = {};
  const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  const gz = gzipSync(body, { level: 9 });
  if (br.length < body.length) encoded.br = br;
  if (gz.length < body.length) encoded.gzip = gz;
  return encoded;
}

/**
 * The encoding to send, from an Accept-Encoding header: brotli before gzip, each only when the
 * browser accepts it (listed, or covered by `*`, with a q-value above 0).
 */
export function pickEncoding(accept: string | undefined, have: ConsoleFile['encoded']): Encoding | undefined {
  const q = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (!name) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const accepted = (e: Encoding) => (q.get(e) ?? q.get('*') ?? 0) > 0;
  return (['br', 'gzip'] as const).find((e) => have[e] !== undefined && accepted(e));
}

/**
 * Where the build is: dist/web/ of the checkout (the server run from its sources through tsx) or of
 * the package (the compiled server, dist/src/server/ → dist/web/). Undefined when it was not built.
 */
export function consoleDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
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
      else if (e.isFile() && TYPES[extname(e.name)]) {
        const body = readFileSync(p);
        files.set(relative(dir, p).split('\\').join('/'), {
          body,
          type: TYPES[extname(e.name)]!,
          encoded: compress(body),
        });
      }
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
    const encoding = pickEncoding(c.req.header('Accept-Encoding'), f.encoded);
    return c.body(new Uint8Array(encoding ? f.encoded[encoding]! : f.body), 200, {
      ...HEADERS,
      'Content-Type': f.type,
      'Cache-Control': cache,
      Vary: 'Accept-Encoding',
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    });
  });
  return app;
}
