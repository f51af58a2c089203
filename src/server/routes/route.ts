/**
 * One row of the Keel API table (`KEEL_ROUTES` in keel-routes.ts): its OpenAPI entry and its
 * handler, typed by the schemas it is declared with, plus the input shapes several areas share.
 * The area files under routes/ build their rows with `route()`; keel-routes.ts assembles and mounts
 * them. These live here, not in keel-routes.ts, so no area file imports the module that imports it.
 */
import type { KeyObject } from 'node:crypto';
import * as z from 'zod';
import type { Keel } from '../../app/keel.ts';
import type { HookSpec } from '../../core/hooks/index.ts';
import { instantBound, instantMessage } from '../../core/instant.ts';
import { isSpecId, quoteInput } from '../../core/spec/index.ts';
import type { OpenWopHost, Principal } from '../../openwop/host.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import type { VersionRecord } from '../../ports/index.ts';
import type { Reply } from '../idempotency.ts';
import type { RouteDoc } from '../openapi.ts';
import { MAX_RUN_WAIT_MS } from '../run-stops.ts';

/** What a handler is given: the instance, the caller, and its checked input. */
export interface Call<B, Q> {
  readonly keel: Keel;
  readonly host: OpenWopHost;
  readonly p: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  readonly body: B;
  /** The public key `keel serve` signs checkpoints with, when it does (its audit surface pins it). */
  readonly checkpointKey?: KeyObject;
  /** The hooks this server serves (`--hooks`), every tenant's: a route shows a caller its tenant's only. */
  readonly hooks?: readonly HookSpec[];
  /** The request's W3C `traceparent` header, as sent (a route that starts runs records it when valid). */
  readonly traceparent?: string;
}

export interface KeelRoute extends RouteDoc {
  handle(x: Call<unknown, unknown>): Promise<Reply>;
}

type Out<S, Else> = S extends z.ZodType ? z.output<S> : Else;

/** One table row; the handler's `body` and `query` are typed by the schemas it is declared with. */
export function route<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
>(
  r: Omit<RouteDoc, 'body' | 'query'> & {
    body?: B;
    query?: Q;
    handle(x: Call<Out<B, undefined>, Out<Q, Record<string, never>>>): Promise<Reply>;
  },
): KeelRoute {
  return r as unknown as KeelRoute;
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });

/**
 * The workflow id of a path: what a spec may declare as its id, else 400 naming `workflowId` (a
 * path such as `..%2F..%2Fetc` is bad input, not a workflow that happens to be missing).
 */
export function workflowIdOf(params: Readonly<Record<string, string>>): string {
  const id = params.workflowId ?? '';
  if (!isSpecId(id))
    throw new ProtocolError(
      'validation_error',
      `workflowId: expected a workflow id of lowercase letters, digits, ".", "_" or "-", got ${quoteInput(id)}`,
      { field: 'workflowId' },
    );
  return id;
}

/** The workflow version a route names (`?version=`, else the newest) in the caller's tenant, else 404. */
export async function versionOf(
  keel: Keel,
  tenant: string,
  params: Readonly<Record<string, string>>,
  version: number | undefined,
): Promise<VersionRecord> {
  const id = workflowIdOf(params);
  const v = await keel.workflows.get(tenant, id, version);
  if (!v)
    throw new ProtocolError('not_found', `workflow ${id}${version ? ` v${version}` : ''} not found`, {
      workflowId: id,
      ...(version ? { version } : {}),
    });
  return v;
}

/** An RFC 3339 instant, as a query bound on a time (`since`, `until`); the message says why not. */
export const Instant = z
  .string()
  .max(64)
  .superRefine((s, ctx) => {
    if (instantBound(s) !== undefined) return;
    const why = instantMessage('', s)?.replace(/^: /, '') ?? 'outside the years 0000-9999';
    ctx.addIssue({ code: 'custom', message: why });
  })
  .describe('RFC 3339, e.g. 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00');

/** A free-text note or reason. */
export const Note = z.string().max(4000);

/** `waitMs`: how long a request may wait for its runs to stop running (a long poll; run-stops.ts). */
export const WaitMs = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_RUN_WAIT_MS)
  .optional()
  .describe(`wait up to this many ms for the run to stop running (0..${MAX_RUN_WAIT_MS})`);

/** An event as `keel emit` takes it; `parseEvent` then checks times, tenant and canonical payload. */
export const EventBody = z
  .strictObject({
    id: z.string().min(1).max(512),
    type: z.string().min(1).max(512),
    tenant: z.string().optional().describe('if given, must be the key’s tenant'),
    source: z.string().max(512).optional(),
    subject: z.string().max(512).optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
    time: z.string().min(1).max(64).describe('RFC 3339, e.g. 2026-01-31T12:00:00Z'),
  })
  .describe('A canonical event: {id, type, tenant?, source?, subject?, payload?, time}');

/** A writ as a writ file holds it, `{chain: [root, ..., writ]}`, or the chain itself. */
export const WritValue = z
  .union([z.looseObject({ chain: z.array(z.unknown()).min(1) }), z.array(z.unknown()).min(1)])
  .describe('a writ file’s value {chain: [root, ..., writ]}, or the chain');
