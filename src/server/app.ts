/**
 * The HTTP application of `keel serve`: the OpenWOP surface and the Keel API over one Keel
 * instance, errors rendered from one table (`errors.ts`). Building the app opens nothing and
 * listens on nothing (`serve.ts` does), so tests drive it through `app.request` or a real socket.
 */
import type { KeyObject } from 'node:crypto';
import { Hono } from 'hono';
import type { CheckpointerEvent } from '../app/checkpointer.ts';
import type { Keel } from '../app/keel.ts';
import { spkiBase64 } from '../core/checkpoint/index.ts';
import { excerpt } from '../core/spec/index.ts';
import { OpenWopHost } from '../openwop/host.ts';
import { answerHeaders } from './answer-headers.ts';
import { consoleRoutes } from './console.ts';
import { errorReply } from './errors.ts';
import { hookRoutes, type ServedHook } from './hooks/hook-routes.ts';
import { keelRoutes } from './keel-routes.ts';
import { mcpRoutes } from './mcp/mcp-routes.ts';
import { type MetricsAccess, metricsRoutes } from './metrics-route.ts';
import { refusalVersion } from './negotiate.ts';
import { observeRequests, type ServerLogger } from './observe-requests.ts';
import { openWopRoutes } from './openwop-routes.ts';
import { limitBody } from './request.ts';

export interface ServerOptions {
  /** Who walks runs: this process (default) or `keel worker` processes sharing the store. */
  readonly walkers?: 'inline' | 'workers';
  /** Where unexpected errors go (default: stderr). Request bodies and keys are never logged. */
  readonly log?: (e: unknown) => void;
  /** The largest request body accepted, in bytes (default 1 MiB); larger is 413 payload_too_large. */
  readonly maxBodyBytes?: number;
  /** Event streams (SSE) held open at once (default 512); one more is 429 rate_limited with Retry-After. */
  readonly maxEventStreams?: number;
  /** Event streams one tenant may hold open at once (default: half of maxEventStreams). */
  readonly maxEventStreamsPerTenant?: number;
  /** How often a watched run's ledger is read when no append notification came, in ms (default 10 s). */
  readonly eventFeedPollMs?: number;
  /** How often an idle event stream sends a `: keep-alive` comment, in ms (default 15 s). */
  readonly keepAliveMs?: number;
  /** The console's build (default: dist/web of this package, when built). */
  readonly consoleDir?: string;
  /**
   * Periodic signed checkpoints (`--checkpoint-key`): started by `startServer`; the public key is
   * published in discovery and pins what the audit surface accepts.
   */
  /** Structured request logs (pino's Logger fits): one line per request, ids only (observe-requests.ts). */
  readonly logger?: ServerLogger;
  /** Who may read GET /metrics (metrics-route.ts); by default nobody without a token. */
  readonly metricsAccess?: MetricsAccess;
  /** Hooks served at POST /hooks/<name> (a hooks file, `--hooks`; docs/hooks.md), each with its secret. */
  readonly hooks?: readonly ServedHook[];
  /** The clock hooks read (timestamps' window, rate limits), in ms; Date.now by default. */
  readonly hooksNow?: () => number;
  readonly checkpoints?: {
    readonly key: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
    readonly everySeconds: number;
    readonly log?: (e: CheckpointerEvent) => void;
  };
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function createServerApp(keel: Keel, o: ServerOptions = {}) {
  const log = o.log ?? ((e: unknown) => console.error('keel serve:', e));
  const host = new OpenWopHost(keel, {
    walkers: o.walkers ?? 'inline',
    onError: log,
    ...(o.eventFeedPollMs !== undefined ? { feedPollMs: o.eventFeedPollMs } : {}),
  });
  const app = new Hono();
  const metrics = keel.telemetry.metrics;
  app.use('*', answerHeaders());
  if (o.logger || metrics)
    app.use(
      '*',
      observeRequests({ ...(o.logger ? { logger: o.logger } : {}), ...(metrics ? { metrics } : {}) }),
    );
  app.onError((e, c) => {
    const r = errorReply(e);
    if (r.unexpected) log(e);
    if (r.status === 401) c.header('WWW-Authenticate', 'Bearer');
    return c.json(r.body, r.status as 400);
  });
  app.notFound((c) =>
    c.json(
      {
        error: 'not_found',
        message: `no route for ${excerpt(c.req.method, 20)} ${excerpt(new URL(c.req.url).pathname, 200)}`,
      },
      404,
    ),
  );
  const maxSize = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use(
    '*',
    limitBody({
      maxSize,
      // On an OpenWOP path the refusal names its contract, as every protocol response does.
      onError: (c) => {
        const version = refusalVersion(new URL(c.req.url).pathname, c.req.header('OpenWOP-Version'));
        return c.json(
          {
            error: 'payload_too_large',
            message: `the request body is over ${maxSize} bytes (limit maxBodyBytes)`,
            details: { maxBytes: maxSize, limit: 'maxBodyBytes', field: '(body)' },
          },
          413,
          version ? { 'OpenWOP-Version': version } : {},
        );
      },
    }),
  );
  // The console and the Keel API first: the OpenWOP routes' negotiation middleware matches every path.
  app.route('/', metricsRoutes(metrics, o.metricsAccess ?? {}));
  app.route('/', consoleRoutes(o.consoleDir));
  app.route('/', mcpRoutes(keel, log));
  if (o.hooks && o.hooks.length > 0)
    app.route('/', hookRoutes(keel, host, o.hooks, { log, ...(o.hooksNow ? { now: o.hooksNow } : {}) }));
  app.route(
    '/',
    keelRoutes(
      keel,
      host,
      log,
      o.checkpoints?.key.publicKey,
      o.hooks?.map((h) => h.spec),
    ),
  );
  app.route(
    '/',
    openWopRoutes(keel, host, log, {
      ...(o.maxEventStreams !== undefined ? { maxEventStreams: o.maxEventStreams } : {}),
      ...(o.maxEventStreamsPerTenant !== undefined
        ? { maxEventStreamsPerTenant: o.maxEventStreamsPerTenant }
        : {}),
      ...(o.keepAliveMs !== undefined ? { keepAliveMs: o.keepAliveMs } : {}),
      ...(o.checkpoints
        ? {
            audit: {
              publicKey: spkiBase64(o.checkpoints.key.publicKey),
              intervalSeconds: o.checkpoints.everySeconds,
            },
            checkpointKey: o.checkpoints.key.publicKey,
          }
        : {}),
    }),
  );
  return { app, host };
}
