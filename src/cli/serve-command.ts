/**
 * `keel serve`: the Keel API and the OpenWOP host over HTTP, on the store the global options name
 * (embedded SQLite by default). It prints where it listens (JSON with --json, one line otherwise)
 * and stops on SIGTERM or SIGINT: no new connections, background walks reach a step boundary,
 * then the store closes. With embedded walkers it recovers interrupted runs from the start (one
 * stderr line per run it recovers; server/serve.ts).
 */
import type { Command } from 'commander';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { WithContext } from './context.ts';
import { intOption } from './input.ts';
import { printJson } from './output.ts';

export function registerServeCommand(program: Command, withContext: WithContext): void {
  program
    .command('serve')
    .description('serve the Keel API and the OpenWOP host over HTTP (bearer API keys: `keel keys create`)')
    .option('--port <n>', 'TCP port (0 picks a free one)', '8787')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--workers', 'leave runs to `keel worker` processes sharing the store (zero embedded walkers)')
    .action(async (o: { port: string; host: string; workers?: boolean }, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        if (o.host.trim() === '')
          throw new KeelError(ErrorCode.usage, '--host: expected an address', { field: 'host' });
        const { startServer } = await import('../server/serve.ts');
        const server = await startServer(ctx.keel, {
          port: intOption(o.port, '--port', 0),
          hostname: o.host,
          walkers: o.workers ? 'workers' : 'inline',
          // Runs recovered after a crash (this server's own, or a killed command's) are worth a line.
          recovery: {
            log: (e) => {
              if (e.kind !== 'walked' && e.kind !== 'error') return;
              const text = ctx.json
                ? JSON.stringify({ recovery: e })
                : e.kind === 'walked'
                  ? `keel serve: recovered run ${e.runId}: ${e.status} (${e.ms} ms)`
                  : `keel serve: recovery error${e.runId ? ` on run ${e.runId}` : ''}: ${e.message}`;
              process.stderr.write(`${text}\n`);
            },
          },
        });
        if (ctx.json) printJson({ url: server.url, port: server.port, store: ctx.storeName });
        else process.stdout.write(`keel serve: listening on ${server.url} (store ${ctx.storeName})\n`);
        await new Promise<void>((resolve) => {
          for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
        });
        await server.close();
        return undefined;
      }),
    );
}
