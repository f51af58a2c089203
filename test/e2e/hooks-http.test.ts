/**
 * Hooks over real HTTP (issue 29 §1, §4): `keel serve`'s server on a loopback socket, on a SQLite
 * file and on a scratch PostgreSQL schema, with local senders signing as a payment provider does
 * (`Stripe-Signature: t=<ts>,v1=<hex>` over "<ts>.<body>") and as a code host does
 * (`X-Hub-Signature-256: sha256=<hex>`, id in `X-GitHub-Delivery`), written here from their
 * documented schemes. A retried delivery starts exactly one run; a replayed old delivery, a tampered
 * body, a wrong secret, a missing signature, an unknown hook, a body too large or failing its
 * schema are refused with their reason and change nothing; another tenant's hook path cannot start
 * this tenant's runs; a form-encoded delivery is verified over its raw bytes and maps its fields; a
 * bounded burst of 1,000 deliveries with duplicates makes one run per distinct delivery and no 5xx;
 * the rate limit answers 429 with Retry-After; /metrics counts each outcome.
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
import { payloadOf } from '../../src/core/ledger/index.ts';
import type { Store } from '../../src/ports/index.ts';
import type { ServedHook } from '../../src/server/hooks/hook-routes.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { deploy } from '../../src/testing/index.ts';

const PAY_SECRET = 'whsec_pay_3b1f0c9e7a';
const GH_SECRET = 'gh-hook-secret-55aa';
const GLOBEX_SECRET = 'globex-secret-9911';

const HOOKS = parseHooks(
  `hooks:
  - name: payments
    tenant: acme
    auth: { scheme: hmac-sha256-timestamped, header: Stripe-Signature, secret: "{{secret.PAY_SECRET}}", toleranceSeconds: 300 }
    body:
      type: object
      required: [id, type, created, data]
      properties: { data: { type: object, required: [amount], properties: { amount: { type: integer } } } }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.created}}", subject: "{{body.data.charge}}", payload: { amount_cents: "{{body.data.amount}}" } }
    maxBodyBytes: 4096
    rateLimit: { perSecond: 2000, burst: 2000 }
  - name: code
    tenant: acme
    auth: { scheme: hmac-sha256, header: X-Hub-Signature-256, prefix: "sha256=", secret: "{{secret.GH_SECRET}}" }
    event: { type: "push", id: "{{headers.X-GitHub-Delivery}}", time: "{{body.head_commit.timestamp}}", payload: { ref: "{{body.ref}}" } }
  - name: globex-desk
    tenant: globex
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.GLOBEX_SECRET}}" }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.time}}" }
  - name: forms
    tenant: acme
    auth: { scheme: hmac-sha256, header: X-Form-Signature, encoding: base64, secret: "{{secret.GH_SECRET}}" }
    body: { type: object, required: [submission_id, email], properties: { amount: { type: string, pattern: "^[0-9]+$" } } }
    event: { type: form.submitted, id: "{{body.submission_id}}", time: "{{headers.X-Form-Time}}", subject: "{{body.email}}", payload: { amount: "{{body.amount}}", topics: "{{body.topic}}" } }
  - name: slow
    tenant: acme
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.GLOBEX_SECRET}}" }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.time}}" }
    rateLimit: { perSecond: 1, burst: 3 }
`,
  'hooks.yaml',
);
const SECRETS: Record<string, string> = { PAY_SECRET, GH_SECRET, GLOBEX_SECRET };
const served: ServedHook[] = HOOKS.map((spec) => ({ spec, secret: SECRETS[spec.auth.secret]! }));

const spec = (id: string, trigger: string) => `id: ${id}
version: 1
status: LIVE
triggers: [{event: ${trigger}}]
steps:
  - {name: noop, tool: core.noop}
limits: {maxSteps: 1, maxCostUsd: 0}
`;

/** A payment provider's signature header: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">. */
const payHeader = (secret: string, body: string, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
/** A code host's signature header: sha256=<hex HMAC-SHA256 of the body>. */
const ghHeader = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const charge = (id: string, amount = 1250) =>
  JSON.stringify({ id, type: 'charge.refunded', created: 1764900000, data: { charge: `ch_${id}`, amount } });

interface Backend {
  readonly name: string;
  readonly store: () => Promise<Store | string>;
  readonly cleanup: () => Promise<void>;
}
const dir = mkdtempSync(join(tmpdir(), 'keel-hooks-'));
const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_hooks');
const BACKENDS: readonly Backend[] = [
  {
    name: 'SQLite',
    store: async () => join(dir, 'keel.db'),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema), cleanup: () => dropSchema(url, schema) },
];

