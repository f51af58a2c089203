/**
 * The OpenWOP surface: discovery, and under `/v1` and bare (v2) paths over one core: runs
 * (create, get, list), events (SSE or JSON, and the v2 poll), cancel, fork, interrupts and the
 * sample clients' approval alias. Run paths are routed on the raw path, so a tenant-bound id whose
 * slash arrives as `%2F` or `~2F` is one segment; the id is decoded after routing.
 */
import type { KeyObject } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { verifyCheckpoints } from '../app/checkpoints/index.ts';
import { notesOf } from '../app/index.ts';
import type { Keel } from '../app/keel.ts';
import { hashOf } from '../core/canonical/index.ts';
import { auditVerifyResult, parseAuditRange } from '../openwop/audit-verify.ts';
import { specAsDefinition } from '../openwop/definition.ts';
import { type AuditPublication, discoveryV1, discoveryV2, EFFECT_SEAMS_PATH } from '../openwop/discovery.ts';
import { effectSeamManifest } from '../openwop/effect-seams.ts';
import { FIXTURE_PUBLISHER } from '../openwop/fixtures.ts';
import { OpenWopHost, type Principal } from '../openwop/host.ts';
import { projectEffects } from '../openwop/project-effects.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { parseBulkCancel, parseCreateRun, parseFork } from '../openwop/request-bodies.ts';
import { type Major, parseRunId, pathRunId, wireRunId } from '../openwop/run-ids.ts';
import { registerSampleWorkflow } from '../openwop/sample-registration.ts';
import { authenticate } from './auth.ts';
import { openWopErrorReply, openWopReply } from './errors.ts';
import { idempotent, type Reply } from './idempotency.ts';
import { KEEL_ROUTES } from './keel-routes.ts';
import { negotiate, versionHeader } from './negotiate.ts';
import { openApiDocument } from './openapi.ts';
import { attempt, readBody } from './request.ts';
import { auditOptions } from './routes/checkpoint-routes.ts';
import {
  DEFAULT_MAX_EVENT_STREAMS,
  KEEP_ALIVE_MS,
  pollEvents,
  StreamSlots,
  streamEvents,
} from './run-events.ts';
import { sentAlready } from './stream-answer.ts';

export type Env = { Variables: { major: Major } };

function send(c: Context, r: Reply): Response {
  return c.json(r.body as object, r.status as 200, r.headers);
}

