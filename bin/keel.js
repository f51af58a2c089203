#!/usr/bin/env node
// The `keel` command: runs the CLI compiled and bundled to dist/ by `npm run build`
// (scripts/build.mjs), which `npm install` runs in a checkout (the `prepare` script) and which
// ships in the package.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/keel-command.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'error: keel is not built (no dist/): run `npm install` or `npm run build` in its checkout\n',
  );
  process.exit(1);
}
await import(entry.href);
