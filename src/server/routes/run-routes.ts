/**
 * Keel API, runs and approvals: list, count and read runs, their history and ledger entries;
 * verify, replay, fork, rerun, cancel, pause and resume one; list pending approvals and approve or
 * deny the proposal a run waits for. `/api/runs/counts` is registered before `/api/runs/{runId}`,
 * which would otherwise take `counts` for a malformed run id.
 */

import * as z from 'zod';
import { notesOf } from '../../app/index.ts';
import { MAX_INT32 } from '../../core/int-range.ts';
import { RUN_STATUSES } from '../../core/ledger/index.ts';
import { parseEvent, SUBJECT_MAX } from '../../core/run/index.ts';
import { quoteInput } from '../../core/spec/index.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import { MAX_RUN_WAIT_MS, runWhenStopped } from '../run-stops.ts';
import { EventBody, Instant, type KeelRoute, Note, ok, route, WaitMs } from './route.ts';

const RUN_ID = /^sha256:[0-9a-f]{64}$/;

/** The run id of a path (Hono has decoded `%3A`); a malformed one is bad input, not a missing run. */
function runIdOf(params: Readonly<Record<string, string>>): string {
  const id = params.runId ?? '';
  if (!RUN_ID.test(id))
    throw new ProtocolError(
      'validation_error',
      `runId: expected a Keel run id sha256:<64 hex>, got ${quoteInput(id)}`,
      {
        field: 'runId',
      },
    );
  return id;
}

/** The filters the run list and the run counts share. */
const RUN_FILTER = {
  workflowId: z.string().min(1).optional(),
  version: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_INT32)
    .optional()
    .describe('runs of this version (of workflowId; alone, of every workflow)'),
  since: Instant.optional().describe('runs created at or after this instant (ISO 8601 with a zone)'),
  until: Instant.optional().describe(
    'runs created before this instant (ISO 8601 with a zone): jump to a date, then page older by the cursor',
  ),
};