export function openWopRoutes(
  keel: Keel,
  host: OpenWopHost,
  log: (e: unknown) => void,
  o: {
    maxEventStreams?: number;
    maxEventStreamsPerTenant?: number;
    keepAliveMs?: number;
    audit?: AuditPublication;
    /** The checkpoint key the audit surface pins (with `audit`). */
    checkpointKey?: KeyObject;
  } = {},
): Hono<Env> {
  const app = new Hono<Env>();
  const slots = new StreamSlots(
    o.maxEventStreams ?? DEFAULT_MAX_EVENT_STREAMS,
    o.keepAliveMs ?? KEEP_ALIVE_MS,
    o.maxEventStreamsPerTenant,
  );
  // Every refusal on this surface is spelt with OpenWOP's codes (errors.ts openWopReply).
  app.onError((e, c) => {
    const r = openWopErrorReply(e);
    if (r.unexpected) log(e);
    if (r.status === 401) c.header('WWW-Authenticate', 'Bearer');
    return c.json(r.body, r.status as 400);
  });
  /** Runs a handler whose refusals are replies (so an idempotency key can cache them), in OpenWOP's codes. */
  const replyOf = (fn: () => Promise<Reply>): Promise<Reply> => attempt(fn, log).then(openWopReply);

  app.use('*', async (c, next) => {
    const path = new URL(c.req.url).pathname;
    let major: Major;
    try {
      major = negotiate(path, c.req.header('OpenWOP-Version'));
    } catch (e) {
      // A refused negotiation still names a contract: the one the path is served under by default.
      c.header('OpenWOP-Version', versionHeader(negotiate(path, undefined)));
      throw e;
    }
    c.set('major', major);
    await next();
    // An answer streamed to Node's response as it goes (stream-answer.ts) sent this header itself.
    if (!sentAlready(c.res)) c.header('OpenWOP-Version', versionHeader(major));
  });

  app.get('/.well-known/openwop', (c) => {
    const doc = c.get('major') === 1 ? discoveryV1(o.audit) : discoveryV2(o.audit);
    const etag = `"${hashOf(doc).slice(7, 39)}"`;
    c.header('ETag', etag);
    c.header('Vary', 'OpenWOP-Version');
    c.header('Cache-Control', 'no-cache');
    if (c.req.header('If-None-Match') === etag) return c.body(null, 304);
    return c.json(doc);
  });

  const principalOf = (c: Context) => authenticate(keel, c.req.header('Authorization'), notesOf(c));

  // The OpenAPI document at its v1 address (the bare `/openapi.json` is served with the Keel API).
  app.get('/v1/openapi.json', (c) => c.json(openApiDocument(KEEL_ROUTES)));

  // Gated on replay, which Keel advertises: every outbound path its nodes can reach, each guarded.
  app.get(EFFECT_SEAMS_PATH, async (c) => {
    await principalOf(c);
    return c.json(effectSeamManifest());
  });

  // The reference hosts' sample route (v1 only): publishes a definition as DRAFT (sample-registration.ts).
  app.post('/v1/host/sample/workflows', async (c) => {
    const p = await principalOf(c);
    const body = await readBody(c);
    return send(c, await replyOf(() => registerSampleWorkflow(host, p, body)));
  });

  for (const prefix of ['/v1', '']) {
    // Gated on audit-log integrity, advertised only with signed checkpoints: else not served (404).
    app.get(`${prefix}/audit/verify`, async (c) => {
      if (!o.audit)
        throw new ProtocolError(
          'not_found',
          'audit-log integrity is not advertised by this host (no --checkpoint-key)',
        );
      const p = await principalOf(c);
      const range = parseAuditRange(c.req.query('fromSeq'), c.req.query('toSeq'));
      const report = await verifyCheckpoints(
        keel.store,
        p.tenant,
        await auditOptions(keel, p.tenant, o.checkpointKey),
      );
      return c.json(auditVerifyResult(report, range));
    });

    app.post(`${prefix}/runs`, async (c) => {
      const p = await principalOf(c);
      const major = c.get('major');
      const body = await readBody(c);
      const key = c.req.header('Idempotency-Key');
      const reply = await idempotent(keel, p, key, `createRun@${major}`, body, () =>
        replyOf(async () => {
          const req = parseCreateRun(body, major);
          const run = await host.createRun(p, req, key, c.req.header('traceparent'));
          const base = `${major === 1 ? '/v1' : ''}/runs/${pathRunId(run.runId, p.tenant, major)}`;
          return {
            status: 201,
            body: {
              runId: wireRunId(run.runId, p.tenant, major),
              status: run.status,
              eventsUrl: `${base}/events`,
              statusUrl: base,
            },
          };
        }),
      );
      return send(c, reply);
    });

    app.get(`${prefix}/runs`, async (c) => {
      const p = await principalOf(c);
      const major = c.get('major');
      const limit = Number(c.req.query('limit') ?? c.req.query('pageSize') ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new ProtocolError('validation_error', 'limit: expected an integer from 1 to 100', {
          field: 'limit',
        });
      const status = c.req.query('status');
      const keelStatuses = status === undefined ? undefined : OpenWopHost.keelStatuses(status);
      if (keelStatuses?.length === 0)
        throw new ProtocolError('validation_error', `status: not a run status: ${JSON.stringify(status)}`, {
          field: 'status',
        });
      // A wire status that is one Keel status filters in the store; failed (failed or refused) and
      // paused (paused or outcome_unknown) filter each page, which may then come back short.
      const page = await keel.runs.list(p.tenant, {
        limit,
        ...(keelStatuses?.length === 1 ? { status: keelStatuses[0]! } : {}),
        ...(c.req.query('workflowId') ? { workflowId: c.req.query('workflowId')! } : {}),
        ...(c.req.query('cursor') ? { cursor: c.req.query('cursor')! } : {}),
      });
      // Full run snapshots, as GET /runs/{runId} shows each (run-list-response: runs[] of RunSnapshot).
      const listed =
        status === undefined
          ? page.runs
          : page.runs.filter((r) => OpenWopHost.wireStatus(r.status) === status);
      const runs = await Promise.all(listed.map((r) => host.snapshotOf(p, r, major)));
      return c.json({ runs, ...(page.next ? { nextCursor: page.next } : {}) });
    });

    app.get(`${prefix}/workflows/:workflowId`, async (c) => {
      const p = await principalOf(c);
      await host.ensureFixtures(p.tenant);
      const id = c.req.param('workflowId');
      const v = await keel.workflows.get(p.tenant, id);
      if (!v) throw new ProtocolError('not_found', `workflow ${id} not found`, { workflowId: id });
      // The installed fixture shows its own definition; anything else (a later version too) its spec.
      const def = v.publishedBy === FIXTURE_PUBLISHER ? host.definition(id) : undefined;
      return c.json(def ?? specAsDefinition(v.spec));
    });

    app.post(`${prefix}/:op{runs:bulk-cancel}`, async (c) => {
      const p = await principalOf(c);
      const major = c.get('major');
      const body = await readBody(c);
      const key = c.req.header('Idempotency-Key');
      const reply = await idempotent(keel, p, key, `bulkCancelRuns@${major}`, body, () =>
        replyOf(async () => {
          const { runIds, reason } = parseBulkCancel(body);
          const results = [];
          for (const wire of runIds) {
            try {
              const parsed = parseRunId(encodeURIComponent(wire), p.tenant);
              if (!parsed.ok)
                throw new ProtocolError(
                  parsed.reason === 'tenant_mismatch' ? 'id_tenant_mismatch' : 'not_found',
                  parsed.reason === 'tenant_mismatch' ? 'the run id names another tenant' : 'run not found',
                );
              const r = await host.cancel(p, parsed.runId, reason, major);
              // v1: re-cancelling a cancelled run is ok (idempotent); another finished run is run_terminal.
              if (r.alreadyTerminal && r.status !== 'cancelled')
                throw new ProtocolError('run_terminal', `run is already ${r.status}`, {
                  runStatus: r.status,
                });
              results.push({ runId: wire, ok: true, status: r.status });
            } catch (e) {
              // Each entry carries its own refusal, never a whole error body: on v2 the error envelope
              // itself ({error, message, details?}; errors.md, runs.md), on v1 {code, message, details?}.
              const r = openWopErrorReply(e);
              if (r.unexpected) log(e);
              const { error: code, ...rest } = r.body;
              results.push({ runId: wire, ok: false, error: major === 1 ? { code, ...rest } : r.body });
            }
          }
          return { status: 200, body: { results } };
        }),
      );
      return send(c, reply);
    });

    app.all(`${prefix}/runs/*`, async (c) => {
      const p = await principalOf(c);
      const rest = new URL(c.req.url).pathname.slice(`${prefix}/runs/`.length);
      return runRoute(c, p, prefix, rest.split('/'));
    });
  }

  async function runRoute(c: Context<Env>, p: Principal, prefix: string, segs: string[]): Promise<Response> {
    const major = c.get('major');
    let [idSeg = '', ...tail] = segs;
    let action: string | undefined;
    const colon = idSeg.lastIndexOf(':');
    if (colon > 0) {
      action = idSeg.slice(colon + 1);
      idSeg = idSeg.slice(0, colon);
    }
    const parsed = parseRunId(idSeg, p.tenant);
    if (!parsed.ok) {
      if (parsed.reason === 'tenant_mismatch')
        throw new ProtocolError('id_tenant_mismatch', 'the run id names another tenant than the credential');
      if (parsed.reason === 'malformed')
        throw new ProtocolError(
          'validation_error',
          'runId: a malformed escape in the path segment (a `~` must introduce two hex digits; a `%` escape must be valid UTF-8)',
          { field: 'runId' },
        );
      throw new ProtocolError('not_found', 'run not found');
    }
    const runId = parsed.runId;
    const method = c.req.method;
    const key = c.req.header('Idempotency-Key');
    const route = `${method} ${action ? `:${action}` : ''}${tail.length ? `/${tail.map((t, i) => (i === 0 ? t : '*')).join('/')}` : ''}`;

    switch (route) {
      case 'GET ': {
        const head = await host.head(p, runId);
        const etag = `"${head.hash.slice(7, 39)}"`;
        c.header('ETag', etag);
        if (c.req.header('If-None-Match') === etag) return c.body(null, 304);
        return c.json(await host.snapshot(p, runId, major));
      }
      case 'GET /events':
        return streamEvents(c, host, p, runId, major, slots);
      case 'GET /events/*':
        if (tail[1] !== 'poll') break;
        return c.json(await pollEvents(c, host, p, runId, major));
      case 'GET /effects':
        return c.json({
          runId: wireRunId(runId, p.tenant, major),
          effects: projectEffects(await host.entries(p, runId)),
        });
      case 'POST /cancel': {
        const body = await readBody(c);
        const reason = (body as { reason?: unknown }).reason;
        return send(
          c,
          await idempotent(keel, p, key, `cancelRun@${major}`, { runId, body }, () =>
            replyOf(async () => {
              const r = await host.cancel(p, runId, typeof reason === 'string' ? reason : undefined, major);
              return {
                status: 200,
                body: {
                  runId: wireRunId(runId, p.tenant, major),
                  status: r.status,
                  ...(r.alreadyTerminal ? { alreadyTerminal: true } : {}),
                },
              };
            }),
          ),
        );
      }
      case 'POST :fork': {
        const body = await readBody(c);
        return send(
          c,
          await idempotent(keel, p, key, `forkRun@${major}`, { runId, body }, () =>
            replyOf(async () => {
              const f = parseFork(body);
              await keel.runs.get(p.tenant, runId);
              const r = await host.fork(p, runId, f, major);
              const base = `${major === 1 ? '/v1' : ''}/runs/${pathRunId(r.runId, p.tenant, major)}`;
              return {
                status: 201,
                body: {
                  runId: wireRunId(r.runId, p.tenant, major),
                  sourceRunId: wireRunId(runId, p.tenant, major),
                  fromSeq: f.fromSeq,
                  mode: f.mode,
                  status: r.status,
                  eventsUrl: `${base}/events`,
                },
              };
            }),
          ),
        );
      }
      case 'POST :pause':
      case 'POST :resume': {
        const body = await readBody(c);
        return send(
          c,
          await idempotent(keel, p, key, `${action}Run@${major}`, { runId, body }, () =>
            replyOf(async () => {
              const r = action === 'pause' ? await host.pause(p, runId, body) : await host.resume(p, runId);
              return { status: 202, body: { runId: wireRunId(runId, p.tenant, major), ...r } };
            }),
          ),
        );
      }
      case 'POST /interrupts/*':
      case 'POST /approvals/*': {
        if (tail[0] === 'approvals' && major !== 1) break;
        let nodeId: string;
        try {
          nodeId = decodeURIComponent(tail[1] ?? '');
        } catch {
          throw new ProtocolError('validation_error', 'nodeId: not a valid percent-encoded path segment', {
            field: 'nodeId',
          });
        }
        const body = await readBody(c);
        // The sample clients' alias posts the resume value itself ({action}); the spec wraps it.
        const resumeValue = tail[0] === 'approvals' ? body : (body as { resumeValue?: unknown }).resumeValue;
        return send(
          c,
          await idempotent(keel, p, key, `resolveInterrupt@${major}`, { runId, nodeId, body }, () =>
            replyOf(async () => {
              const r = await host.resolveInterrupt(p, runId, nodeId, resumeValue);
              return {
                status: 200,
                body: {
                  runId: wireRunId(runId, p.tenant, major),
                  status: r.status,
                  interrupt: {
                    kind: 'approval',
                    nodeId,
                    outcome: (resumeValue as { action: string }).action,
                  },
                },
              };
            }),
          ),
        );
      }
    }
    throw new ProtocolError(
      'not_found',
      `no such operation: ${method} ${prefix}/runs/{runId}${action ? `:${action}` : ''}${tail.length ? `/${tail.join('/')}` : ''}`,
    );
  }

  return app;
}
