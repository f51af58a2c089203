/**
 * The Keel API under `/api`: workflows, events, runs and approvals of one Keel instance, JSON in
 * and out. Every route is registered from one table (`KEEL_ROUTES`) that is also the source of its
 * OpenAPI entry, so no route exists without its document. Each call authenticates first, acts in
 * the key's tenant as its subject, and checks its body and query (zod) before it reads or writes
 * anything. A route that starts or continues a run commits it and walks it in the background
 * (`host.kick`), never in the request. It never inspects another tenant's data, not even to refuse.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { Keel } from '../app/keel.ts';
import { RUN_STATUSES } from '../core/ledger/index.ts';
import { parseEvent } from '../core/run/index.ts';
import { WORKFLOW_STATUSES } from '../core/spec/index.ts';
import { compileDefinition, parseDefinition } from '../openwop/definition.ts';
import { type OpenWopHost, type Principal, ProtocolError } from '../openwop/host.ts';
import { authenticate } from './auth.ts';
import { idempotent, type Reply } from './idempotency.ts';
import { openApiDocument, type RouteDoc } from './openapi.ts';
import { attempt, readBody } from './request.ts';

/** What a handler is given: the instance, the caller, and its checked input. */
export interface Call<B, Q> {
  readonly keel: Keel;
  readonly host: OpenWopHost;
  readonly p: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  readonly body: B;
}

export interface KeelRoute extends RouteDoc {
  handle(x: Call<unknown, unknown>): Promise<Reply>;
}

type Out<S, Else> = S extends z.ZodType ? z.output<S> : Else;

/** One table row; the handler's `body` and `query` are typed by the schemas it is declared with. */
function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodObject | undefined = undefined>(
  r: Omit<RouteDoc, 'body' | 'query'> & {
    body?: B;
    query?: Q;
    handle(x: Call<Out<B, undefined>, Out<Q, Record<string, never>>>): Promise<Reply>;
  },
): KeelRoute {
  return r as unknown as KeelRoute;
}

const ok = (body: unknown, status = 200): Reply => ({ status, body });

const RUN_ID = /^sha256:[0-9a-f]{64}$/;

/** The run id of a path (Hono has decoded `%3A`); a malformed one is bad input, not a missing run. */
function runIdOf(params: Readonly<Record<string, string>>): string {
  const id = params.runId ?? '';
  if (!RUN_ID.test(id))
    throw new ProtocolError(
      'validation_error',
      `runId: expected a Keel run id sha256:<64 hex>, got ${JSON.stringify(id)}`,
      {
        field: 'runId',
      },
    );
  return id;
}

const Note = z.string().max(4000);

/** An event as `keel emit` takes it; `parseEvent` then checks times, tenant and canonical payload. */
const EventBody = z
  .strictObject({
    id: z.string().min(1).max(512),
    type: z.string().min(1).max(512),
    tenant: z.string().optional().describe('if given, must be the key’s tenant'),
    source: z.string().max(512).optional(),
    subject: z.string().max(512).optional(),
    payload: z.record(z.string(), z.unknown()).optional(),
    time: z.string().min(1).max(64).describe('ISO-8601, e.g. 2026-01-31T12:00:00Z'),
  })
  .describe('A canonical event: {id, type, tenant?, source?, subject?, payload?, time}');

/** A writ as a writ file holds it, `{chain: [root, ..., writ]}`, or the chain itself. */
const WritValue = z
  .union([z.looseObject({ chain: z.array(z.unknown()).min(1) }), z.array(z.unknown()).min(1)])
  .describe('a writ file’s value {chain: [root, ..., writ]}, or the chain');

const PublishBody = z
  .looseObject({
    text: z.string().min(1).optional().describe('the spec as YAML (or JSON) text'),
    format: z.enum(['yaml', 'json']).optional().describe('how `text` is written (default yaml)'),
    file: z.string().min(1).max(512).optional().describe('the name problems are reported against'),
  })
  .describe(
    'A workflow spec object (id, version, status DRAFT, triggers, steps, limits), an OpenWOP workflow definition (id, name, version, nodes, edges, variables), or {text, format?, file?} with the spec as text.',
  );

