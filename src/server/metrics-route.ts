/**
 * `GET /metrics`: the Prometheus text exposition of this server's KeelMetrics (app/metrics.ts).
 * Guarded on its own, apart from tenants' API keys (the figures span every tenant): with a
 * metrics token, only `Authorization: Bearer <token>` (compared in constant time) reads it;
 * without one, it is served only when the server listens on a loopback address, and refused
 * (403) otherwise.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { KeelMetrics } from '../app/index.ts';

export interface MetricsAccess {
  /** Bearer token required to read /metrics (`--metrics-token`, KEEL_METRICS_TOKEN). */
  readonly token?: string;
  /** Without a token: whether the server is bound to loopback, so /metrics may be read without one. */
  readonly loopback?: boolean;
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function metricsRoutes(metrics: KeelMetrics | undefined, access: MetricsAccess): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    if (!metrics) return c.json({ error: 'not_found', message: 'this server keeps no metrics' }, 404);
    if (access.token !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('Authorization') ?? '');
      // Hashes first: equal lengths for timingSafeEqual, and nothing learnt from how long a token is.
      if (!m || !timingSafeEqual(sha(m[1]!), sha(access.token))) {
        c.header('WWW-Authenticate', 'Bearer realm="metrics"');
        return c.json(
          { error: 'unauthenticated', message: 'send Authorization: Bearer <metrics token>' },
          401,
        );
      }
    } else if (!access.loopback) {
      return c.json(
        {
          error: 'forbidden',
          message:
            'GET /metrics is served without a token only on a loopback address: set --metrics-token (or KEEL_METRICS_TOKEN), or listen on 127.0.0.1',
        },
        403,
      );
    }
    c.header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8');
    c.header('Cache-Control', 'no-store');
    return c.body(await metrics.render(Date.now()));
  });
  return app;
}
