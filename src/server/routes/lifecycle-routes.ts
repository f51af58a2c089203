/**
 * Keel API, the lifecycle of a workflow (docs/lifecycle.md): promote one step (gated; an override
 * gives the reason), judge a gate, run a version's tests, read a shadow version's comparisons,
 * run the replay gate, start, advance and roll back a rollout, diff two versions, and read the
 * workflow's hash-chained lifecycle records. Promoting, overriding and starting or advancing a
 * rollout take a person's key (`keel keys create --human`): a service key is 403 forbidden.
 */

import * as z from 'zod';
import { MAX_INT32 } from '../../core/int-range.ts';
import { WORKFLOW_STATUSES } from '../../core/spec/index.ts';
import { Instant, type KeelRoute, Note, ok, route, workflowIdOf } from './route.ts';

const Version = z.number().int().min(1).max(MAX_INT32);
const Override = z.strictObject({
  reason: Note.min(1).describe('why a person promotes without the evidence'),
});
const principal = (p: { subject: string; kind?: 'human' | 'service' }) => ({
  by: p.subject,
  ...(p.kind ? { kind: p.kind } : {}),
});

export const LIFECYCLE_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/promote',
    operationId: 'promoteWorkflow',
    summary: 'Move a version one step: up when its gate is met (or overridden with a reason), down any step',
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({
      to: z.enum(WORKFLOW_STATUSES),
      version: Version.optional().describe('default: the newest version'),
      override: Override.optional().describe(
        'promote although the gate is not met; recorded with who gave it',
      ),
    }),
    responses: {
      200: 'the chained lifecycle record {workflowId, version, from, to, by, at, kind, evidence, override?, hash}, and the gate report',
    },
    async handle({ keel, p, params, body }) {
      const { promotion, report } = await keel.lifecycle.promote(
        p.tenant,
        workflowIdOf(params),
        body.to,
        principal(p),
        {
          ...(body.version !== undefined ? { version: body.version } : {}),
          ...(body.override ? { override: body.override.reason } : {}),
        },
      );
      return ok({ ...promotion, report });
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/gate',
    operationId: 'workflowGate',
    summary: 'Judge the gate a version must meet to move to a status, without moving it',
    tag: 'lifecycle',
    auth: true,
    query: z.object({
      to: z.enum(WORKFLOW_STATUSES),
      version: z.coerce.number().int().min(1).max(MAX_INT32).optional(),
    }),
    responses: { 200: '{met, conditions: [{id, met, text, needed?, found?, evidence?}], notes, gates}' },
    async handle({ keel, p, params, query }) {
      return ok(
        await keel.lifecycle.gate(p.tenant, workflowIdOf(params), query.to, {
          ...(query.version !== undefined ? { version: query.version } : {}),
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/tests',
    operationId: 'testWorkflow',
    summary: "Run a version's tests (and events given) in simulated mode",
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({
      version: Version.optional(),
      events: z
        .array(z.strictObject({ name: z.string().min(1).max(100), event: z.record(z.string(), z.unknown()) }))
        .max(100)
        .optional()
        .describe('more events to run, each named; no expectations (they pass unless their run fails)'),
    }),
    responses: {
      200: '{workflowId, version, passed, tests: [{name, runId, status, steps, passed, results}]}',
    },
    async handle({ keel, p, params, body }) {
      return ok(
        await keel.lifecycle.test(p.tenant, workflowIdOf(params), {
          ...(body.version !== undefined ? { version: body.version } : {}),
          ...(body.events ? { events: body.events } : {}),
        }),
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/shadow-report',
    operationId: 'shadowReport',
    summary: 'How a SHADOW version agreed with the live runs it shadowed',
    tag: 'lifecycle',
    auth: true,
    query: z.object({
      version: z.coerce.number().int().min(1).max(MAX_INT32).optional(),
      since: Instant.optional().describe('comparisons kept at or after this instant (RFC 3339)'),
    }),
    responses: {
      200: '{version, against, comparisons, agreed, agreement, starts, queue, skipped, skippedBeside, newRefusals, disagreements}',
    },
    async handle({ keel, p, params, query }) {
      return ok(
        await keel.lifecycle.shadowReport(p.tenant, workflowIdOf(params), {
          ...(query.version !== undefined ? { version: query.version } : {}),
          ...(query.since !== undefined ? { since: query.since } : {}),
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/replay-gate',
    operationId: 'replayGate',
    summary: "Re-plan the LIVE version's last runs against a version, calling nothing",
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({
      version: Version.optional(),
      runs: z.number().int().min(1).max(10_000).optional(),
    }),
    responses: { 200: '{candidate, against, runs, same, diverged: [{runId, sentence, comparison}], ms}' },
    async handle({ keel, p, params, body }) {
      return ok(
        await keel.lifecycle.replayGate(p.tenant, workflowIdOf(params), {
          ...(body.version !== undefined ? { version: body.version } : {}),
          ...(body.runs !== undefined ? { runs: body.runs } : {}),
        }),
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/rollout',
    operationId: 'getRollout',
    summary: "A workflow's rollout and, while it is active, whether its figures let it advance",
    tag: 'lifecycle',
    auth: true,
    responses: { 200: '{workflowId, rollout?, verdict?, triggerDisagreements?: {count, byChoice}}' },
    async handle({ keel, p, params }) {
      return ok(await keel.lifecycle.rollout.status(p.tenant, workflowIdOf(params)));
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/rollout',
    operationId: 'startRollout',
    summary: 'Roll a SHADOW version out to a share of events (its gate to LIVE met, or overridden)',
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({
      to: Version.describe('the SHADOW version to roll out'),
      percent: z.number().int().min(1).max(99),
      steps: z.array(z.number().int().min(2).max(100)).max(10).optional().describe('default [50, 100]'),
      auto: z.boolean().optional().describe('advance and roll back by itself'),
      threshold: z.number().min(0).max(1).optional().describe('default 0.05'),
      minRuns: z.number().int().min(1).max(1_000_000).optional().describe('default 20'),
      stickyBy: z
        .string()
        .max(600)
        .optional()
        .describe(
          'what keeps events on one version: subject (default), payload.<field>[.<field>...], or event',
        ),
      override: Override.optional(),
    }),
    responses: { 200: '{rollout, promotion, report}' },
    async handle({ keel, p, params, body }) {
      const { to, override, ...o } = body;
      return ok(
        await keel.lifecycle.rollout.start(p.tenant, workflowIdOf(params), to, principal(p), {
          ...o,
          ...(override ? { override: override.reason } : {}),
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/rollout/advance',
    operationId: 'advanceRollout',
    summary: 'Advance the rollout to its next stage, if its figures allow it',
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({}),
    responses: { 200: '{rollout, verdict}' },
    async handle({ keel, p, params }) {
      return ok(await keel.lifecycle.rollout.advance(p.tenant, workflowIdOf(params), principal(p)));
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/rollout/rollback',
    operationId: 'rollbackRollout',
    summary: 'Give every event back to the old version; the new one goes back to SHADOW',
    tag: 'lifecycle',
    auth: true,
    body: z.strictObject({ reason: Note.optional() }),
    responses: { 200: '{rollout, verdict}' },
    async handle({ keel, p, params, body }) {
      return ok(
        await keel.lifecycle.rollout.rollback(
          p.tenant,
          workflowIdOf(params),
          principal(p),
          body.reason ?? '',
        ),
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/diff',
    operationId: 'diffWorkflow',
    summary: 'What changed between two versions, in plain language',
    tag: 'lifecycle',
    auth: true,
    query: z.object({
      from: z.coerce.number().int().min(1).max(MAX_INT32),
      to: z.coerce.number().int().min(1).max(MAX_INT32),
    }),
    responses: { 200: '{from, to, same, changes: [{area, text}]}' },
    async handle({ keel, p, params, query }) {
      return ok(await keel.lifecycle.diff(p.tenant, workflowIdOf(params), query.from, query.to));
    },
  }),
  route({
    method: 'get',
    path: '/api/workflows/{workflowId}/promotions',
    operationId: 'workflowPromotions',
    summary: "A workflow's lifecycle records and whether their hash chain verifies",
    tag: 'lifecycle',
    auth: true,
    responses: { 200: '{records, chain: {ok, records, head} or {ok: false, index, message}}' },
    async handle({ keel, p, params }) {
      return ok(await keel.lifecycle.records(p.tenant, workflowIdOf(params)));
    },
  }),
];
