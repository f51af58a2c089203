/**
 * The OpenAPI 3.1 document of `keel serve`, generated from route descriptions: the Keel API's come
 * from the same table its routes are registered from (keel-routes.ts), so no route exists without
 * its entry; the OpenWOP operations are listed here without schemas (their contract is OpenWOP's).
 * Request schemas are the zod schemas the routes validate with (`z.toJSONSchema`); the error body
 * and the code → status table come from errors.ts. This module renders; it never routes or reads.
 */
import * as z from 'zod';
import { ENGINE_VERSION } from '../app/index.ts';
import { httpStatusTable } from './errors.ts';

/** What the document needs to know of one operation. */
export interface RouteDoc {
  readonly method: 'get' | 'post';
  /** The OpenAPI path template, e.g. `/api/runs/{runId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  /** Bearer API key required. */
  readonly auth: boolean;
  /** The JSON body, as the route validates it. */
  readonly body?: z.ZodType;
  /** The query parameters, as the route validates them. */
  readonly query?: z.ZodObject;
  /** Success responses: status → description. */
  readonly responses: Readonly<Record<string, string>>;
}

/** The error body of every refusal (errors.ts `ErrorBody`). */
export const ErrorBodySchema = z
  .object({
    error: z.string().describe('the error code; its HTTP status is in components.x-error-statuses'),
    message: z.string().describe('what went wrong, in words, naming the field or the run'),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('plain data: `field` or `problems` [{field, message}] for bad input, `runId`, ...'),
  })
  .describe('The body of every error response.');

const p = (method: 'get' | 'post', path: string, operationId: string, summary: string, auth = true) => ({
  method,
  path,
  operationId,
  summary,
  tag: 'openwop',
  auth,
  responses: { [method === 'post' ? '201' : '200']: 'see the OpenWOP specification' },
});

