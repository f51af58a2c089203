/**
 * Keel API, starting runs from events: ingest one (every matching LIVE or AUTONOMOUS workflow starts a
 * run) or start one workflow for it explicitly, optionally under a writ. Both walk in the background.
 * An ingested event is named by `(source, id)` (`http` when it gives no source): a redelivery answers
 * its first runs (200, `redelivery: true`), one with other content is 409 event_conflict, recorded
 * and listed by `GET /api/events/conflicts`; `GET /api/events/delivery` reads what the first did.
 */

import * as z from 'zod';
import { notesOf } from '../../app/index.ts';
import { remapWith } from '../../app/unrouted.ts';
import { MAX_INT32 } from '../../core/int-range.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import { MAX_RUN_WAIT_MS, runWhenStopped } from '../run-stops.ts';
import { EventBody, type KeelRoute, ok, route, WaitMs, WritValue, workflowIdOf } from './route.ts';

/** The channel name an event ingested over HTTP without a source takes as its source. */
export const HTTP_CHANNEL = 'http';

const EventName = {
  source: z.string().min(1).max(512).describe('the event source (`http` for events sent without one)'),
  id: z.string().min(1).max(512).describe('the event id'),
};

export const EVENT_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'post',
    path: '/api/events',
    operationId: 'emitEvent',
    summary: 'Ingest an event: each matching LIVE or AUTONOMOUS workflow starts a run',
    description: `Runs are committed and walked in the background; with \`waitMs\` (up to ${MAX_RUN_WAIT_MS}) the answer waits until each run it names is no longer \`running\` (finished, waiting, paused or suspended) or \`waitMs\` has passed, and gives each run's status then: one request to start runs and learn their outcome. Without it, wait with GET /api/runs/{runId}?waitMs or the run's event stream. The event is named by (source, id), \`http\` being the source of one sent without: a redelivery with the same content answers the first delivery’s runs (200, \`redelivery: true\`) and one with other content is 409 event_conflict (it starts nothing and is recorded: GET /api/events/conflicts).`,
    tag: 'events',
    auth: true,
    body: EventBody,
    query: z.object({ waitMs: WaitMs }),
    responses: {
      201: '{eventId, source, runs}: at least one run was started',
      200: '{eventId, source, runs, redelivery?, firstDeliveredAt?}: no new run (no match, or a redelivery: the first delivery’s runs)',
    },
    async handle({ keel, host, p, body, query, traceparent }) {
      // The walks this request starts, so a wait awaits them rather than watching for appends.
      const walks = new Map<string, Promise<unknown>>();
      const start = host.startWalk(notesOf(p), (runId, walking) => walks.set(runId, walking));
      const r = await keel.events.emit(p.tenant, body, {
        ...start,
        channel: HTTP_CHANNEL,
        ...(traceparent ? { traceparent } : {}),
      });
      if (start.walk === 'enqueue')
        for (const run of r.runs) if (run.created) host.kick(p.tenant, run.runId, notesOf(p));
      const status = r.runs.some((x) => x.created) ? 201 : 200;
      if (!query.waitMs || r.runs.length === 0) return ok(r, status);
      // The runs as they are once each stopped running (or the wait ran out), waited for together.
      const ms = query.waitMs;
      const runs = await Promise.all(
        r.runs.map(async (run) => {
          const now = (await runWhenStopped(keel, p.tenant, run.runId, ms, walks.get(run.runId))).status;
          // A status that moved on takes no reason of the one before (GET /api/runs/{runId} has it all).
          if (now === run.status) return run;
          const { runId, tenant, workflowId, version, created } = run;
          return { runId, tenant, workflowId, version, status: now, created };
        }),
      );
      return ok({ ...r, runs }, status);
    },
  }),
  route({
    method: 'get',
    path: '/api/events/delivery',
    operationId: 'getEventDelivery',
    summary: 'The first delivery of an event (source, id): its content hash and the runs it chose',
    tag: 'events',
    auth: true,
    query: z.object(EventName),
    responses: {
      200: '{tenant, source, eventId, eventHash, type, subject, time, payloadHash, runs, deliveredAt}',
    },
    async handle({ keel, p, query }) {
      const d = await keel.events.delivered(p.tenant, query.source, query.id);
      if (!d)
        throw new ProtocolError('not_found', 'no event with this source and id was delivered', {
          source: query.source,
          eventId: query.id,
        });
      return ok(d);
    },
  }),
  route({
    method: 'get',
    path: '/api/events/conflicts',
    operationId: 'listEventConflicts',
    summary:
      'Redeliveries refused as event_conflict, the most recent first (one per distinct content, counted)',
    tag: 'events',
    auth: true,
    query: z.object({
      source: EventName.source.optional(),
      id: EventName.id.optional(),
      limit: z.coerce.number().int().min(1).max(500).optional().describe('default 100'),
    }),
    responses: {
      200: '{conflicts: [{source, eventId, firstHash, eventHash, fields, firstAt, lastAt, count}]}',
    },
    async handle({ keel, p, query }) {
      const conflicts = await keel.events.conflicts(p.tenant, {
        ...(query.source !== undefined ? { source: query.source } : {}),
        ...(query.id !== undefined ? { eventId: query.id } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
      });
      return ok({ conflicts });
    },
  }),
  route({
    method: 'get',
    path: '/api/events/unrouted',
    operationId: 'listUnroutedEvents',
    summary:
      "The tenant's unrouted inbox: events no workflow took and hook deliveries whose mapping failed, the most recently received first",
    description:
      'Each entry is kept with its reason (no_route, rollout_untaken, mapping_failed) and redeliverable (POST /api/events/unrouted/{id}/redeliver); limits: docs/events.md.',
    tag: 'events',
    auth: true,
    query: z.object({
      state: z.enum(['waiting', 'redelivered', 'all']).optional().describe('default waiting'),
      limit: z.coerce.number().int().min(1).max(500).optional().describe('default 100'),
    }),
    responses: {
      200: '{unrouted: [{id, source, eventId, type, subject, reason, detail, content, receivedAt, lastAt, count, redelivered?}]}',
    },
    async handle({ keel, p, query }) {
      const unrouted = await keel.events.unrouted(p.tenant, {
        ...(query.state !== undefined ? { state: query.state } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
      });
      return ok({ unrouted });
    },
  }),
  route({
    method: 'post',
    path: '/api/events/unrouted/{id}/redeliver',
    operationId: 'redeliverUnroutedEvent',
    summary: 'Route an unrouted event again through the one emit path, under the same (source, id)',
    description:
      'When it now starts runs they become the event’s runs (201) and the entry leaves the inbox, marked redelivered with their ids; otherwise it stays (200, state `unrouted`, with the reason now). A hook delivery whose mapping failed is mapped again with the hooks this server serves.',
    tag: 'events',
    auth: true,
    responses: {
      201: '{id, state: redelivered, source, eventId, runs}: runs were started',
      200: '{id, state, source, eventId, runs, unrouted?}: no new run',
    },
    async handle({ keel, host, p, params, hooks }) {
      const start = host.startWalk(notesOf(p));
      const r = await keel.events.redeliver(p.tenant, params.id ?? '', {
        ...start,
        remap: remapWith(hooks ?? []),
      });
      if (start.walk === 'enqueue')
        for (const run of r.runs) if (run.created) host.kick(p.tenant, run.runId, notesOf(p));
      return ok(r, r.runs.some((x) => x.created) ? 201 : 200);
    },
  }),
  route({
    method: 'post',
    path: '/api/workflows/{workflowId}/runs',
    operationId: 'startRun',
    summary: 'Start a run of a workflow for an event, optionally under a writ',
    description:
      'Any status may be started explicitly (unlike routing). A version not yet shown to behave (DRAFT, TESTING, SHADOW) runs simulated — a test run named `run`: no write or external tool acts, nobody is asked; the response says `simulated: true` — unless `live: true` asks for its effects. With `writ` (live runs only), the chain is verified against the tenant’s trusted keys (configured and stored) and revocations first; a refused or revoked writ starts no run (403 writ_refused). The run is walked in the background.',
    tag: 'runs',
    auth: true,
    body: z.strictObject({
      event: EventBody,
      writ: WritValue.optional(),
      version: z.number().int().min(1).max(MAX_INT32).optional().describe('default: the newest version'),
      live: z
        .boolean()
        .optional()
        .describe('act for real on a DRAFT, TESTING or SHADOW version (default: simulated)'),
    }),
    responses: { 201: 'the run, created', 200: 'the same run, existing (same identity)' },
    async handle({ keel, host, p, params, body, traceparent }) {
      const start = host.startWalk(notesOf(p));
      const r = await keel.runs.start(p.tenant, workflowIdOf(params), body.event, {
        ...start,
        ...(traceparent ? { traceparent } : {}),
        ...(body.writ !== undefined ? { writ: body.writ as { chain: unknown[] } } : {}),
        ...(body.version !== undefined ? { version: body.version } : {}),
        ...(body.live !== undefined ? { live: body.live } : {}),
      });
      if (r.created && start.walk === 'enqueue') host.kick(p.tenant, r.runId, notesOf(p));
      return ok(r, r.created ? 201 : 200);
    },
  }),
];
