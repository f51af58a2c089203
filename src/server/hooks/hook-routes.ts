/**
 * `POST /hooks/<name>`: deliveries from systems that do not speak Keel, authenticated and mapped as
 * their hook declares (core/hooks, docs/hooks.md). No API key: the hook's secret authenticates the
 * sender, and the hook names the one tenant its events go to, so a path cannot reach another
 * tenant's runs. In order: an unknown hook is 404, a body past the hook's limit 413, a missing or
 * bad signature or a timestamp out of the window 401, past the rate limit 429 with Retry-After
 * (counted after authentication, so nobody without the secret spends a hook's budget), a body that
 * is not JSON (or, sent as application/x-www-form-urlencoded, not a well-formed form) 400, one
 * that fails the schema or the mapping 422 naming the field. A refusal changes nothing. An
 * accepted delivery is emitted as `/api/events` emits (source `hook:<name>`), so a retried
 * delivery answers its first runs and one with other content is 409 event_conflict.
 * Each delivery is counted in /metrics by hook and outcome; a secret is never logged or echoed.
 */
import { Hono } from 'hono';
import { notesOf } from '../../app/index.ts';
import type { Keel } from '../../app/keel.ts';
import {
  type AuthRefusal,
  type HookSpec,
  mapDelivery,
  readDeliveryBody,
  verifyDelivery,
} from '../../core/hooks/index.ts';
import { excerpt } from '../../core/spec/index.ts';
import type { OpenWopHost } from '../../openwop/host.ts';
import { errorReply } from '../errors.ts';
import { TokenBucket } from './token-bucket.ts';

/** A hook as served: its declaration and its secret's value (read from the environment at start). */
export interface ServedHook {
  readonly spec: HookSpec;
  readonly secret: string;
}

/** What a delivery came to, as /metrics counts it. */
export type HookOutcome =
  | 'accepted'
  | 'redelivery'
  | 'conflict'
  | 'unknown_hook'
  | 'too_large'
  | 'rate_limited'
  | AuthRefusal
  | 'body_invalid'
  | 'body_too_large'
  | 'body_schema'
  | 'mapping_failed'
  | 'error';

export interface HookRoutesOptions {
  /** The clock in ms (default Date.now): timestamps' window and the rate limit read it. */
  readonly now?: () => number;
  readonly log: (e: unknown) => void;
}

export function hookRoutes(
  keel: Keel,
  host: OpenWopHost,
  hooks: readonly ServedHook[],
  o: HookRoutesOptions,
): Hono {
  const now = o.now ?? Date.now;
  const byName = new Map(hooks.map((h) => [h.spec.name, h]));
  const buckets = new Map(
    hooks.map((h) => [
      h.spec.name,
      new TokenBucket(h.spec.rateLimit.perSecond, h.spec.rateLimit.burst, now()),
    ]),
  );
  const count = (hook: string, outcome: HookOutcome) =>
    keel.telemetry.metrics?.hookDeliveries.inc({ hook, outcome });
  const app = new Hono();
  app.post('/hooks/:name', async (c) => {
    const name = c.req.param('name');
    const hook = byName.get(name);
    const refuse = (
      outcome: HookOutcome,
      status: number,
      error: string,
      message: string,
      details: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => {
      count(hook ? name : '(unknown)', outcome);
      return c.json(
        { error, message, details: { ...(hook ? { hook: name } : {}), reason: outcome, ...details } },
        status as 400,
        headers,
      );
    };
    if (!hook)
      return refuse(
        'unknown_hook',
        404,
        'not_found',
        `no hook named ${JSON.stringify(excerpt(name, 64))} is served here`,
      );
    const { spec } = hook;
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length > spec.maxBodyBytes)
      return refuse(
        'too_large',
        413,
        'payload_too_large',
        `the body is over ${spec.maxBodyBytes} bytes (limit maxBodyBytes of hook ${name})`,
        {
          maxBytes: spec.maxBodyBytes,
          limit: 'maxBodyBytes',
          field: '(body)',
        },
      );
    const at = now();
    const auth = verifyDelivery(
      spec.auth,
      hook.secret,
      bytes,
      c.req.header(spec.auth.header),
      Math.floor(at / 1000),
    );
    if (!auth.ok)
      return refuse(
        auth.reason,
        401,
        'unauthenticated',
        auth.message,
        { field: spec.auth.header },
        {
          'WWW-Authenticate': `${spec.auth.scheme === 'shared-secret' ? 'Secret' : 'HMAC-SHA256'} realm="hooks/${name}"`,
        },
      );
    const wait = buckets.get(name)!.take(at);
    if (wait > 0)
      return refuse(
        'rate_limited',
        429,
        'rate_limited',
        `hook ${name} takes at most ${spec.rateLimit.perSecond} deliveries a second (burst ${spec.rateLimit.burst}); try again in ${wait} s`,
        {
          retryAfterSeconds: wait,
        },
        { 'Retry-After': String(wait) },
      );
    const body = readDeliveryBody(bytes, c.req.header('content-type'));
    if (!body.ok) {
      const status = body.reason === 'body_too_large' ? 413 : 400;
      return refuse(
        body.reason,
        status,
        status === 413 ? 'payload_too_large' : 'validation_error',
        body.message,
        { field: body.field },
      );
    }
    const headers = new Map<string, string>();
    c.req.raw.headers.forEach((v, k) => {
      headers.set(k.toLowerCase(), v);
    });
    const mapped = mapDelivery(spec, body.value, headers);
    if (!mapped.ok) {
      // Authenticated but not mapped: kept in the tenant's unrouted inbox, redeliverable once the
      // hooks file maps it (docs/events.md). The signature header is not kept.
      const kept = [...headers].filter(([k]) => k !== spec.auth.header.toLowerCase());
      const entry = await keel.events
        .keepFailedDelivery(
          spec.tenant,
          { hook: name, body: new TextDecoder().decode(bytes), headers: Object.fromEntries(kept) },
          `${mapped.reason}: ${mapped.message}`,
        )
        .catch((e: unknown) => {
          o.log(e);
          return undefined;
        });
      return refuse(mapped.reason, 422, 'delivery_invalid', mapped.message, {
        field: mapped.field,
        ...(mapped.reason === 'body_schema' ? { problems: mapped.problems } : {}),
        ...(entry ? { unrouted: entry.id } : {}),
      });
    }
    try {
      const start = host.startWalk(notesOf(c));
      const r = await keel.events.emit(spec.tenant, mapped.event, { ...start, channel: mapped.event.source });
      if (start.walk === 'enqueue')
        for (const run of r.runs) if (run.created) host.kick(spec.tenant, run.runId, notesOf(c));
      count(name, r.redelivery ? 'redelivery' : 'accepted');
      const runs = r.runs.map((x) => ({
        runId: x.runId,
        workflowId: x.workflowId,
        version: x.version,
        created: x.created,
      }));
      return c.json(
        {
          hook: name,
          eventId: r.eventId,
          source: r.source,
          runs,
          ...(r.redelivery ? { redelivery: true, firstDeliveredAt: r.firstDeliveredAt } : {}),
          ...(r.unrouted ? { unrouted: r.unrouted } : {}),
        },
        runs.some((x) => x.created) ? 201 : 200,
      );
    } catch (e) {
      const r = errorReply(e);
      if (r.unexpected) o.log(e);
      count(name, r.body.error === 'event_conflict' ? 'conflict' : 'error');
      return c.json(r.body, r.status as 400);
    }
  });
  return app;
}
