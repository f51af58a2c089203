/**
 * The `keel` process: runs the command line with this process's arguments. bin/keel.js runs the
 * build of this module (dist/); tests and benchmarks run this source through tsx
 * (src/testing/keel-command.ts), so both start the same way.
 */
import { main } from './main.ts';

await main(process.argv);
