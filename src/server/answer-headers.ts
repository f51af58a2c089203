/**
 * Headers on every answer of `keel serve`: `X-Content-Type-Options: nosniff`, so a browser never
 * reads a JSON answer (which may quote a tenant's input) as a page or a script, and
 * `Cache-Control: no-store` on every answer that does not set its own, so no browser or proxy
 * keeps a tenant's runs, approvals or ledgers. The console's files and the public discovery
 * document set their own caching; nothing else does.
 */
import type { MiddlewareHandler } from 'hono';

export function answerHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    if (!h.has('X-Content-Type-Options')) h.set('X-Content-Type-Options', 'nosniff');
    if (!h.has('Cache-Control')) h.set('Cache-Control', 'no-store');
  };
}
