/**
 * `keel serve`: the Keel API and the OpenWOP host over HTTP, on the store the global options name
 * (embedded SQLite by default; it must exist unless --create). It prints where it listens (JSON
 * with --json, one line otherwise) and stops on SIGTERM or SIGINT: no new connections, background
 * walks reach a step boundary, then the store closes. With embedded walkers it recovers interrupted
 * runs from the start (one stderr line per run it recovers; server/serve.ts). A port in use, or an
 * address it cannot listen on, is a usage error naming --port or --host.
 */
import { createPublicKey } from 'node:crypto';
import type { Command } from 'commander';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { isLoopback } from '../server/loopback.ts';
import { flagOrEnv, type WithContext } from './context.ts';
import { intOption } from './input.ts';
import { printJson } from './output.ts';

export function registerServeCommand(program: Command, withContext: WithContext): void {
  program
    .command('serve')
    .description('serve the Keel API and the OpenWOP host over HTTP (bearer API keys: `keel keys create`)')
    .option('--port <n>', 'TCP port (0 picks a free one)', '8787')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--workers', 'leave runs to `keel worker` processes sharing the store (zero embedded walkers)')
    .option('--create', 'create the store if it does not exist yet')
    .option(
      '--checkpoint-key <private.pem>',
      'sign a checkpoint of every tenant whose runs moved, periodically, and publish the public key in discovery (env KEEL_CHECKPOINT_KEY)',
    )
    .option('--checkpoint-every <seconds>', 'how often to checkpoint, with --checkpoint-key', '300')
    .option(
      '--metrics-token <token>',
      'bearer token GET /metrics asks for (env KEEL_METRICS_TOKEN; at least 16 characters); without one /metrics is served only on a loopback --host',
    )
    .action(async (o: ServeFlags, cmd: Command) => {
      // The server's modules are loaded before the context loads a tool pack: once a pack has
      // registered its loader hooks (tool-pack.ts), every module resolved makes a round trip to
      // Node's loader thread (~0.3 s for the server's).
      const [hooksFileModule, loggerModule, serveModule] = await Promise.all([
        import('./hooks-file.ts'),
        import('./cli-logger.ts'),
        import('../server/serve.ts'),
      ]);
      return withContext(cmd, async (ctx, g) => {
        if (o.host.trim() === '')
          throw new KeelError(ErrorCode.usage, '--host: expected an address', { field: 'host' });
        const port = intOption(o.port, '--port', 0, 65_535);
        if (port > 65535)
          throw new KeelError(ErrorCode.usage, `--port: expected 0 to 65535, got ${o.port}`, {
            field: 'port',
          });
        const checkpoints = await checkpointOption(o);
        const metricsToken = flagOrEnv(o.metricsToken, 'metrics-token', 'KEEL_METRICS_TOKEN');
        if (metricsToken !== undefined && metricsToken.trim().length < 16)
          throw new KeelError(ErrorCode.usage, '--metrics-token: expected at least 16 characters', {
            field: 'metrics-token',
          });
        // The hooks file (--hooks, KEEL_HOOKS, ./keel.hooks.yaml): checked, and every secret set, before listening.
        const { hooksFileOf, readHooksFile, servedHooks } = hooksFileModule;
        const hooksFile = hooksFileOf(g.hooks);
        const hooks = hooksFile === undefined ? [] : servedHooks(readHooksFile(hooksFile));
        const { cliLogger, errorFields } = loggerModule;
        const log = cliLogger('serve');
        const { startServer } = serveModule;
        let server: Awaited<ReturnType<typeof startServer>>;
        try {
          server = await startServer(ctx.keel, {
            port,
            hostname: o.host,
            walkers: o.workers ? 'workers' : 'inline',
            logger: log,
            ...(hooks.length > 0 ? { hooks } : {}),
            log: (e) => log.error(errorFields(e), 'unexpected error'),
            ...(metricsToken !== undefined ? { metricsToken: metricsToken.trim() } : {}),
            ...(checkpoints
              ? {
                  checkpoints: {
                    ...checkpoints,
                    log: (e) => {
                      if (e.error) log.warn({ tenant: e.tenant, error: e.error }, 'checkpoint refused');
                      else
                        log.info(
                          {
                            tenant: e.tenant,
                            seq: e.made!.checkpoint.seq,
                            runs: e.made!.checkpoint.runs,
                            changed: e.made!.changed,
                          },
                          'checkpoint signed',
                        );
                    },
                  },
                }
              : {}),
            // Runs recovered after a crash (this server's own, or a killed command's) are worth a line.
            recovery: {
              log: (e) => {
                if (e.kind === 'walked')
                  log.info(
                    { kind: e.kind, runId: e.runId, tenant: e.tenant, status: e.status, ms: e.ms },
                    'recovered run',
                  );
                else if (e.kind === 'error')
                  log.error(
                    { kind: e.kind, runId: e.runId, tenant: e.tenant, error: e.message },
                    'recovery error',
                  );
              },
            },
          });
        } catch (e) {
          throw listenError(e, o.host, port);
        }
        if (ctx.json) printJson({ url: server.url, port: server.port, store: ctx.storeName });
        else process.stdout.write(`keel serve: listening on ${server.url} (store ${ctx.storeName})\n`);
        ctx.announceCreated();
        log.info(
          {
            url: server.url,
            store: ctx.storeName,
            traces: ctx.keel.telemetry.traces !== undefined,
            metrics: metricsToken !== undefined ? 'token' : isLoopback(o.host) ? 'loopback' : 'refused',
            hooks: hooks.map((h) => h.spec.name),
          },
          'listening',
        );
        await new Promise<void>((resolve) => {
          for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => resolve());
        });
        await server.close();
        log.info({}, 'stopped');
        return undefined;
      });
    });
}

interface ServeFlags {
  port: string;
  host: string;
  workers?: boolean;
  checkpointKey?: string;
  checkpointEvery: string;
  metricsToken?: string;
}

/** The periodic checkpoints --checkpoint-key (or KEEL_CHECKPOINT_KEY) asks for, if any. */
async function checkpointOption(o: ServeFlags) {
  const file = flagOrEnv(o.checkpointKey, 'checkpoint-key', 'KEEL_CHECKPOINT_KEY');
  if (file === undefined) return undefined;
  const everySeconds = intOption(o.checkpointEvery, '--checkpoint-every', 1);
  const { readKey } = await import('./writ-files.ts');
  const privateKey = readKey(file, 'private');
  return { key: { privateKey, publicKey: createPublicKey(privateKey) }, everySeconds };
}

/** Why the server could not listen, as a person's mistake where it is one. */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new KeelError(
      ErrorCode.usage,
      `--port ${port}: ${where} is already in use; choose another port (--port 0 picks a free one)`,
      { field: 'port', port },
    );
  if (code === 'EACCES')
    return new KeelError(
      ErrorCode.usage,
      `--port ${port}: not allowed to listen on ${where} (ports below 1024 need privileges)`,
      { field: 'port', port },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new KeelError(
      ErrorCode.usage,
      `--host ${host}: cannot listen there (${code === 'EADDRNOTAVAIL' ? 'not an address of this machine' : 'no such host'})`,
      { field: 'host', host },
    );
  return e;
}