export const RUN_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/runs',
    operationId: 'listRuns',
    summary: 'List runs, newest first, a page at a time; find them by subject or run id, jump to a date',
    tag: 'runs',
    auth: true,
    // Strict: a misspelt filter (`subjct=T-1`) is refused naming it, never ignored into a listing
    // of every run.
    query: z.strictObject({
      status: z.enum(RUN_STATUSES).optional(),
      ...RUN_FILTER,
      subject: z
        .string()
        .min(1)
        .max(SUBJECT_MAX)
        .optional()
        .describe('runs whose starting event has exactly this subject (a ticket, a customer)'),
      subjectPrefix: z
        .string()
        .min(1)
        .max(SUBJECT_MAX)
        .optional()
        .describe('runs whose subject starts with this (not with `subject`)'),
      runId: z
        .string()
        .min(1)
        .max(71)
        .optional()
        .describe('a run id, or its first 8+ hex digits (with or without `sha256:`)'),
      limit: z.coerce.number().int().min(1).max(100).optional().describe('default 50'),
      cursor: z
        .string()
        .min(1)
        .optional()
        .describe('`next` of the previous page, sent with the same filters'),
    }),
    responses: { 200: '{runs, next?}' },
    async handle({ keel, p, query }) {
      const page = await keel.runs.list(p.tenant, {
        limit: query.limit ?? 50,
        ...(query.status ? { status: query.status } : {}),
        ...(query.workflowId ? { workflowId: query.workflowId } : {}),
        ...(query.version !== undefined ? { version: query.version } : {}),
        ...(query.since !== undefined ? { since: query.since } : {}),
        ...(query.until !== undefined ? { until: query.until } : {}),
        ...(query.subject !== undefined ? { subject: query.subject } : {}),
        ...(query.subjectPrefix !== undefined ? { subjectPrefix: query.subjectPrefix } : {}),
        ...(query.runId !== undefined ? { runId: query.runId } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
      return ok({ runs: page.runs, ...(page.next ? { next: page.next } : {}) });
    },
  }),
  route({
    method: 'get',
    path: '/api/runs/counts',
    operationId: 'countRuns',
    summary: 'How many of the tenant’s runs are in each status',
    tag: 'runs',
    auth: true,
    query: z.object(RUN_FILTER),
    responses: { 200: '{counts: {<status>: n} (every status, 0 where none), total}' },
    async handle({ keel, p, query }) {
      return ok(
        await keel.runs.counts(p.tenant, {
          ...(query.workflowId ? { workflowId: query.workflowId } : {}),
          ...(query.version !== undefined ? { version: query.version } : {}),
          ...(query.since !== undefined ? { since: query.since } : {}),
          ...(query.until !== undefined ? { until: query.until } : {}),
        }),
      );
    },
  }),
  route({
    method: 'get',
    path: '/api/runs/{runId}',
    operationId: 'getRun',
    summary: 'A run: status, pinned version, ledger head',
    description: `With \`waitMs\` (up to ${MAX_RUN_WAIT_MS}), a long poll: answered when the run is no longer \`running\` (finished, waiting, paused or suspended) or when \`waitMs\` has passed, whichever comes first — one request instead of polling for its outcome.`,
    tag: 'runs',
    auth: true,
    query: z.object({ waitMs: WaitMs }),
    responses: { 200: 'the run record' },
    async handle({ keel, p, params, query }) {
      const runId = runIdOf(params);
      if (query.waitMs) return ok(await runWhenStopped(keel, p.tenant, runId, query.waitMs));
      return ok(await keel.runs.get(p.tenant, runId));
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
      fromSeq: z.number().int().min(0).max(MAX_INT32),
      mode: z.enum(['replay', 'branch']),
      event: EventBody.optional().describe('branch only: start from another event'),
      version: z
        .number()
        .int()
        .min(1)
        .max(MAX_INT32)
        .optional()
        .describe('branch only: continue on another version'),
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
      if (created) host.kick(p.tenant, run.runId, notesOf(p));
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
  route({
    method: 'post',
    path: '/api/runs/{runId}/pause',
    operationId: 'pauseRun',
    summary: 'Hold a running run: the step in progress finishes, no other starts until it is resumed',
    tag: 'runs',
    auth: true,
    body: z.strictObject({ reason: Note.optional() }),
    responses: { 200: 'the run, paused' },
    async handle({ keel, p, params, body }) {
      // A walk of the run in this process finishes its step first: the answer waits for it.
      return ok(
        await keel.runs.pause(p.tenant, runIdOf(params), {
          by: p.subject,
          ...(body.reason ? { reason: body.reason } : {}),
        }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/api/runs/{runId}/resume',
    operationId: 'resumeRun',
    summary: 'Release a paused run; it walks on in the background',
    tag: 'runs',
    auth: true,
    body: z.strictObject({}),
    responses: { 200: 'the run, running again' },
    async handle({ keel, host, p, params }) {
      const runId = runIdOf(params);
      const r = await keel.runs.resume(p.tenant, runId, { by: p.subject, walk: 'enqueue' });
      host.kick(p.tenant, runId, notesOf(p));
      return ok(r);
    },
  }),

  // Approvals
  route({
    method: 'get',
    path: '/api/approvals',
    operationId: 'listApprovals',
    summary: 'Pending approvals (of one run with ?runId), oldest request first',
    tag: 'approvals',
    auth: true,
    query: z.object({ runId: z.string().min(1).optional() }),
    responses: {
      200: '{approvals: [{tenant, runId, workflowId, version, step, tool, proposalId, args, costCents, reason, channel, policy?, cause, requestedAt}]}',
    },
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
      description:
        'A proposal someone decided already is 409 already_resolved, its details naming the decision that stands: {runId, proposalId, decision, resolvedBy, resolvedAt, note?}.',
      body: z.strictObject({ note: Note.optional() }),
      responses: { 200: 'the run after the decision' },
      async handle({ keel, host, p, params, body }) {
        const runId = runIdOf(params);
        const r = await keel.approvals[decision](p.tenant, runId, p.subject, body.note, { walk: 'enqueue' });
        host.kick(p.tenant, runId, notesOf(p));
        return ok(r);
      },
    }),
  ),
];