const PUBLISH_TEXT_KEYS = new Set(['text', 'format', 'file']);

const WorkflowQuery = z.object({ version: z.coerce.number().int().min(1).optional() });

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

  // Workflows
  route({
    method: 'post',
    path: '/api/workflows',
    operationId: 'publishWorkflow',
    summary: 'Publish a workflow version (as DRAFT)',
    tag: 'workflows',
    auth: true,
    body: PublishBody,
    responses: {
      201: 'the version record, created',
      200: 'the version record: identical content was published before',
    },
    async handle({ keel, p, body }) {
      let published: Awaited<ReturnType<Keel['workflows']['publish']>>;
      if (body.text !== undefined) {
        for (const k of Object.keys(body))
          if (!PUBLISH_TEXT_KEYS.has(k))
            throw new ProtocolError(
              'validation_error',
              `${k}: unexpected next to text (text, format, file)`,
              {
                field: k,
              },
            );
        const file = body.file ?? '(request)';
        if (body.format === 'json') {
          let value: unknown;
          try {
            value = JSON.parse(body.text);
          } catch (e) {
            throw new ProtocolError('validation_error', `text: not valid JSON (${(e as Error).message})`, {
              field: 'text',
            });
          }
          published = await keel.workflows.publishObject(p.tenant, value, p.subject);
        } else published = await keel.workflows.publish(p.tenant, body.text, file, p.subject);
      } else if (Array.isArray((body as { nodes?: unknown }).nodes)) {
        // An OpenWOP definition (nodes + edges): compiled to a spec, published like one.
        published = await keel.workflows.publishObject(
          p.tenant,
          compileDefinition(parseDefinition(body)),
          p.subject,
        );
      } else published = await keel.workflows.publishObject(p.tenant, body, p.subject);
      return ok({ ...published.record, created: published.created }, published.created ? 201 : 200);
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows',
    operationId: 'listWorkflows',
    summary: 'List workflow versions',
    tag: 'workflows',
    auth: true,
    query: z.object({ workflowId: z.string().min(1).optional() }),
    responses: { 200: '{versions}: every version of the tenant (of one workflow with ?workflowId)' },
    async handle({ keel, p, query }) {
      return ok({ versions: await keel.workflows.list(p.tenant, query.workflowId) });
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}',
    operationId: 'getWorkflow',
    summary: 'A workflow version (the newest, or ?version=)',
    tag: 'workflows',
    auth: true,
    query: WorkflowQuery,
    responses: { 200: 'the version record, with its spec' },
    async handle({ keel, p, params, query }) {
      const id = params.workflowId!;
      const v = await keel.workflows.get(p.tenant, id, query.version);
      if (!v)
        throw new ProtocolError(
          'not_found',
          `workflow ${id}${query.version ? ` v${query.version}` : ''} not found`,
          { workflowId: id, ...(query.version ? { version: query.version } : {}) },
        );
      return ok(v);
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/versions',
    operationId: 'listWorkflowVersions',
    summary: 'The versions of a workflow and its promotions',
    tag: 'workflows',
    auth: true,
    responses: { 200: '{workflowId, versions, promotions}' },
    async handle({ keel, p, params }) {
      const id = params.workflowId!;
      const versions = await keel.workflows.list(p.tenant, id);
      if (versions.length === 0)
        throw new ProtocolError('not_found', `workflow ${id} not found`, { workflowId: id });
      return ok({ workflowId: id, versions, promotions: await keel.workflows.promotions(p.tenant, id) });
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/promote',
    operationId: 'promoteWorkflow',
    summary: 'Promote a version to another status (recorded with who did it)',
    tag: 'workflows',
    auth: true,
    body: z.strictObject({
      to: z.enum(WORKFLOW_STATUSES),
      version: z.number().int().min(1).optional().describe('default: the newest version'),
    }),
    responses: { 200: 'the promotion: {workflowId, version, from, to, by, at}' },
    async handle({ keel, p, params, body }) {
      return ok(await keel.workflows.promote(p.tenant, params.workflowId!, body.to, p.subject, body.version));
    },
  }),

  // Events
  route({
    method: 'post',
    path: '/api/events',
    operationId: 'emitEvent',
    summary: 'Ingest an event: each matching LIVE or AUTONOMOUS workflow starts a run',
    description: 'Runs are committed and walked in the background; poll GET /api/runs/{runId}.',
    tag: 'events',
    auth: true,
    body: EventBody,
    responses: {
      201: '{eventId, runs}: at least one run was started',
      200: '{eventId, runs}: no new run (no match, or the event was ingested before)',
    },
    async handle({ keel, host, p, body }) {
      const r = await keel.events.emit(p.tenant, body, { walk: 'enqueue' });
      for (const run of r.runs) if (run.created) host.kick(p.tenant, run.runId);
      return ok(r, r.runs.some((x) => x.created) ? 201 : 200);
    },
  }),

  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/runs',
    operationId: 'startRun',
    summary: 'Start a run of a workflow for an event, optionally under a writ',
    description:
      'Any status may be started explicitly (unlike routing). With `writ`, the chain is verified against the tenant’s trusted keys (configured and stored) and revocations first; a refused or revoked writ starts no run (403 writ_refused). The run is walked in the background.',
    tag: 'runs',
    auth: true,
    body: z.strictObject({
      event: EventBody,
      writ: WritValue.optional(),
      version: z.number().int().min(1).optional().describe('default: the newest version'),
    }),
    responses: { 201: 'the run, created', 200: 'the same run, existing (same identity)' },
    async handle({ keel, host, p, params, body }) {
      const r = await keel.runs.start(p.tenant, params.workflowId!, body.event, {
        walk: 'enqueue',
        ...(body.writ !== undefined ? { writ: body.writ as { chain: unknown[] } } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
      });
      if (r.created) host.kick(p.tenant, r.runId);
      return ok(r, r.created ? 201 : 200);
    },
  }),

  // Writs
  route({
    method: 'post',
    path: '/api/writs/inspect',
    operationId: 'inspectWrit',
    summary: 'Verify a writ against the tenant’s trusted keys (configured and stored) and revocations',
    tag: 'writs',
    auth: true,
    body: z.strictObject({ writ: WritValue }),
    responses: {
      200: '{hash, verified, refusal?: {code, link, message}, revoked?, writ, chain: [{id, hash, issuer, depth}]}',
    },
    async handle({ keel, p, body }) {
      return ok(await keel.writs.inspect(p.tenant, body.writ));
    },
  }),
  route({
    method: 'post',
    path: '/api/writs/revoke',
    operationId: 'revokeWrit',
    summary: 'Revoke a writ (by hash, or the writ itself): it and every writ derived from it refuse',
    tag: 'writs',
    auth: true,
    body: z
      .strictObject({
        hash: z.string().min(1).max(100).optional().describe('the writ hash, sha256:<64 hex>'),
        writ: WritValue.optional(),
        reason: Note.optional(),
      })
      .refine((b) => (b.hash === undefined) !== (b.writ === undefined), {
        message: 'expected exactly one of hash and writ',
      }),
    responses: {
      201: '{created: true, record: {tenant, hash, by, at, reason?}}',
      200: '{created: false, record}: revoked before; the first revocation stands',
    },
    async handle({ keel, p, body }) {
      const r = await keel.writs.revoke(p.tenant, body.hash ?? body.writ, p.subject, body.reason);
      return ok(r, r.created ? 201 : 200);
    },
  }),
  route({
    method: 'get',
    path: '/api/writs/trusted-keys',
    operationId: 'listTrustedKeys',
    summary: 'The tenant’s stored trusted writ keys, retired ones included',
    tag: 'writs',
    auth: true,
    responses: { 200: '{keys: [{tenant, keyId, publicKeyPem, addedBy, addedAt, retiredAt?}]}' },
    async handle({ keel, p }) {
      return ok({ keys: await keel.writs.trusted(p.tenant) });
    },
  }),
  route({
    method: 'post',
    path: '/api/writs/trusted-keys',
    operationId: 'trustKey',
    summary: 'Trust an Ed25519 public key (SPKI PEM) to sign the tenant’s writs',
    tag: 'writs',
    auth: true,
    body: z.strictObject({ publicKeyPem: z.string().min(1).max(4000) }),
    responses: {
      201: '{created: true, record}',
      200: '{created: false, record}: the key was stored before (a retired key stays retired)',
    },
    async handle({ keel, p, body }) {
      const r = await keel.writs.trust(p.tenant, body.publicKeyPem, p.subject);
      return ok(r, r.created ? 201 : 200);
    },
  }),

  // Runs
  route({
    method: 'get',
    path: '/api/runs',
    operationId: 'listRuns',
    summary: 'List runs, newest first, a page at a time',
    tag: 'runs',
    auth: true,
    query: z.object({
      status: z.enum(RUN_STATUSES).optional(),
      workflowId: z.string().min(1).optional(),
      limit: z.coerce.number().int().min(1).max(100).optional().describe('default 50'),
      cursor: z.string().min(1).optional().describe('`next` of the previous page'),
    }),
    responses: { 200: '{runs, next?}' },
    async handle({ keel, p, query }) {
      const page = await keel.runs.list(p.tenant, {
        limit: query.limit ?? 50,
        ...(query.status ? { status: query.status } : {}),
        ...(query.workflowId ? { workflowId: query.workflowId } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
      return ok({ runs: page.runs, ...(page.next ? { next: page.next } : {}) });
    },
  }),
  route({
    method: 'get',
    path: '/api/runs/{runId}',
    operationId: 'getRun',
    summary: 'A run: status, pinned version, ledger head',
    tag: 'runs',
    auth: true,
    responses: { 200: 'the run record' },
    async handle({ keel, p, params }) {
      return ok(await keel.runs.get(p.tenant, runIdOf(params)));
    },
  }),
  route({
    method: 'get',
    path: '/api/runs/{runId}/history',
    operationId: 'getRunHistory',
    summary: 'The run’s history in plain language, one line per ledger entry',
    tag: 'runs',
    auth: true,
    responses: { 200: '{runId, history: [{seq, at, kind, text}]}' },
    async handle({ keel, p, params }) {
      const runId = runIdOf(params);
      return ok({ runId, history: await keel.runs.history(p.tenant, runId) });
    },
  }),
  route({
    method: 'get',
    path: '/api/runs/{runId}/entries',
    operationId: 'getRunEntries',
    summary: 'The run’s ledger entries, decoded, in seq order',
    tag: 'runs',
    auth: true,
    responses: { 200: '{runId, entries}' },
    async handle({ keel, p, params }) {
      const runId = runIdOf(params);
      return ok({ runId, entries: await keel.runs.entries(p.tenant, runId) });
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/verify',
    operationId: 'verifyRun',
    summary: 'Verify the run’s stored ledger (hashes, chain, seq, payloads) without executing',
    tag: 'runs',
    auth: true,
    responses: { 200: '{ok: true, entries, head} or {ok: false, entries, failure: {code, seq, ...}}' },
    async handle({ keel, p, params }) {
      return ok(await keel.runs.verify(p.tenant, runIdOf(params)));
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/replay',
    operationId: 'replayRun',
    summary: 'Re-execute the run against its ledger, everything served from the record, and compare',
    tag: 'runs',
    auth: true,
    responses: { 200: '{identical, runId, entries, divergence?}' },
    async handle({ keel, p, params }) {
      return ok(await keel.runs.replay(p.tenant, runIdOf(params)));
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/fork',
    operationId: 'forkRun',
    summary: 'Fork a run at fromSeq: replay serves recorded values, branch draws afresh',
    tag: 'runs',
    auth: true,
    body: z.strictObject({
      fromSeq: z.number().int().min(0),
      mode: z.enum(['replay', 'branch']),
      event: EventBody.optional().describe('branch only: start from another event'),
      version: z.number().int().min(1).optional().describe('branch only: continue on another version'),
    }),
    responses: { 201: 'the fork, created (walked in the background)', 200: 'the same fork, existing' },
    async handle({ keel, host, p, params, body }) {
      const runId = runIdOf(params);
      const event = body.event !== undefined ? parseEvent(body.event, p.tenant) : undefined;
      const { run, created } = await keel.engine.fork(p.tenant, runId, {
        fromSeq: body.fromSeq,
        mode: body.mode,
        ...(event ? { event } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
        walk: false,
      });
      if (created) host.kick(p.tenant, run.runId);
      return ok(
        { ...run, created, forkOf: runId, fromSeq: body.fromSeq, mode: body.mode },
        created ? 201 : 200,
      );
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/rerun',
    operationId: 'rerunRun',
    summary: 'A diagnostic re-execution: a new live run linked by attemptOf',
    tag: 'runs',
    auth: true,
    responses: { 201: 'the new attempt' },
    async handle({ keel, p, params }) {
      // engine.rerun walks the attempt in the caller (it takes no walk option yet).
      const r = await keel.runs.rerun(p.tenant, runIdOf(params));
      return ok(r, 201);
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/cancel',
    operationId: 'cancelRun',
    summary: 'Cancel a run that has not finished',
    tag: 'runs',
    auth: true,
    body: z.strictObject({ reason: Note.optional() }),
    responses: { 200: 'the run, cancelled' },
    async handle({ keel, p, params, body }) {
      const runId = runIdOf(params);
      return ok(
        await keel.runs.cancel(p.tenant, runId, {
          by: p.subject,
          ...(body.reason ? { reason: body.reason } : {}),
        }),
      );
    },
  }),

  // Approvals
  route({
    method: 'get',
    path: '/api/approvals',
    operationId: 'listApprovals',
    summary: 'Pending approvals (of one run with ?runId)',
    tag: 'approvals',
    auth: true,
    query: z.object({ runId: z.string().min(1).optional() }),
    responses: { 200: '{approvals}' },
    async handle({ keel, p, query }) {
      return ok({ approvals: await keel.approvals.list(p.tenant, query.runId) });
    },
  }),
  ...(['approve', 'deny'] as const).map((decision) =>
    route({
      method: 'post',
      path: `/api/runs/{runId}/${decision}`,
      operationId: `${decision}Run`,
      summary:
        decision === 'approve'
          ? 'Approve the proposal the run waits for; the run continues in the background'
          : 'Deny the proposal the run waits for; the run stops refused',
      tag: 'approvals',
      auth: true,
      body: z.strictObject({ note: Note.optional() }),
      responses: { 200: 'the run after the decision' },
      async handle({ keel, host, p, params, body }) {
        const runId = runIdOf(params);
        const r = await keel.approvals[decision](p.tenant, runId, p.subject, body.note, { walk: 'enqueue' });
        host.kick(p.tenant, runId);
        return ok(r);
      },
    }),
  ),
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
export function keelRoutes(keel: Keel, host: OpenWopHost, log: (e: unknown) => void): Hono {
  const app = new Hono();
  for (const r of KEEL_ROUTES) {
    const honoPath = r.path.replace(/\{([^}]+)\}/g, ':$1');
    app.on(r.method.toUpperCase(), honoPath, async (c) => {
      const p: Principal = r.auth
        ? await authenticate(keel, c.req.header('Authorization'))
        : { tenant: '', subject: '' };
      const params = c.req.param() as Record<string, string>;
      const query = r.query ? check(r.query, c.req.query(), 'query') : {};
      const raw = r.method === 'post' ? await readBody(c) : undefined;
      const body = r.body ? check(r.body, raw, 'body') : undefined;
      const call: Call<unknown, unknown> = { keel, host, p, params, query, body };
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
