#!/usr/bin/env node
// The `keel` command: runs the CLI compiled to dist/ by `npm run build`, which `npm install` runs
// in a checkout (the `prepare` script) and which ships in the package.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/keel-command.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'error: keel is not built (no dist/): run `npm install` or `npm run build` in its checkout\n',
  );
  process.exit(1);
}
await import(entry.href);
