/**
 * Whether dist/ is fresh: built (dist/.build-stamp, written last by the build) after every file
 * and folder it is built from last changed. A folder counts too, so a source removed (or added)
 * since the build makes it stale, as an edited one does. The build skips itself when dist/ is
 * fresh, so `npm install` (the `prepare` script) builds a checkout once and `npm test`, a second
 * `npm install`, or the `prepare` npx runs when it installs the checkout never build it again, and
 * never remove dist/ under a `keel` that is running. `--force` builds regardless.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The trees and files the build reads (tests are not built, so they do not count). */
const TREES = ['src', 'examples', 'templates', 'web', 'bin'];
// Not package-lock.json: `npm install` may write it after its `prepare` built, which must not make
// the next `npm install` build again. After upgrading a dependency, `npm run build` builds anew.
const FILES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/build-fresh.mjs',
  'scripts/bundle-dist.mjs',
];
const TEST = /\.test(-helpers)?\.ts$/;

/** Why dist/ under `root` must be built: the newer source, or no build; undefined when fresh. */
export function staleBecause(root) {
  let built;
  try {
    built = statSync(join(root, 'dist', '.build-stamp')).mtimeMs;
  } catch {
    return 'dist/ is not built';
  }
  const newer = (path) => {
    try {
      return statSync(path).mtimeMs > built;
    } catch {
      return false;
    }
  };
  for (const f of FILES) if (newer(join(root, f))) return `${f} changed since the last build`;
  const walk = (dir) => {
    if (newer(dir)) return dir;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        const found = walk(p);
        if (found) return found;
      } else if (!TEST.test(e.name) && newer(p)) return p;
    }
    return undefined;
  };
  for (const t of TREES) {
    let found;
    try {
      found = walk(join(root, t));
    } catch {
      continue;
    }
    if (found) return `${relative(root, found).split('\\').join('/')} changed since the last build`;
  }
  return undefined;
}
