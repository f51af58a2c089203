/**
 * Listening: `startServer` binds the app to a port on Node's HTTP server and returns a handle
 * whose `close` stops accepting, lets background walks reach a step boundary, and closes the store.
 *
 * With embedded walkers (the default) the server also recovers: a worker of its own claims, at
 * start and then continually, every run that is running with nobody walking it — its own runs
 * from before a crash, runs a killed `keel emit` left, runs whose walker's lease expired — and
 * walks each from its ledger head, exactly as `keel worker` does — and works the shadow queue
 * (every tenant's comparisons still to make, a dead process's included), yielding to live work. With
 * `walkers: 'workers'` both are left to the `keel worker` processes.
 */

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startCheckpointer } from '../app/checkpointer.ts';
import type { Keel } from '../app/keel.ts';
import { keelScheduler } from '../app/scheduler.ts';
import type { WorkerEvent } from '../worker/index.ts';
import { createServerApp, type ServerOptions } from './app.ts';
import { isLoopback } from './loopback.ts';

export { isLoopback };

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startServer(
  keel: Keel,
  o: ServerOptions & {
    port?: number;
    hostname?: string;
    /** The recovery worker (embedded walkers only): runs walked at once, and what it reports. */
    recovery?: { concurrency?: number; log?: (e: WorkerEvent) => void };
    /** The bearer token GET /metrics asks for; without one it is served only on a loopback address. */
    metricsToken?: string;
  } = {},
): Promise<RunningServer> {
  const hostname = o.hostname ?? '127.0.0.1';
  const { app, host } = createServerApp(keel, {
    ...o,
    metricsAccess: {
      ...(o.metricsToken !== undefined ? { token: o.metricsToken } : {}),
      loopback: isLoopback(hostname),
    },
  });
  const recovery =
    o.walkers === 'workers'
      ? undefined
      : keel.worker({
          role: 'serve',
          concurrency: o.recovery?.concurrency ?? 8,
          ...(o.recovery?.log ? { log: o.recovery.log } : {}),
        });
  const shadows =
    o.walkers === 'workers'
      ? undefined
      : keel.lifecycle.shadowQueue.run({ busy: () => (recovery?.walking ?? 0) > 0 });
  // Schedules fire from every serving process; the event index lets one fire start its run.
  const scheduler = keelScheduler(keel);
  scheduler.start();
  const checkpointer = o.checkpoints
    ? startCheckpointer(keel.store, {
        key: o.checkpoints.key,
        everyMs: o.checkpoints.everySeconds * 1000,
        ...(o.checkpoints.log ? { onEvent: o.checkpoints.log } : {}),
        ...(keel.engine.witness ? { witness: keel.engine.witness } : {}),
      })
    : undefined;
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port: o.port ?? 8787, hostname }, () => resolve(s));
      s.once('error', reject);
    });
  } catch (e) {
    // Could not listen (a port in use): the recovery worker must not outlive the refusal, or the
    // process waits forever on its timers while the caller reports the error.
    await recovery?.stop();
    await shadows?.stop();
    await scheduler.stop();
    await checkpointer?.stop();
    await host.drain();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  // Recovery starts once the server listens, not before: nothing a request does waits for it (a
  // run a request starts is walked under this process's lease, which no claim takes while the
  // process lives), and before this line it claimed nothing yet either (its claims were async).
  // A failure to start it (the store refusing the worker's row) is reported like any background error.
  const recoveryStarted = recovery?.start().catch((e: unknown) => o.log?.(e));
  return {
    url: `http://${hostname}:${port}`,
    port,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open event streams would hold the server open; they end with the process.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await recoveryStarted;
      await recovery?.stop();
      await shadows?.stop();
      await scheduler.stop();
      await checkpointer?.stop();
      await host.drain();
    },
  };
}
