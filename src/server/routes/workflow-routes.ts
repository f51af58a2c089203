/** Keel API, workflows: publish a version (spec, text or OpenWOP definition), list, read (promoting: lifecycle-routes.ts). */

import * as z from 'zod';
import type { Keel } from '../../app/keel.ts';
import { MAX_INT32 } from '../../core/int-range.ts';
import { excerpt, parseJsonText, SPEC_LIMITS, toolSteps } from '../../core/spec/index.ts';
import { compileDefinition, parseDefinition } from '../../openwop/definition.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import { type KeelRoute, ok, route, versionOf, workflowIdOf } from './route.ts';

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

const WorkflowQuery = z.object({ version: z.coerce.number().int().min(1).max(MAX_INT32).optional() });

export const WORKFLOW_ROUTES: readonly KeelRoute[] = [
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
              `${excerpt(k, 60)}: unexpected next to text (text, format, file)`,
              {
                field: excerpt(k, 60),
              },
            );
        const file = body.file ?? '(request)';
        if (body.format === 'json') {
          // Measured as a spec, and a key given twice is refused (JSON.parse would keep the last).
          const r = parseJsonText(body.text, SPEC_LIMITS, file);
          if (!r.ok)
            throw new ProtocolError(
              'validation_error',
              `text: ${r.field === '(body)' ? '' : `${r.field}: `}${r.message}`,
              {
                field: 'text',
              },
            );
          published = await keel.workflows.publishObject(p.tenant, r.value, p.subject);
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
    responses: {
      200: 'the version record, with its spec and its steps’ tools as this server knows them ({name, effect, destructive}; effect null: not registered here)',
    },
    async handle({ keel, p, params, query }) {
      const v = await versionOf(keel, p.tenant, params, query.version);
      const names = [...new Set(toolSteps(v.spec).map((s) => s.tool))];
      const tools = names.map((name) => {
        const d = keel.tools.get(name);
        return { name, effect: d?.effect ?? null, destructive: d?.destructive ?? false };
      });
      return ok({ ...v, tools });
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
      const id = workflowIdOf(params);
      const versions = await keel.workflows.list(p.tenant, id);
      if (versions.length === 0)
        throw new ProtocolError('not_found', `workflow ${id} not found`, { workflowId: id });
      return ok({ workflowId: id, versions, promotions: await keel.workflows.promotions(p.tenant, id) });
    },
  }),
];
