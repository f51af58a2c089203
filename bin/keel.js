#!/usr/bin/env node
// The `keel` command: loads the TypeScript sources through tsx (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
