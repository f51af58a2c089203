/**
 * Keel API, starting runs from events: ingest one (every matching LIVE or AUTONOMOUS workflow starts a
 * run) or start one workflow for it explicitly, optionally under a writ. Both walk in the background.
 */

import { z } from 'zod';
import { MAX_INT32 } from '../../core/int-range.ts';
import { EventBody, type KeelRoute, ok, route, WritValue, workflowIdOf } from './route.ts';

export const EVENT_ROUTES: readonly KeelRoute[] = [
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
    async handle({ keel, host, p, body, traceparent }) {
      const r = await keel.events.emit(p.tenant, body, {
        walk: 'enqueue',
        ...(traceparent ? { traceparent } : {}),
      });
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
      version: z.number().int().min(1).max(MAX_INT32).optional().describe('default: the newest version'),
    }),
    responses: { 201: 'the run, created', 200: 'the same run, existing (same identity)' },
    async handle({ keel, host, p, params, body, traceparent }) {
      const r = await keel.runs.start(p.tenant, workflowIdOf(params), body.event, {
        walk: 'enqueue',
        ...(traceparent ? { traceparent } : {}),
        ...(body.writ !== undefined ? { writ: body.writ as { chain: unknown[] } } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
      });
      if (r.created) host.kick(p.tenant, r.runId);
      return ok(r, r.created ? 201 : 200);
    },
  }),
];
