/**
 * How tests and benchmarks start the real `keel` command: `node` with these arguments, then the
 * command's own. They run bin/keel.js, the CLI built to dist/ (what users run, and twice as quick
 * to start as the sources through tsx), so `npm test` and `npm run bench` build first. A dist/
 * older than the sources it is built from is refused here, naming the newer file, so a test never
 * runs yesterday's build: run `npm run build` (or `npm test`).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The sources the build reads (tests excluded: they are not built). */
const BUILT_FROM = ['src', 'examples', 'templates', join('web', 'src'), 'bin'];
/** What the build writes last (scripts/build.mjs). */
export const BUILD_STAMP = join(REPO, 'dist', '.build-stamp');

/** The newest source file the build reads, and its modification time (ms). */
function newestSource(): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p);
      } else if (!/\.test(-helpers)?\.ts$/.test(e.name)) {
        const m = statSync(p).mtimeMs;
        if (m > newest.mtimeMs) newest = { file: p, mtimeMs: m };
      }
    }
  };
  for (const d of BUILT_FROM) walk(join(REPO, d));
  return newest;
}

function assertBuilt(): void {
  let built: number;
  try {
    built = statSync(BUILD_STAMP).mtimeMs;
  } catch {
    throw new Error('keel is not built (no dist/.build-stamp): run `npm run build` (npm test builds first)');
  }
  const n = newestSource();
  if (n.mtimeMs > built)
    throw new Error(
      `dist/ is older than ${n.file.slice(REPO.length)}: run \`npm run build\` (npm test builds first)`,
    );
}

assertBuilt();

/** `node ...KEEL_COMMAND ...args` runs `keel ...args`. */
export const KEEL_COMMAND: readonly string[] = [join(REPO, 'bin', 'keel.js')];
