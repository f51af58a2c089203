/**
 * Runs the `keel` program's `main` in a worker thread, one command per message, so tests can run
 * many commands without a process each: its stdout and stderr are the worker's own (the test
 * reads them from the Worker), and each command ends with a marker line on both, then a message
 * carrying its exit code. See `CliWorker` in cli-in-process.ts.
 */
import { parentPort } from 'node:worker_threads';
import { main } from '../../src/cli/main.ts';

export const END = '\u0000end-of-command';

parentPort!.on('message', async ({ id, argv }: { id: number; argv: string[] }) => {
  process.exitCode = 0;
  try {
    await main(['node', 'keel', ...argv]);
  } catch (e) {
    process.stderr.write(`main threw: ${String(e)}\n`);
    process.exitCode = 1;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  process.stdout.write(`${END} ${id}\n`);
  process.stderr.write(`${END} ${id}\n`);
  parentPort!.postMessage({ id, code });
});
