/**
 * The unrouted inbox over real HTTP (issue 29 §2; docs/events.md), on a SQLite file and a scratch
 * PostgreSQL schema: an event POSTed that no workflow takes is answered with its inbox entry and
 * listed by GET /api/events/unrouted for its tenant only; an authenticated hook delivery whose
 * mapping fails is kept too (its signature header is not); once a workflow takes the event,
 * POST /api/events/unrouted/{id}/redeliver starts its run (201) and the entry leaves the inbox; a
 * kept delivery is mapped again with the hooks the server serves, and still refused while it does not map.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import { createKeel, type Keel } from '../../src/app/index.ts';
import { parseHooks } from '../../src/core/hooks/index.ts';
import type { Store } from '../../src/ports/index.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { deploy } from '../../src/testing/index.ts';

const SECRET = 'desk-secret-4411';
const HOOKS = parseHooks(
  `hooks:
  - name: desk
    tenant: acme
    auth: { scheme: hmac-sha256, header: X-Desk-Signature, secret: "{{secret.DESK}}" }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.time}}", payload: { amount: "{{body.amount}}" } }
`,
  'hooks.yaml',
);
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');

const SPEC = (event: string) => `id: refunds
version: 1
status: LIVE
triggers: [{event: ${event}}]
steps:
  - {name: noop, tool: core.noop}
limits: {maxSteps: 1, maxCostUsd: 0}
`;

const dir = mkdtempSync(join(tmpdir(), 'keel-unrouted-'));
const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_unrouted_http');
const BACKENDS = [
  {
    name: 'SQLite',
    store: async (): Promise<Store | string> => join(dir, 'keel.db'),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema), cleanup: () => dropSchema(url, schema) },
];

for (const backend of BACKENDS)
  describe(`the unrouted inbox over HTTP on ${backend.name}`, () => {
    let keel: Keel;
    let server: RunningServer;
    let acme = '';
    let globex = '';
    const call = async (
      method: string,
      path: string,
      key: string,
      body?: unknown,
      // biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are asserted field by field below
    ): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: await res.json() };
    };

    before(async () => {
      keel = createKeel({ store: await backend.store(), metrics: true });
      server = await startServer(keel, { port: 0, hooks: HOOKS.map((spec) => ({ spec, secret: SECRET })) });
      acme = (await keel.keys.create('acme', 'dana')).key;
      globex = (await keel.keys.create('globex', 'gil')).key;
    });
    after(async () => {
      await server.close();
      await backend.cleanup();
    });

    test('an event nobody takes is kept and listed for its tenant; redelivered once a workflow takes it, it starts the run', async () => {
      const event = {
        id: 'evt-http-1',
        type: 'refund.requested',
        source: 'helpdesk',
        subject: 'T-9',
        time: '2026-12-01T10:00:00Z',
        payload: { amount: 12 },
      };
      const first = await call('POST', '/api/events', acme, event);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.runs, []);
      assert.equal(first.body.unrouted.reason, 'no_route');
      const id = first.body.unrouted.id as string;
      const listed = await call('GET', '/api/events/unrouted', acme);
      assert.deepEqual(
        listed.body.unrouted.map((e: { id: string }) => e.id),
        [id],
      );
      assert.deepEqual(
        (await call('GET', '/api/events/unrouted', globex)).body.unrouted,
        [],
        'tenant-scoped',
      );
      assert.equal((await call('POST', `/api/events/unrouted/${id}/redeliver`, globex)).status, 404);
      const early = await call('POST', `/api/events/unrouted/${id}/redeliver`, acme);
      assert.equal(early.status, 200);
      assert.equal(early.body.state, 'unrouted');

      await deploy(keel, 'acme', SPEC('refund.requested'));
      const r = await call('POST', `/api/events/unrouted/${id}/redeliver`, acme);
      assert.equal(r.status, 201);
      assert.equal(r.body.state, 'redelivered');
      assert.equal(r.body.runs.length, 1);
      assert.deepEqual((await call('GET', '/api/events/unrouted', acme)).body.unrouted, []);
      const gone = await call('GET', '/api/events/unrouted?state=redelivered', acme);
      assert.deepEqual(gone.body.unrouted[0].redelivered.runs, [r.body.runs[0].runId]);
      const again = await call('POST', '/api/events', acme, event);
      assert.equal(again.body.redelivery, true);
      assert.deepEqual(
        again.body.runs.map((x: { runId: string }) => x.runId),
        [r.body.runs[0].runId],
      );
    });

    test('an authenticated hook delivery whose mapping fails is kept without its signature, and mapped again on redelivery', async () => {
      const body = JSON.stringify({ id: 'd-1', type: 'ticket.closed', amount: 5 }); // no time: the mapping fails
      const res = await fetch(`${server.url}/hooks/desk`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Desk-Signature': sign(body) },
        body,
      });
      assert.equal(res.status, 422);
      const answer = (await res.json()) as { details: { reason: string; unrouted: string } };
      assert.equal(answer.details.reason, 'mapping_failed');
      const entry = (await call('GET', '/api/events/unrouted', acme)).body.unrouted.find(
        (e: { id: string }) => e.id === answer.details.unrouted,
      );
      assert.equal(entry.reason, 'mapping_failed');
      assert.equal(entry.source, 'hook:desk');
      assert.equal(entry.content.body, body);
      assert.equal(entry.content.headers['x-desk-signature'], undefined, 'the signature is not kept');
      // An unsigned delivery is refused before anything is kept.
      const unsigned = await fetch(`${server.url}/hooks/desk`, { method: 'POST', body });
      assert.equal(unsigned.status, 401);
      assert.equal(
        (await call('GET', '/api/events/unrouted', acme)).body.unrouted.filter(
          (e: { reason: string }) => e.reason === 'mapping_failed',
        ).length,
        1,
      );
      // With the hooks served, it still does not map: refused, it stays.
      const still = await call('POST', `/api/events/unrouted/${entry.id}/redeliver`, acme);
      assert.equal(still.status, 400);
      assert.equal(still.body.error, 'event_invalid');
    });
  });