for (const backend of BACKENDS) {
  describe(`hooks over HTTP on ${backend.name}`, () => {
    let keel: Keel;
    let server: RunningServer;
    const logged: string[] = [];
    const post = async (hook: string, body: string, headers: Record<string, string>) => {
      const res = await fetch(`${server.url}/hooks/${hook}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      });
      const text = await res.text();
      // biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are asserted field by field below
      return { status: res.status, headers: res.headers, body: JSON.parse(text) as Record<string, any> };
    };
    const runsOf = async (tenant: string) => (await keel.runs.list(tenant, { limit: 1000 })).runs;

    before(async () => {
      keel = createKeel({ store: await backend.store(), metrics: true });
      await deploy(keel, 'acme', spec('refunds', 'charge.refunded'));
      await deploy(keel, 'acme', spec('builds', 'push'));
      await deploy(keel, 'acme', spec('forms', 'form.submitted'));
      await deploy(keel, 'globex', spec('globex-refunds', 'charge.refunded'));
      server = await startServer(keel, {
        port: 0,
        hooks: served,
        log: (e) => logged.push(String(e)),
      });
    });
    after(async () => {
      await server.close();
      // A background walk may log the engine's own head_mismatch race under this burst (reported
      // apart from hooks); anything else logged is a failure of this suite.
      const other = logged.filter((m) => !/fails verification at seq \d+ \(head_mismatch\)/.test(m));
      assert.deepEqual(other, [], 'nothing unexpected was logged');
      if (logged.length > 0)
        console.error(`${backend.name}: ${logged.length} background head_mismatch error(s) logged`);
      await backend.cleanup();
    });

    test('a payment provider’s delivery starts one run; its retries (re-signed later) answer that run', async () => {
      const body = charge('evt_1');
      const first = await post('payments', body, { 'Stripe-Signature': payHeader(PAY_SECRET, body) });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.body.source, 'hook:payments');
      assert.equal(first.body.runs.length, 1);
      for (let i = 0; i < 3; i++) {
        const again = await post('payments', body, {
          'Stripe-Signature': payHeader(PAY_SECRET, body, Math.floor(Date.now() / 1000) + i),
        });
        assert.equal(again.status, 200);
        assert.equal(again.body.redelivery, true);
        assert.equal(again.body.runs[0].runId, first.body.runs[0].runId);
      }
      const runs = (await runsOf('acme')).filter((r) => r.workflowId === 'refunds');
      assert.equal(runs.length, 1, 'exactly one run for the delivery and its retries');
      const d = await keel.events.delivered('acme', 'hook:payments', 'evt_1');
      assert.equal(d?.type, 'charge.refunded');
      assert.equal(d?.time, '2025-12-05T02:00:00Z');
    });

    test('a code host’s delivery (sha256=<hex>, id in X-GitHub-Delivery) starts its run', async () => {
      const body = JSON.stringify({
        ref: 'refs/heads/main',
        head_commit: { timestamp: '2026-01-31T12:00:00+01:00' },
      });
      const r = await post('code', body, {
        'X-Hub-Signature-256': ghHeader(GH_SECRET, body),
        'X-GitHub-Delivery': 'gh-d-1',
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.runs[0].workflowId, 'builds');
      const again = await post('code', body, {
        'X-Hub-Signature-256': ghHeader(GH_SECRET, body),
        'X-GitHub-Delivery': 'gh-d-1',
      });
      assert.equal(again.status, 200);
      assert.equal(again.body.redelivery, true);
    });

    test('a form tool’s application/x-www-form-urlencoded delivery, signed over its raw bytes, starts its run', async () => {
      const form =
        'submission_id=sub-1&email=ana%40example.com&amount=30&topic=billing&topic=refunds&note=caf%C3%A9+ok';
      const sign = (b: string) => createHmac('sha256', GH_SECRET).update(b).digest('base64');
      const headers = {
        'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
        'X-Form-Time': '2026-01-31T12:00:00Z',
      };
      const r = await post('forms', form, { ...headers, 'X-Form-Signature': sign(form) });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.runs[0].workflowId, 'forms');
      const root = (await keel.runs.entries('acme', r.body.runs[0].runId))[0]!;
      const { event } = payloadOf(root, 'run.started');
      assert.deepEqual([event.source, event.id, event.subject], ['hook:forms', 'sub-1', 'ana@example.com']);
      assert.deepEqual(event.payload, { amount: '30', topics: ['billing', 'refunds'] });
      // The same fields encoded otherwise (%20 for +) are other bytes: the signature over the
      // original bytes does not pass for them.
      const reencoded = form.replace('caf%C3%A9+ok', 'caf%C3%A9%20ok');
      const tampered = await post('forms', reencoded, { ...headers, 'X-Form-Signature': sign(form) });
      assert.deepEqual([tampered.status, tampered.body.details.reason], [401, 'signature_mismatch']);
      // Its retry answers the first run; a form failing the body schema is 422 naming the field.
      const again = await post('forms', form, { ...headers, 'X-Form-Signature': sign(form) });
      assert.deepEqual([again.status, again.body.redelivery], [200, true]);
      const bad = 'submission_id=sub-2&email=b%40example.com&amount=thirty';
      const schema = await post('forms', bad, { ...headers, 'X-Form-Signature': sign(bad) });
      assert.deepEqual(
        [schema.status, schema.body.details.reason, schema.body.details.field],
        [422, 'body_schema', 'amount'],
      );
      const broken = 'submission_id=sub-3&email=%zz';
      const malformed = await post('forms', broken, { ...headers, 'X-Form-Signature': sign(broken) });
      assert.deepEqual([malformed.status, malformed.body.details.reason], [400, 'body_invalid']);
      assert.equal((await runsOf('acme')).filter((x) => x.workflowId === 'forms').length, 1);
    });

    test('refusals name their reason, are counted, and change nothing', async () => {
      const before = (await runsOf('acme')).length;
      const body = charge('evt_refused');
      const old = Math.floor(Date.now() / 1000) - 3600;
      const cases: [string, string, Record<string, string>, number, string][] = [
        [
          'payments',
          body.replace('1250', '99999'),
          { 'Stripe-Signature': payHeader(PAY_SECRET, body) },
          401,
          'signature_mismatch',
        ],
        [
          'payments',
          body,
          { 'Stripe-Signature': payHeader('wrong-secret', body) },
          401,
          'signature_mismatch',
        ],
        ['payments', body, { 'Stripe-Signature': payHeader(PAY_SECRET, body, old) }, 401, 'timestamp_stale'],
        [
          'payments',
          body,
          { 'Stripe-Signature': payHeader(PAY_SECRET, body, old + 7200) },
          401,
          'timestamp_future',
        ],
        ['payments', body, {}, 401, 'signature_missing'],
        [
          'code',
          body,
          { 'X-Hub-Signature-256': ghHeader(PAY_SECRET, body), 'X-GitHub-Delivery': 'x' },
          401,
          'signature_mismatch',
        ],
        ['nope', body, {}, 404, 'unknown_hook'],
        [
          'payments',
          charge('evt_big').replace('}}', `, "pad": "${'x'.repeat(5000)}"}}`),
          {},
          413,
          'too_large',
        ],
      ];
      const schemaBody = charge('evt_refused', 12).replace('12}', '"12"}');
      cases.push([
        'payments',
        schemaBody,
        { 'Stripe-Signature': payHeader(PAY_SECRET, schemaBody) },
        422,
        'body_schema',
      ]);
      const notJson = '{"id": ';
      cases.push([
        'payments',
        notJson,
        { 'Stripe-Signature': payHeader(PAY_SECRET, notJson) },
        400,
        'body_invalid',
      ]);
      for (const [hook, b, h, status, reason] of cases) {
        const r = await post(hook, b, h);
        assert.equal(r.status, status, `${hook} ${reason}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.details.reason, reason);
        assert.doesNotMatch(JSON.stringify(r.body), new RegExp(`${PAY_SECRET}|${GH_SECRET}`));
      }
      const schemaRefusal = await post('payments', schemaBody, {
        'Stripe-Signature': payHeader(PAY_SECRET, schemaBody),
      });
      assert.equal(schemaRefusal.body.error, 'delivery_invalid');
      assert.equal(schemaRefusal.body.details.field, 'data.amount');
      assert.equal((await runsOf('acme')).length, before, 'no refused delivery started a run');
      assert.equal(
        await keel.events.delivered('acme', 'hook:payments', 'evt_refused'),
        undefined,
        'nor named an event',
      );
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      for (const [hook, outcome] of [
        ['payments', 'timestamp_stale'],
        ['payments', 'signature_mismatch'],
        ['(unknown)', 'unknown_hook'],
        ['payments', 'body_schema'],
        ['payments', 'accepted'],
        ['payments', 'redelivery'],
      ] as const)
        assert.match(
          metrics,
          new RegExp(
            `keel_hook_deliveries_total\\{hook="${hook.replace(/[()]/g, '\\$&')}",outcome="${outcome}"\\} [1-9]`,
          ),
          `${hook} ${outcome}`,
        );
    });

    test('GET /api/hooks shows the caller’s tenant’s hooks only, never a secret', async () => {
      const key = (await keel.keys.create('acme', 'dana')).key;
      const res = await fetch(`${server.url}/api/hooks`, { headers: { Authorization: `Bearer ${key}` } });
      const text = await res.text();
      assert.equal(res.status, 200);
      const { hooks } = JSON.parse(text) as {
        hooks: { name: string; auth: { secretEnv: string }; event: { id: string } }[];
      };
      assert.deepEqual(
        hooks.map((h) => h.name),
        ['payments', 'code', 'forms', 'slow'],
      );
      assert.equal(hooks[0]!.auth.secretEnv, 'PAY_SECRET');
      assert.equal(hooks[1]!.event.id, '{{headers.X-GitHub-Delivery}}');
      assert.doesNotMatch(text, new RegExp(`${PAY_SECRET}|${GH_SECRET}|${GLOBEX_SECRET}|globex`));
      assert.equal((await fetch(`${server.url}/api/hooks`)).status, 401);
    });

    test('a redelivery with other content is 409 event_conflict and starts nothing', async () => {
      const body = charge('evt_1', 1);
      const r = await post('payments', body, { 'Stripe-Signature': payHeader(PAY_SECRET, body) });
      assert.equal(r.status, 409);
      assert.equal(r.body.error, 'event_conflict');
      assert.equal((await runsOf('acme')).filter((x) => x.workflowId === 'refunds').length, 1);
    });

    test('another tenant’s hook path cannot start this tenant’s runs', async () => {
      const acmeBefore = (await runsOf('acme')).length;
      const body = JSON.stringify({ id: 'g-1', type: 'charge.refunded', time: '2026-01-31T12:00:00Z' });
      const r = await post('globex-desk', body, { 'X-Token': GLOBEX_SECRET });
      assert.equal(r.status, 201);
      assert.deepEqual(
        r.body.runs.map((x: { workflowId: string }) => x.workflowId),
        ['globex-refunds'],
      );
      // acme's secret on globex's path is refused; globex's secret on acme's path too.
      const signed = charge('evt_cross');
      assert.equal((await post('globex-desk', signed, { 'X-Token': PAY_SECRET })).status, 401);
      assert.equal(
        (await post('payments', signed, { 'Stripe-Signature': payHeader(GLOBEX_SECRET, signed) })).status,
        401,
      );
      assert.equal((await runsOf('acme')).length, acmeBefore, 'acme started nothing');
      assert.equal(await keel.events.delivered('acme', 'hook:globex-desk', 'g-1'), undefined);
    });

    test('a burst of 1,000 deliveries (400 distinct, sent 2 or 3 times), 16 at once: one run each, no 5xx', async (t) => {
      const TOTAL = 1000;
      const DISTINCT = 400;
      const before = (await runsOf('acme')).filter((r) => r.workflowId === 'refunds').length;
      // Duplicates interleaved: a retry often arrives while its first delivery is still in flight.
      const ids = Array.from({ length: TOTAL }, (_, i) => `burst-${i % DISTINCT}`);
      const statuses = new Map<number, number>();
      const byId = new Map<string, Set<string>>();
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < ids.length) {
            const id = ids[next++]!;
            const body = charge(id);
            const r = await post('payments', body, { 'Stripe-Signature': payHeader(PAY_SECRET, body) });
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            if (r.status < 300) {
              const set = byId.get(id) ?? new Set();
              for (const run of r.body.runs) set.add(run.runId);
              byId.set(id, set);
            }
          }
        }),
      );
      const ms = performance.now() - t0;
      t.diagnostic(`${TOTAL} deliveries in ${Math.round(ms)} ms (${Math.round((TOTAL / ms) * 1000)}/s)`);
      assert.ok(ms < 120_000, `the burst took ${Math.round(ms)} ms`);
      assert.deepEqual(
        [...statuses.keys()].filter((s) => s >= 300),
        [],
        `statuses: ${JSON.stringify([...statuses])}`,
      );
      assert.equal(statuses.get(201), DISTINCT, 'one 201 per distinct delivery');
      assert.equal(statuses.get(200), TOTAL - DISTINCT, 'the duplicates answered the first runs');
      assert.equal(byId.size, DISTINCT);
      for (const [id, set] of byId) assert.equal(set.size, 1, `${id}: every answer names one run`);
      const after = (await runsOf('acme')).filter((r) => r.workflowId === 'refunds').length;
      assert.equal(after - before, DISTINCT, 'exactly one run per distinct delivery');
    });

    test('past its rate limit a hook answers 429 with Retry-After, and starts nothing for it', async () => {
      const answers: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const body = JSON.stringify({ id: `slow-${i}`, type: 'tick', time: '2026-01-31T12:00:00Z' });
        const r = await post('slow', body, { 'X-Token': GLOBEX_SECRET });
        answers.push(r.status);
        if (r.status === 429) retryAfter = r.headers.get('retry-after');
      }
      assert.deepEqual(answers.slice(0, 3), [200, 200, 200], 'the burst is taken (no workflow: no run, 200)');
      assert.ok(
        answers.slice(3).every((s) => s === 429),
        JSON.stringify(answers),
      );
      assert.equal(retryAfter, '1');
      assert.equal(await keel.events.delivered('acme', 'hook:slow', 'slow-4'), undefined);
    });
  });
}
