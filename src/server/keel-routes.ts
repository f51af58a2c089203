/**
 * The Keel API under `/api`: workflows, events, runs and approvals of one Keel instance, JSON in
 * and out. Every route is registered from one table (`KEEL_ROUTES`) that is also the source of its
 * OpenAPI entry, so no route exists without its document. Each call authenticates first, acts in
 * the key's tenant as its subject, and checks its body and query (zod) before it reads or writes
 * anything. A route that starts or continues a run commits it and walks it in the background
 * (`host.kick`), never in the request. It never inspects another tenant's data, not even to refuse.
 */
import type { KeyObject } from 'node:crypto';
import { Hono } from 'hono';
import type * as z from 'zod';
import { notesOf } from '../app/index.ts';
import type { Keel } from '../app/keel.ts';
import type { HookSpec } from '../core/hooks/index.ts';
import type { OpenWopHost, Principal } from '../openwop/host.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { authenticate } from './auth.ts';
import { idempotent } from './idempotency.ts';
import { openApiDocument } from './openapi.ts';
import { attempt, readBody } from './request.ts';
import { AUDIT_ROUTES } from './routes/audit-routes.ts';
import { CHECKPOINT_ROUTES } from './routes/checkpoint-routes.ts';
import { DRAFT_ROUTES } from './routes/draft-routes.ts';
import { EVENT_ROUTES } from './routes/event-routes.ts';
import { HOOK_ROUTES } from './routes/hook-routes.ts';
import { LIFECYCLE_ROUTES } from './routes/lifecycle-routes.ts';
import { type Call, type KeelRoute, ok, route } from './routes/route.ts';
import { RUN_ROUTES } from './routes/run-routes.ts';
import { SCHEDULE_ROUTES } from './routes/schedule-routes.ts';
import { SESSION_ROUTES } from './routes/session-routes.ts';
import { WORKFLOW_ROUTES } from './routes/workflow-routes.ts';
import { WRIT_ROUTES } from './routes/writ-routes.ts';

export type { Call, KeelRoute } from './routes/route.ts';

/** The table, by area (routes/); its order is the order of the OpenAPI paths. */
export const KEEL_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document',
    tag: 'meta',
    auth: false,
    responses: { 200: 'the OpenAPI document' },
    handle: async () => ok(openApiDocument(KEEL_ROUTES)),
  }),
  ...SESSION_ROUTES,
  ...WORKFLOW_ROUTES,
  ...DRAFT_ROUTES,
  ...LIFECYCLE_ROUTES,
  ...EVENT_ROUTES,
  ...HOOK_ROUTES,
  ...SCHEDULE_ROUTES,
  ...WRIT_ROUTES,
  ...RUN_ROUTES,
  ...AUDIT_ROUTES,
  ...CHECKPOINT_ROUTES,
];

/** Turns zod issues into `validation_error`, naming the first field and listing every problem. */
function validationError(where: 'body' | 'query', issues: readonly z.core.$ZodIssue[]): ProtocolError {
  const problems = issues.flatMap((i) => {
    const at = i.path.map(String).join('.');
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => ({ field: at ? `${at}.${k}` : k, message: 'unknown field' }));
    return [{ field: at || `(${where})`, message: i.message }];
  });
  const first = problems[0] ?? { field: `(${where})`, message: 'invalid' };
  return new ProtocolError(
    'validation_error',
    `${first.field}: ${first.message}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`,
    { field: first.field, problems },
  );
}

function check<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(where, r.error.issues);
  return r.data;
}

/** The Keel API, registered from `KEEL_ROUTES`; mount before the OpenWOP routes. */
export function keelRoutes(
  keel: Keel,
  host: OpenWopHost,
  log: (e: unknown) => void,
  checkpointKey?: KeyObject,
  hooks?: readonly HookSpec[],
): Hono {
  const app = new Hono();
  for (const r of KEEL_ROUTES) {
    const honoPath = r.path.replace(/\{([^}]+)\}/g, ':$1');
    app.on(r.method.toUpperCase(), honoPath, async (c) => {
      const p: Principal = r.auth
        ? await authenticate(keel, c.req.header('Authorization'), notesOf(c))
        : { tenant: '', subject: '' };
      const params = c.req.param() as Record<string, string>;
      const query = r.query ? check(r.query, c.req.query(), 'query') : {};
      const raw = r.method === 'post' ? await readBody(c) : undefined;
      const body = r.body ? check(r.body, raw, 'body') : undefined;
      const traceparent = c.req.header('traceparent');
      const call: Call<unknown, unknown> = {
        keel,
        ...(traceparent !== undefined ? { traceparent } : {}),
        host,
        p,
        params,
        query,
        body,
        ...(checkpointKey ? { checkpointKey } : {}),
        ...(hooks ? { hooks } : {}),
      };
      const reply =
        r.method === 'post' && r.auth
          ? await idempotent(
              keel,
              p,
              c.req.header('Idempotency-Key'),
              `keel.${r.operationId}`,
              { params, body: raw },
              () => attempt(() => r.handle(call), log),
            )
          : await r.handle(call);
      return c.json(reply.body as object, reply.status as 200, reply.headers);
    });
  }
  return app;
}