/** The OpenWOP host surface (openwop-routes.ts): v1 under `/v1`, v2 on bare paths. */
function openWopOperations(): RouteDoc[] {
  const ops: RouteDoc[] = [
    p(
      'get',
      '/.well-known/openwop',
      'openwopDiscovery',
      'OpenWOP discovery (v1 or v2 by OpenWOP-Version)',
      false,
    ),
  ];
  for (const [prefix, v] of [
    ['/v1', 'V1'],
    ['', 'V2'],
  ] as const) {
    ops.push(
      p('post', `${prefix}/runs`, `openwopCreateRun${v}`, 'Create a run of a workflow'),
      p('get', `${prefix}/runs`, `openwopListRuns${v}`, 'List runs'),
      p('get', `${prefix}/workflows/{workflowId}`, `openwopGetWorkflow${v}`, 'A workflow definition'),
      p('get', `${prefix}/runs/{runId}`, `openwopGetRun${v}`, 'A run snapshot (ETag: its ledger head)'),
      p(
        'get',
        `${prefix}/runs/{runId}/events`,
        `openwopRunEvents${v}`,
        'Run events (JSON, or SSE on Accept)',
      ),
      p('get', `${prefix}/runs/{runId}/events/poll`, `openwopPollEvents${v}`, 'Poll run events'),
      {
        ...p('post', `${prefix}/runs/{runId}/cancel`, `openwopCancel${v}`, 'Cancel a run'),
        responses: { 200: 'the run, cancelled' },
      },
      p('post', `${prefix}/runs/{runId}:fork`, `openwopFork${v}`, 'Fork a run (replay or branch)'),
      p(
        'post',
        `${prefix}/runs/{runId}:pause`,
        `openwopPause${v}`,
        'Pause a run after its current node (drainPolicy immediate: cut an idempotent call)',
      ),
      p('post', `${prefix}/runs/{runId}:resume`, `openwopResume${v}`, 'Resume a paused run'),
      p('post', `${prefix}/runs:bulk-cancel`, `openwopBulkCancel${v}`, 'Cancel up to 100 runs'),
      p('get', `${prefix}/runs/{runId}/effects`, `openwopRunEffects${v}`, 'The run’s effect records'),
      p(
        'get',
        `${prefix}/audit/verify`,
        `openwopAuditVerify${v}`,
        'Verify the signed checkpoint chain (served with --checkpoint-key; else 404)',
      ),
      {
        ...p(
          'post',
          `${prefix}/runs/{runId}/interrupts/{nodeId}`,
          `openwopResolveInterrupt${v}`,
          'Resolve an interrupt',
        ),
        responses: { 200: 'the run after the decision' },
      },
    );
  }
  ops.push({
    ...p(
      'post',
      '/v1/runs/{runId}/approvals/{nodeId}',
      'openwopApproveV1',
      'Resolve an approval (sample clients)',
    ),
    responses: { 200: 'the run after the decision' },
  });
  ops.push(
    p(
      'get',
      '/host/effect-seams',
      'openwopEffectSeams',
      'The effect-seam manifest (every guarded outbound path)',
    ),
    p('get', '/v1/openapi.json', 'getOpenApiV1', 'This OpenAPI 3.1 document, at the v1 address', false),
  );
  return ops;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

const errorRef = { $ref: '#/components/responses/Error' };

function operation(r: RouteDoc): Record<string, unknown> {
  const pathParams = [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const parameters: Record<string, unknown>[] = pathParams.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    ...(name === 'runId'
      ? { description: 'a Keel run id, `sha256:<hex>` (the colon may be sent as %3A)' }
      : {}),
  }));
  for (const [name, field] of Object.entries(r.query?.shape ?? {})) {
    const schema = field as z.ZodType;
    parameters.push({
      name,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      schema: jsonSchema(schema),
    });
  }
  if (r.method === 'post' && r.tag !== 'openwop')
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'retries with the same key and request get the first response (22-128 of A-Z a-z 0-9 . _ ~ -)',
      schema: { type: 'string', pattern: '^[A-Za-z0-9._~-]{22,128}$' },
    });
  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(r.responses))
    responses[status] = { description, content: { 'application/json': {} } };
  if (r.body || r.query || pathParams.length > 0) responses['400'] = errorRef;
  if (r.auth) responses['401'] = errorRef;
  if (pathParams.length > 0) responses['404'] = errorRef;
  responses.default = errorRef;
  return {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: [r.tag],
    security: r.auth ? [{ bearer: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(r.body
      ? {
          requestBody: {
            required: !r.body.safeParse({}).success,
            content: { 'application/json': { schema: jsonSchema(r.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The document for `routes` (the Keel API table) plus the OpenWOP operations. */
export function openApiDocument(routes: readonly RouteDoc[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of [...routes, ...openWopOperations()]) {
    const item = paths[r.path] ?? {};
    paths[r.path] = item;
    if (item[r.method]) throw new Error(`openapi: ${r.method.toUpperCase()} ${r.path} is described twice`);
    item[r.method] = operation(r);
  }
  const statuses = httpStatusTable();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keel',
      version: ENGINE_VERSION.split('/')[1] ?? ENGINE_VERSION,
      description:
        'The Keel API (`/api`: workflows, events, runs, approvals) and the OpenWOP host surface of `keel serve`. ' +
        'Authenticate with `Authorization: Bearer <API key>` (`keel keys create`); every call acts in the key’s tenant.',
    },
    tags: [
      { name: 'workflows', description: 'Publish and read workflow versions' },
      {
        name: 'lifecycle',
        description:
          'Tests, shadow comparisons, promotion gates, the replay gate, rollouts, diffs and the hash-chained lifecycle records (promoting takes a person’s key)',
      },
      { name: 'events', description: 'Ingest events; matching LIVE workflows start runs' },
      { name: 'runs', description: 'Runs and their ledgers: history, verify, replay, fork, rerun, cancel' },
      { name: 'approvals', description: 'Pending approvals and their decisions' },
      {
        name: 'audit',
        description:
          'Ledger entries across runs (filtered, paged, counted) and the signed checkpoints verified against every run',
      },
      { name: 'meta', description: 'This document, and who a key is' },
      { name: 'openwop', description: 'The OpenWOP v1/v2 host surface (schemas: see OpenWOP)' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an API key (`keel keys create`)' },
      },
      schemas: {
        ErrorBody: jsonSchema(ErrorBodySchema),
        ErrorCode: { type: 'string', enum: Object.keys(statuses) },
      },
      responses: {
        Error: {
          description: 'A refusal: `{error, message, details?}`; the status follows from `error`',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        },
      },
      'x-error-statuses': statuses,
    },
  };
}
