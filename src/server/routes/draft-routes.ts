/**
 * Keel API, authoring: `GET /api/workflows/{id}/explain` reads a stored version back (explainSpec),
 * for the console and any client. Drafts: `POST /api/drafts` turns a request in plain words into a DRAFT spec over the
 * tenant's tool catalog (the offline compiler, docs/authoring.md), matched against the events given as
 * shapes (`events`) or as samples (`samples`, read like `keel draft --events`). The first call answers the spec,
 * its hash, the read-back and the questions, and publishes nothing; a second call with the same
 * request and `confirm: <specHash>` publishes that spec as DRAFT. A hash that is not the draft's, or
 * a draft with questions, is refused and changes nothing.
 */

import * as z from 'zod';
import { compileRequest, draftSpec, eventShapesOf, MAX_REQUEST_LENGTH } from '../../core/authoring/index.ts';
import { MAX_INT32 } from '../../core/int-range.ts';
import { isSpecId } from '../../core/spec/index.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import { type KeelRoute, ok, route, versionOf } from './route.ts';

const EventShapeBody = z.strictObject({
  type: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
    .describe('an event type, e.g. refund.requested'),
  payload: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/))
    .max(200)
    .describe('the payload fields events of this type carry'),
});

const DraftBody = z
  .strictObject({
    request: z
      .string()
      .min(1)
      .max(MAX_REQUEST_LENGTH)
      .describe('what the workflow should do, in plain words'),
    id: z
      .string()
      .refine(isSpecId, 'expected a workflow id of lowercase letters, digits, ".", "_" or "-"')
      .optional(),
    events: z
      .array(EventShapeBody)
      .max(200)
      .optional()
      .describe('the events the trigger and arguments are matched against'),
    samples: z
      .array(z.unknown())
      .max(500)
      .optional()
      .describe(
        'sample events as your system sends them ({type, payload}); their types and payload fields count as events',
      ),
    confirm: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .optional()
      .describe('the specHash of the draft a person reviewed: publishes it as DRAFT'),
  })
  .describe('A request to draft, and (on the second call) the hash of the draft being confirmed.');

export const DRAFT_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'post',
    path: '/api/drafts',
    operationId: 'draftWorkflow',
    summary: 'Draft a workflow spec from a request in plain words; publish it as DRAFT once confirmed',
    tag: 'workflows',
    auth: true,
    body: DraftBody,
    responses: {
      200: 'the draft: spec, specHash, readBack, questions (nothing published)',
      201: 'the confirmed draft, published as DRAFT',
      409: 'draft_mismatch: confirm names another spec than this request drafts',
      422: 'draft_has_questions: a draft with questions is never published',
    },
    async handle({ keel, p, body }) {
      // Shapes and samples merge into one shape per event type.
      const asSample = (e: { type: string; payload: string[] }) => ({
        type: e.type,
        payload: Object.fromEntries(e.payload.map((f) => [f, null])),
      });
      const events = await keel.workflows.draftEvents(
        p.tenant,
        eventShapesOf([...(body.events ?? []).map(asSample), ...(body.samples ?? [])]),
      );
      const catalog = keel.workflows.draftCatalog(p.tenant, body.events || body.samples ? events : undefined);
      const draft = draftSpec(compileRequest(body.request, catalog, body.id ? { id: body.id } : {}), catalog);
      const answer = {
        spec: draft.spec ?? null,
        ...(draft.partial ? { partial: draft.partial } : {}),
        specHash: draft.specHash ?? null,
        readBack: draft.readBack ?? null,
        questions: draft.questions,
        notes: draft.notes,
        publishable: draft.publishable,
      };
      if (body.confirm === undefined) return ok({ ...answer, published: null });
      if (!draft.publishable || !draft.spec)
        throw new ProtocolError(
          'draft_has_questions',
          `this draft has ${draft.questions.length} question${draft.questions.length === 1 ? '' : 's'}; answer them in the request and draft again`,
          { questions: draft.questions },
        );
      if (body.confirm !== draft.specHash)
        throw new ProtocolError(
          'draft_mismatch',
          `confirm: ${body.confirm} is not the draft this request gives (${draft.specHash}); review the draft again and confirm its specHash`,
          { field: 'confirm', specHash: draft.specHash },
        );
      // Only ever as DRAFT: the compiler writes no other status, and publishing refuses any other.
      const published = await keel.workflows.publishObject(p.tenant, draft.spec, p.subject);
      return ok(
        { ...answer, published: { ...published.record, created: published.created } },
        published.created ? 201 : 200,
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/explain',
    operationId: 'explainWorkflow',
    summary: 'A workflow version read back in plain language, with its risks (keel explain)',
    tag: 'workflows',
    auth: true,
    query: z.object({ version: z.coerce.number().int().min(1).max(MAX_INT32).optional() }),
    responses: { 200: '{workflowId, version, status, summary, trigger, steps, limits, risks, policy, text}' },
    async handle({ keel, p, params, query }) {
      const v = await versionOf(keel, p.tenant, params, query.version);
      const readBack = keel.workflows.explain(p.tenant, { ...v.spec, status: v.status });
      return ok({ workflowId: v.workflowId, version: v.version, status: v.status, ...readBack });
    },
  }),
];
