/**
 * Every request of `keel serve`, observed: a request id (the caller's `X-Request-Id` when it is a
 * plain token, else a random one; echoed back), the latency histogram of GET /metrics, and one
 * structured log line when it ends — method, route shape, status, duration, the tenant its key
 * resolved to and the runs it started or continued. Never a header value, a query, a body, a key
 * or a payload value: the route is the path's shape, with ids replaced.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { type KeelMetrics, type RequestNotes, tieNotes } from '../app/index.ts';
import { sentAlready } from './stream-answer.ts';

/** The part of a pino logger the server uses (pino's Logger satisfies it). */
export interface ServerLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A path segment kept as is: a lower-case word (`api`, `runs`, `.well-known`); anything else is an id. */
const WORD = /^[a-z][a-z0-9._-]{0,31}$/;

/** The shape of a path for a label: words kept, ids replaced, at most 5 segments; unknown routes one label. */
export function routeShape(path: string, status: number): string {
  if (status === 404) return '(unmatched)';
  const segments = path.split('/').filter((s) => s !== '');
  const shaped = segments.slice(0, 5).map((s) => (WORD.test(s) && !/^(sha256|idem|req)/.test(s) ? s : ':id'));
  return `/${shaped.join('/')}${segments.length > 5 ? '/…' : ''}`;
}

export function observeRequests(o: { logger?: ServerLogger; metrics?: KeelMetrics }): MiddlewareHandler {
  return async (c, next) => {
    const given = c.req.header('X-Request-Id');
    const notes: RequestNotes = { requestId: given && REQUEST_ID.test(given) ? given : randomUUID() };
    const started = performance.now();
    tieNotes(c, notes);
    await next();
    // Set on the answer's headers: `c.header` after the answer is made would rebuild it as a
    // streamed fetch Response, which the adapter then copies chunk by chunk. An answer written to
    // Node's response as it streams (stream-answer.ts) set it itself.
    if (!sentAlready(c.res))
      try {
        c.res.headers.set('X-Request-Id', notes.requestId);
      } catch {
        // A response whose headers are immutable goes without it.
      }
    const seconds = (performance.now() - started) / 1000;
    const status = c.res.status;
    const route = routeShape(new URL(c.req.url).pathname, status);
    o.metrics?.http.observe(seconds, {
      method: c.req.method,
      route,
      status: `${Math.floor(status / 100)}xx`,
    });
    if (o.logger) {
      const line: Record<string, unknown> = {
        reqId: notes.requestId,
        method: c.req.method,
        route,
        status,
        ms: Math.round(seconds * 1e4) / 10,
      };
      if (notes.tenant !== undefined) line.tenant = notes.tenant;
      if (notes.runIds?.length) line.runIds = notes.runIds;
      if (status >= 500) o.logger.error(line, 'request failed');
      else o.logger.info(line, 'request');
    }
  };
}
