/**
 * The lifecycle over HTTP (`/api/workflows/{id}/...`), through the real server app: a person's key
 * promotes one step at a time, a service key gets 403 forbidden on promote, override and rollout;
 * an unmet gate is 409 promotion_gate_unmet carrying the report; tests, gate, shadow report,
 * replay gate, diff, rollout and the chained records answer; every route is in the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { inProcessServer, type Json } from '../../test/helpers/in-process-server.ts';

const SHIP = `id: ship
version: 1
status: DRAFT
triggers: [{ event: ship }]
steps:
  - { name: a, tool: core.identity, args: { n: "{{event.payload.n}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
tests:
  - name: ships
    event: { type: ship, payload: { n: 1 } }
    expect: { status: completed, args: { a: { n: 1 } } }
`;

const t = inProcessServer();
let person = '';
let service = '';
before(async () => {
  person = (await t.keel.keys.create('acme', 'dana', 'human')).key;
  service = (await t.keel.keys.create('acme', 'ci-bot')).key;
});

const wf = (tail: string) => `/api/workflows/ship${tail}`;
const promote = (to: string, key: string, more: Json = {}) =>
  t.api('POST', wf('/promote'), { key, body: { to, ...more } });

describe('the lifecycle over HTTP', () => {
  test('a person promotes one step at a time; a service key may not; an unmet gate says what is missing', async () => {
    assert.equal((await t.api('POST', '/api/workflows', { key: person, body: { text: SHIP } })).status, 201);
    const skipped = await promote('LIVE', person);
    assert.equal(skipped.status, 400);
    assert.match(String(skipped.body.message), /one step at a time/);
    const bot = await promote('TESTING', service);
    assert.deepEqual([bot.status, bot.body.error], [403, 'forbidden']);
    assert.equal((await promote('TESTING', person)).status, 200);
    const unmet = await promote('SHADOW', person);
    assert.deepEqual([unmet.status, unmet.body.error], [409, 'promotion_gate_unmet']);
    const report = (unmet.body.details as { report: { conditions: { id: string; met: boolean }[] } }).report;
    assert.deepEqual(
      report.conditions.filter((c) => !c.met).map((c) => c.id),
      ['tests.pass'],
    );
    const tests = await t.api('POST', wf('/tests'), { key: service, body: {} });
    assert.equal(tests.status, 200, JSON.stringify(tests.body));
    assert.equal(tests.body.passed, true);
    const gate = await t.api('GET', wf('/gate?to=SHADOW'), { key: service });
    assert.equal(gate.body.met, true);
    const shadow = await promote('SHADOW', person);
    assert.deepEqual(
      [shadow.status, shadow.body.from, shadow.body.to, shadow.body.by],
      [200, 'TESTING', 'SHADOW', 'dana'],
    );
    assert.equal((shadow.body.report as { met: boolean }).met, true);
    assert.equal((await promote('LIVE', person)).status, 200);
    const override = await promote('AUTONOMOUS', service, { override: { reason: 'because' } });
    assert.equal(override.status, 403, 'a service key cannot override a gate either');
    const auto = await promote('AUTONOMOUS', person, { override: { reason: 'signed off by ops' } });
    assert.deepEqual((auto.body as { override?: unknown }).override, { reason: 'signed off by ops' });
    // Stepping back: any key may.
    const back = await promote('LIVE', service);
    assert.deepEqual([back.status, back.body.kind], [200, 'demote']);
    const records = await t.api('GET', wf('/promotions'), { key: service });
    assert.equal((records.body.chain as { ok: boolean }).ok, true);
    assert.equal((records.body.records as unknown[]).length, 5);
  });

  test('v2 beside the LIVE v1: shadow report, replay gate, diff, and a rollout only a person starts', async () => {
    const v2 = SHIP.replace('version: 1', 'version: 2').replace('n: "{{event.payload.n}}"', 'n: 2');
    assert.equal((await t.api('POST', '/api/workflows', { key: person, body: { text: v2 } })).status, 201);
    for (const to of ['TESTING']) assert.equal((await promote(to, person, { version: 2 })).status, 200);
    await t.api('POST', wf('/tests'), { key: person, body: { version: 2 } });
    // Its test expects n: 1 and it proposes n: 2: the gate to SHADOW is not met; a person overrides.
    const shadow = await promote('SHADOW', person, { version: 2, override: { reason: 'try it in shadow' } });
    assert.equal(shadow.status, 200, JSON.stringify(shadow.body));
    for (let i = 0; i < 3; i++) {
      const r = await t.api('POST', '/api/events', {
        key: service,
        body: { id: `s${i}`, type: 'ship', time: '2026-12-01T10:00:00Z', payload: { n: 1 } },
      });
      assert.equal(r.status, 201);
    }
    await t.server.host.drain();
    await t.keel.lifecycle.settled();
    const report = await t.api('GET', wf('/shadow-report?version=2'), { key: service });
    assert.deepEqual([report.body.comparisons, report.body.agreed], [3, 0]);
    const replay = await t.api('POST', wf('/replay-gate'), { key: service, body: { version: 2 } });
    assert.equal((replay.body.diverged as unknown[]).length, replay.body.runs);
    const diff = await t.api('GET', wf('/diff?from=1&to=2'), { key: service });
    assert.match(JSON.stringify(diff.body.changes), /argument n is 2/);
    assert.equal(
      (await t.api('POST', wf('/rollout'), { key: service, body: { to: 2, percent: 10 } })).status,
      403,
    );
    const refused = await t.api('POST', wf('/rollout'), { key: person, body: { to: 2, percent: 10 } });
    assert.deepEqual([refused.status, refused.body.error], [409, 'promotion_gate_unmet']);
    const unsticky = await t.api('POST', wf('/rollout'), {
      key: person,
      body: { to: 2, percent: 10, stickyBy: 'customer', override: { reason: 'ship it' } },
    });
    assert.deepEqual(
      [unsticky.status, unsticky.body.error, (unsticky.body.details as Json).field],
      [400, 'usage', 'stickyBy'],
    );
    const started = await t.api('POST', wf('/rollout'), {
      key: person,
      body: { to: 2, percent: 10, stickyBy: 'payload.customer_id', override: { reason: 'ship it' } },
    });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const status = (await t.api('GET', wf('/rollout'), { key: service })).body;
    assert.deepEqual(
      [(status.rollout as Json).percent, (status.rollout as Json).stickyBy, status.triggerDisagreements],
      [10, 'payload.customer_id', { count: 0, byChoice: [] }],
    );
    const back = await t.api('POST', wf('/rollout/rollback'), {
      key: service,
      body: { reason: 'monitor says no' },
    });
    assert.equal((back.body.rollout as Json).status, 'rolled_back');
    // Another tenant sees none of it: the workflow does not exist there.
    for (const path of ['/promotions', '/rollout', '/shadow-report', '/gate?to=LIVE'])
      assert.equal((await t.api('GET', wf(path), { key: t.globex })).status, 404, path);
  });

  test('a run started over HTTP of a version not yet LIVE is simulated unless live: true', async () => {
    const text = SHIP.replace('id: ship', 'id: try');
    assert.equal((await t.api('POST', '/api/workflows', { key: person, body: { text } })).status, 201);
    const start = (body: Json) => t.api('POST', '/api/workflows/try/runs', { key: service, body });
    const event = (id: string) => ({ id, type: 'ship', time: '2026-01-01T00:00:00Z', payload: { n: 1 } });
    const tried = await start({ event: event('h1') });
    assert.deepEqual([tried.status, tried.body.simulated], [201, true], JSON.stringify(tried.body));
    await t.server.host.drain();
    const entries = await t.api('GET', `/api/runs/${encodeURIComponent(String(tried.body.runId))}/entries`, {
      key: service,
    });
    const root = (entries.body.entries as { payload: Json }[])[0]!.payload;
    assert.deepEqual([root.mode, (root.test as Json).name], ['test', 'run']);
    const real = await start({ event: event('h2'), live: true });
    assert.deepEqual([real.status, real.body.simulated], [201, undefined]);
    const bad = await start({ event: event('h3'), live: 'yes' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /live/);
    // OpenWOP's create runs the newest version: the same rule, but for Keel's own conformance fixtures.
    const modes = async (workflowId: string) => {
      await t.server.host.drain();
      return (await t.keel.runs.list('acme', { workflowId })).runs.map((r) => r.mode ?? 'live');
    };
    const before_ = await modes('try');
    const wop = await t.api('POST', '/v1/runs', { key: service, body: { workflowId: 'try' } });
    assert.equal(wop.status, 201, JSON.stringify(wop.body));
    assert.deepEqual((await modes('try')).sort(), [...before_, 'test'].sort(), 'one more simulated run');
    const fixture = await t.api('POST', '/v1/runs', {
      key: service,
      body: { workflowId: 'conformance-noop' },
    });
    assert.equal(fixture.status, 201, JSON.stringify(fixture.body));
    assert.deepEqual(await modes('conformance-noop'), ['live']);
  });

  test('every lifecycle route is in the OpenAPI document', async () => {
    const doc = await t.api('GET', '/openapi.json', { key: null });
    const paths = Object.keys(doc.body.paths as Json);
    for (const p of [
      'promote',
      'gate',
      'tests',
      'shadow-report',
      'replay-gate',
      'rollout',
      'rollout/advance',
      'rollout/rollback',
      'diff',
      'promotions',
    ])
      assert.ok(paths.includes(`/api/workflows/{workflowId}/${p}`), p);
  });
});
