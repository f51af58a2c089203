/**
 * The `keel` process: runs the command line with this process's arguments. bin/keel.js runs the
 * build of this module (dist/); tests and benchmarks run this source through tsx
 * (src/testing/keel-command.ts), so both start the same way. A reader that closes its end of
 * stdout or stderr early (`keel runs ls | head`) ends the output quietly (closed-pipe.ts).
 */
import { quietOnClosedPipe } from './closed-pipe.ts';
import { main } from './main.ts';

quietOnClosedPipe(process.stdout);
quietOnClosedPipe(process.stderr);
await main(process.argv);
