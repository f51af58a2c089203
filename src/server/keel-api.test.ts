/**
 * The Keel API (`/api`) and `/openapi.json` over a real server app on an in-memory store, driven
 * through `app.request`: publish → promote (a person's key, one step at a time) → emit → list,
 * history, entries, verify; approvals; fork, replay, rerun, cancel; tenant isolation (another
 * tenant's key gets exactly a missing run's answer); authentication; bad input naming the field;
 * the OpenAPI document and docs/http.md's route list against the route table.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { inProcessServer, type Json } from '../../test/helpers/in-process-server.ts';
import { DEEP_YAML_SHAPES, deepSpecText } from '../testing/deep-yaml.ts';
import { setStatus } from '../testing/index.ts';
import { httpStatusTable } from './errors.ts';
import { KEEL_ROUTES } from './keel-routes.ts';

const GATED = `id: gated
version: 1
status: DRAFT
triggers: [{event: ship}]
steps:
  - {name: gate, tool: core.approvalGate, args: {title: "Ship it?"}}
  - {name: after, tool: core.noop}
limits: {maxSteps: 2, maxCostUsd: 0}
tests:
  - name: ships once approved
    event: {type: ship}
    expect: {status: completed, steps: [gate, after], approvals: [gate]}
`;

const PLAIN = {
  id: 'plain',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'ping' }],
  steps: [
    { name: 'a', tool: 'core.identity', args: { n: 1 } },
    { name: 'b', tool: 'core.noop' },
  ],
  limits: { maxSteps: 2, maxCostUsd: 0 },
};

const MISSING = `sha256:${'0'.repeat(64)}`;

const t = inProcessServer();
const api = t.api;
/** A person's key for dana in acme: only a person may promote (the server's own key is a service's). */
let human: string;
before(async () => {
  human = (await t.keel.keys.create('acme', 'dana', 'human')).key;
});

const run = (id: string, tail = '') => `/api/runs/${id}${tail}`;
let n = 0;
const event = (type: string, payload: Json = {}) => ({
  id: `evt-${++n}`,
  type,
  time: '2026-01-31T12:00:00Z',
  payload,
});

/** Emits one event that starts exactly one run, and waits for its background walk to stop. */
async function start(type: string): Promise<string> {
  const r = await api('POST', '/api/events', { body: event(type) });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const runs = r.body.runs as Json[];
  assert.equal(runs.length, 1);
  await t.server.host.drain();
  return runs[0]!.runId as string;
}

async function status(id: string): Promise<string> {
  await t.server.host.drain();
  const r = await api('GET', run(id));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.status as string;
}

describe('workflows', () => {
  test('publish YAML text (201), promote to LIVE, read back', async () => {
    const r = await api('POST', '/api/workflows', { body: { text: GATED, file: 'gated.yaml' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.workflowId, 'gated');
    assert.equal(r.body.status, 'DRAFT');
    assert.equal(r.body.publishedBy, 'dana');
    assert.equal(r.body.created, true);
    const again = await api('POST', '/api/workflows', { body: { text: GATED } });
    assert.equal(again.status, 200, 'the same content again is no new version');
    assert.equal(again.body.created, false);

    // A service key may not promote; a person's may, one step at a time, each up its gate.
    const service = await api('POST', '/api/workflows/gated/promote', { body: { to: 'TESTING' } });
    assert.equal(service.status, 403, JSON.stringify(service.body));
    assert.equal(service.body.error, 'forbidden');
    const skip = await api('POST', '/api/workflows/gated/promote', { key: human, body: { to: 'LIVE' } });
    assert.equal(skip.status, 400, JSON.stringify(skip.body));
    assert.equal(skip.body.error, 'usage');
    const promote = (to: string) => api('POST', '/api/workflows/gated/promote', { key: human, body: { to } });
    const testing = await promote('TESTING');
    assert.equal(testing.status, 200, JSON.stringify(testing.body));
    const untested = await promote('SHADOW');
    assert.equal(untested.status, 409, JSON.stringify(untested.body));
    assert.equal(untested.body.error, 'promotion_gate_unmet');
    const tests = await api('POST', '/api/workflows/gated/tests', { body: {} });
    assert.equal(tests.status, 200, JSON.stringify(tests.body));
    assert.equal(tests.body.passed, true, JSON.stringify(tests.body));
    assert.equal((await promote('SHADOW')).status, 200);
    const p = await promote('LIVE');
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual(
      { from: p.body.from, to: p.body.to, by: p.body.by, version: p.body.version, kind: p.body.kind },
      { from: 'SHADOW', to: 'LIVE', by: 'dana', version: 1, kind: 'promote' },
    );
    assert.equal((p.body.report as Json).met, true, 'the first LIVE version: its tests passed again');
    assert.equal(p.body.override, undefined);
    const got = await api('GET', '/api/workflows/gated');
    assert.equal(got.body.status, 'LIVE');
    const v1 = await api('GET', '/api/workflows/gated?version=1');
    assert.equal(v1.body.version, 1);
    const versions = await api('GET', '/api/workflows/gated/versions');
    assert.equal((versions.body.versions as Json[]).length, 1);
    assert.deepEqual(
      (versions.body.promotions as Json[]).map((r) => [r.from, r.to, r.by]),
      [
        ['DRAFT', 'TESTING', 'dana'],
        ['TESTING', 'SHADOW', 'dana'],
        ['SHADOW', 'LIVE', 'dana'],
      ],
    );
  });

  test('publish a spec object and a JSON text; list with ?workflowId', async () => {
    const r = await api('POST', '/api/workflows', { body: PLAIN });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const j = await api('POST', '/api/workflows', {
      body: { text: JSON.stringify({ ...PLAIN, id: 'plain-json' }), format: 'json' },
    });
    assert.equal(j.status, 201, JSON.stringify(j.body));
    // Put at LIVE directly (a fixture, past the gates): the runs below need it, not its evidence.
    await setStatus(t.keel, 'acme', 'plain', 1, 'LIVE');
    const all = await api('GET', '/api/workflows');
    assert.deepEqual((all.body.versions as Json[]).map((v) => v.workflowId).sort(), [
      'gated',
      'plain',
      'plain-json',
    ]);
    const one = await api('GET', '/api/workflows?workflowId=plain');
    assert.deepEqual(
      (one.body.versions as Json[]).map((v) => v.workflowId),
      ['plain'],
    );
  });

  test('a bad spec is spec_invalid naming the field; a missing workflow is 404', async () => {
    const r = await api('POST', '/api/workflows', { body: { ...PLAIN, id: 'bad', steps: [{ name: 'x' }] } });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'spec_invalid');
    assert.ok(JSON.stringify(r.body.details).includes('tool'), JSON.stringify(r.body));
    const live = await api('POST', '/api/workflows', { body: { ...PLAIN, id: 'eager', status: 'LIVE' } });
    assert.equal(live.status, 400);
    assert.equal((await api('GET', '/api/workflows/nope')).status, 404);
    assert.equal((await api('GET', '/api/workflows/nope/versions')).status, 404);
    assert.equal((await api('GET', '/api/workflows/gated?version=9')).status, 404);
  });
});

describe('events, runs and approvals', () => {
  let gated: string;

  test('emit starts a run that waits for approval; it is listed, with its pending approval', async () => {
    gated = await start('ship');
    assert.equal(await status(gated), 'waiting_approval');
    const list = await api('GET', '/api/runs?workflowId=gated');
    assert.ok((list.body.runs as Json[]).some((r) => r.runId === gated));
    const waiting = await api('GET', '/api/runs?status=waiting_approval&limit=10');
    assert.ok((waiting.body.runs as Json[]).every((r) => r.status === 'waiting_approval'));
    const approvals = await api('GET', `/api/approvals?runId=${encodeURIComponent(gated)}`);
    const [pending] = approvals.body.approvals as Json[];
    assert.equal(pending?.tool, 'core.approvalGate');
    assert.equal(pending?.step, 'gate');
  });

  test('an event matching nothing is 200 with no runs', async () => {
    const r = await api('POST', '/api/events', { body: event('nobody-listens') });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.runs, []);
  });

  test('approve: the run continues in the background and completes; history, entries, verify', async () => {
    const r = await api('POST', run(gated, '/approve'), { body: { note: 'looks right' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await status(gated), 'completed');
    const again = await api('POST', run(gated, '/approve'), { body: {} });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'already_resolved');

    const history = await api('GET', run(gated, '/history'));
    const lines = history.body.history as Json[];
    assert.ok(lines.length > 3);
    assert.ok(
      lines.some((l) => String(l.text).includes('dana')),
      'the approver is the key’s subject',
    );
    const entries = await api('GET', run(gated, '/entries'));
    const seqs = (entries.body.entries as Json[]).map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i),
    );
    const v = await api('POST', run(gated, '/verify'));
    assert.equal(v.status, 200);
    assert.equal(v.body.ok, true);
    // The colon of the run id may arrive percent-encoded.
    const encoded = await api('POST', `/api/runs/${encodeURIComponent(gated)}/verify`);
    assert.equal(encoded.body.ok, true);
  });

  test('deny: the run stops without running the gated step', async () => {
    const id = await start('ship');
    const r = await api('POST', run(id, '/deny'), { body: { note: 'not today' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await status(id), 'refused');
  });

  test('replay is identical; a replay fork completes; a branch fork takes another event; rerun', async () => {
    const id = await start('ping');
    assert.equal(await status(id), 'completed');
    const replay = await api('POST', run(id, '/replay'));
    assert.equal(replay.status, 200);
    assert.equal(replay.body.identical, true);

    const fork = await api('POST', run(id, '/fork'), { body: { fromSeq: 0, mode: 'replay' } });
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    assert.equal(fork.body.forkOf, id);
    const forkId = fork.body.runId as string;
    assert.notEqual(forkId, id);
    assert.equal(await status(forkId), 'completed');
    const same = await api('POST', run(id, '/fork'), { body: { fromSeq: 0, mode: 'replay' } });
    assert.equal(same.status, 200, 'the same fork again is the existing fork');
    assert.equal(same.body.runId, forkId);

    const branch = await api('POST', run(id, '/fork'), {
      body: { fromSeq: 1, mode: 'branch', event: event('ping', { what: 'if' }) },
    });
    assert.equal(branch.status, 201, JSON.stringify(branch.body));
    assert.equal(await status(branch.body.runId as string), 'completed');
    const badPoint = await api('POST', run(id, '/fork'), { body: { fromSeq: 999, mode: 'branch' } });
    assert.equal(badPoint.status, 400);
    assert.equal(badPoint.body.details && (badPoint.body.details as Json).field, 'fromSeq');

    const rerun = await api('POST', run(id, '/rerun'));
    assert.equal(rerun.status, 201, JSON.stringify(rerun.body));
    assert.equal(rerun.body.attemptOf, id);
    assert.equal(await status(rerun.body.runId as string), 'completed');
  });

  test('cancel a waiting run as the key’s subject; cancelling again is run_terminal', async () => {
    const id = await start('ship');
    const r = await api('POST', run(id, '/cancel'), { body: { reason: 'wrong order' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(await status(id), 'cancelled');
    assert.deepEqual((await api('GET', `/api/approvals?runId=${id}`)).body.approvals, []);
    const again = await api('POST', run(id, '/cancel'), { body: {} });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'run_terminal');
  });

  test('Idempotency-Key: a retried emit gets the first response', async () => {
    const key = 'emit-retry-0123456789abcdef';
    const body = event('ping');
    const first = await api('POST', '/api/events', { body, headers: { 'Idempotency-Key': key } });
    assert.equal(first.status, 201);
    const second = await api('POST', '/api/events', { body, headers: { 'Idempotency-Key': key } });
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('openwop-idempotent-replay'), 'true');
    assert.deepEqual(second.body, first.body);
    const other = await api('POST', '/api/events', {
      body: event('ping'),
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(other.status, 409);
    assert.equal(other.body.error, 'idempotency_key_mismatch');
    await t.server.host.drain();
  });
});

describe('events are named by (source, id)', () => {
  test('a redelivery answers its first runs (200, flagged); a restamped one is 409 event_conflict, recorded and listed', async () => {
    const body = event('ping');
    const first = await api('POST', '/api/events', { body });
    assert.equal(first.status, 201);
    assert.equal(first.body.source, 'http', 'an event sent without a source is named by the channel');
    const ids = (first.body.runs as Json[]).map((r) => r.runId);
    assert.equal(ids.length, 1);
    const again = await api('POST', '/api/events', { body });
    assert.equal(again.status, 200);
    assert.equal(again.body.redelivery, true);
    assert.equal(typeof again.body.firstDeliveredAt, 'string');
    assert.deepEqual(
      (again.body.runs as Json[]).map((r) => [r.runId, r.created]),
      [[ids[0], false]],
    );
    const restamped = await api('POST', '/api/events', { body: { ...body, time: '2026-01-31T12:05:00Z' } });
    assert.equal(restamped.status, 409);
    assert.equal(restamped.body.error, 'event_conflict');
    const details = restamped.body.details as Json;
    assert.deepEqual(
      [details.fields, details.runs, details.source, details.eventId],
      [['time'], ids, 'http', body.id],
    );
    const before = (await api('GET', '/api/runs?workflowId=plain&limit=100')).body.runs as Json[];
    assert.equal(before.filter((r) => r.eventId === body.id).length, 1, 'one run for the event');

    const listed = await api('GET', `/api/events/conflicts?source=http&id=${body.id}`);
    assert.equal(listed.status, 200);
    const [conflict] = listed.body.conflicts as Json[];
    assert.deepEqual([conflict?.eventId, conflict?.fields, conflict?.count], [body.id, ['time'], 1]);
    const delivery = await api('GET', `/api/events/delivery?source=http&id=${body.id}`);
    assert.equal(delivery.status, 200);
    assert.deepEqual(
      (delivery.body.runs as Json[]).map((r) => r.runId),
      ids,
    );
    assert.equal(delivery.body.time, body.time, 'the first delivery’s content stands');
    assert.equal((await api('GET', '/api/events/delivery?source=http&id=never-sent')).status, 404);
    const bad = await api('GET', '/api/events/delivery?source=http');
    assert.equal(bad.status, 400);
    assert.equal((await api('GET', '/api/events/conflicts?limit=0')).status, 400);
    // Another tenant sees none of it.
    assert.equal(
      (await api('GET', `/api/events/delivery?source=http&id=${body.id}`, { key: t.globex })).status,
      404,
    );
    assert.deepEqual((await api('GET', '/api/events/conflicts', { key: t.globex })).body.conflicts, []);
    await t.server.host.drain();
  });
});

describe('tenant isolation', () => {
  test('another tenant’s key gets exactly a missing run’s answer, and changes nothing', async () => {
    const id = await start('ship');
    const probes: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['GET', '/history', undefined],
      ['GET', '/entries', undefined],
      ['POST', '/verify', undefined],
      ['POST', '/replay', undefined],
      ['POST', '/approve', {}],
      ['POST', '/deny', {}],
      ['POST', '/cancel', {}],
      ['POST', '/pause', {}],
      ['POST', '/resume', {}],
      ['POST', '/fork', { fromSeq: 0, mode: 'replay' }],
      ['POST', '/rerun', undefined],
    ];
    for (const [method, tail, body] of probes) {
      const theirs = await api(method, run(id, tail), { key: t.globex, body });
      const missing = await api(method, run(MISSING, tail), { key: t.globex, body });
      assert.equal(theirs.status, 404, `${method} ${tail}: ${JSON.stringify(theirs.body)}`);
      assert.deepEqual(
        JSON.parse(JSON.stringify(theirs.body).replaceAll(id, MISSING)),
        missing.body,
        `${method} ${tail}`,
      );
    }
    assert.equal(await status(id), 'waiting_approval', 'still waiting: globex changed nothing');
    assert.deepEqual((await api('GET', '/api/runs', { key: t.globex })).body.runs, []);
    assert.equal((await api('GET', '/api/runs/counts', { key: t.globex })).body.total, 0);
    assert.deepEqual((await api('GET', '/api/approvals', { key: t.globex })).body.approvals, []);
    assert.deepEqual((await api('GET', '/api/workflows', { key: t.globex })).body.versions, []);
    assert.equal((await api('GET', '/api/workflows/gated', { key: t.globex })).status, 404);
    // An event naming another tenant is refused, not routed there.
    const cross = await api('POST', '/api/events', {
      key: t.globex,
      body: { ...event('ship'), tenant: 'acme' },
    });
    assert.equal(cross.status, 400);
    assert.equal(cross.body.error, 'event_invalid');
  });
});

describe('authentication and bad input', () => {
  test('no key or a wrong key is 401 with WWW-Authenticate, before anything is read', async () => {
    for (const [method, path] of [
      ['GET', '/api/runs'],
      ['GET', `/api/runs/${MISSING}`],
      ['POST', '/api/events'],
      ['POST', '/api/workflows'],
      ['GET', '/api/approvals'],
    ] as const) {
      const none = await api(method, path, { key: null, body: method === 'POST' ? {} : undefined });
      assert.equal(none.status, 401, `${method} ${path}`);
      assert.equal(none.body.error, 'unauthenticated');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      const wrong = await api(method, path, { key: `keel_${'0'.repeat(16)}_${'x'.repeat(43)}` });
      assert.equal(wrong.status, 401, `${method} ${path}`);
    }
  });

  test('a bad body is 400 validation_error naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/workflows/gated/promote', { to: 'SOMEDAY' }, 'to'],
      ['/api/workflows/gated/promote', {}, 'to'],
      ['/api/workflows/gated/promote', { to: 'LIVE', version: 'one' }, 'version'],
      ['/api/workflows/gated/promote', { to: 'LIVE', by: 'mallory' }, 'by'],
      ['/api/events', { type: 'ping', time: '2026-01-31T12:00:00Z' }, 'id'],
      ['/api/events', { ...event('ping'), payload: [1] }, 'payload'],
      [run(MISSING, '/fork'), { fromSeq: 0 }, 'mode'],
      [run(MISSING, '/fork'), { fromSeq: -1, mode: 'replay' }, 'fromSeq'],
      [run(MISSING, '/fork'), { fromSeq: 2_147_483_648, mode: 'replay' }, 'fromSeq'],
      [run(MISSING, '/fork'), { fromSeq: 0, mode: 'branch', event: { id: 'x' } }, 'event.type'],
      [run(MISSING, '/cancel'), { reason: 5 }, 'reason'],
      [run(MISSING, '/approve'), { note: ['no'] }, 'note'],
      ['/api/workflows', { text: 42 }, 'text'],
      ['/api/workflows', { text: GATED, id: 'x' }, 'id'],
      ['/api/workflows', { text: '{nope', format: 'json' }, 'text'],
    ];
    for (const [path, body, field] of cases) {
      const r = await api('POST', path, { body });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error, 'validation_error');
      assert.equal((r.body.details as Json).field, field, JSON.stringify(r.body));
      assert.ok(String(r.body.message).startsWith(`${field}:`), String(r.body.message));
    }
    // A version past 2^31 - 1 is a bad spec, the same on every store (issue 26).
    const big = await api('POST', '/api/workflows', {
      body: { ...PLAIN, id: 'big', version: 2_147_483_648 },
    });
    assert.equal(big.status, 400, JSON.stringify(big.body));
    assert.deepEqual([big.body.error, (big.body.details as Json).field], ['spec_invalid', 'version']);
    for (const q of ['version=2147483648', 'version=99999999999999999999'])
      assert.equal((await api('GET', `/api/workflows/plain?${q}`)).status, 400, q);
  });

  test('impossible event times (issue 26) are 400 naming time and the value, and start no run', async () => {
    const before = ((await api('GET', '/api/runs?limit=100')).body.runs as Json[]).length;
    for (const time of [
      '2026-02-30T00:00:00Z',
      '2026-13-45T00:00:00Z',
      '2026-01-31T25:00:00Z',
      '2026-01-31T23:61:00Z',
      '2026-01-31T12:00:00+25:00',
      '0000-00-00T00:00:00Z',
      '2026-04-31T00:00:00Z',
    ]) {
      const r = await api('POST', '/api/events', { body: { ...event('ping'), time } });
      assert.equal(r.status, 400, `${time}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error, 'event_invalid');
      assert.equal((r.body.details as Json).field, 'time');
      assert.ok(String(r.body.message).includes(JSON.stringify(time)), String(r.body.message));
    }
    for (const q of ['since=2026-02-30T00:00:00Z', 'until=2026-01-31T24:00:00Z']) {
      const r = await api('GET', `/api/runs?${q.replace('+', '%2B')}`);
      assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
      assert.equal((r.body.details as Json).field, q.split('=')[0]);
    }
    assert.equal(((await api('GET', '/api/runs?limit=100')).body.runs as Json[]).length, before);
  });

  test('a spec nested 3,000 and 100,000 deep in every YAML shape is 413 naming maxDepth and the field (issue 26)', async () => {
    for (const shape of Object.keys(DEEP_YAML_SHAPES))
      for (const n of [3_000, 100_000]) {
        const r = await api('POST', '/api/workflows', { body: { text: deepSpecText(shape, n) } });
        assert.equal(r.status, 413, `${shape} ${n}: ${JSON.stringify(r.body).slice(0, 300)}`);
        assert.equal(r.body.error, 'payload_too_large');
        const d = r.body.details as Json;
        assert.equal(d.limit, 'maxDepth');
        assert.match(String(d.field), /^steps\[0\]\.args\.a[[.]/, `${shape} ${n}`);
      }
    assert.equal((await api('GET', '/api/workflows/deep')).status, 404);
  });

  test('bad queries, run ids, JSON and media types name what is wrong', async () => {
    const limit = await api('GET', '/api/runs?limit=1000');
    assert.equal(limit.status, 400);
    assert.equal((limit.body.details as Json).field, 'limit');
    const st = await api('GET', '/api/runs?status=sleeping');
    assert.equal((st.body.details as Json).field, 'status');
    const id = await api('GET', '/api/runs/not-a-run-id');
    assert.equal(id.status, 400);
    assert.equal((id.body.details as Json).field, 'runId');
    const json = await api('POST', '/api/events', { raw: '{"id": ' });
    assert.equal(json.status, 400);
    assert.equal((json.body.details as Json).field, '(body)');
    const media = await api('POST', '/api/events', {
      raw: 'id=1',
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(media.status, 415);
    assert.equal(media.body.error, 'unsupported_media_type');
  });
});

describe('docs/http.md', () => {
  test('its route table lists every route of KEEL_ROUTES, and nothing else', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'http.md'), 'utf8');
    const documented = doc
      .split('\n')
      .flatMap((line) => {
        const row = /^\|\s*(GET|POST)\s*\|\s*`([^`]+)`/.exec(line);
        return row ? [`${row[1]} ${row[2]}`] : [];
      })
      .sort();
    assert.deepEqual(documented, KEEL_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
  });
});

describe('GET /openapi.json', () => {
  test('an OpenAPI 3.1 document with every route of the table, without a key', async () => {
    const r = await api('GET', '/openapi.json', { key: null });
    assert.equal(r.status, 200);
    const doc = r.body as {
      openapi: string;
      info: Json;
      paths: Record<string, Record<string, Json>>;
      components: Json & { schemas: Json; responses: Json; securitySchemes: Json };
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    for (const route of KEEL_ROUTES) {
      const op = doc.paths[route.path]?.[route.method];
      assert.ok(op, `${route.method} ${route.path} is documented`);
      assert.equal(op.operationId, route.operationId);
      assert.deepEqual(op.security, route.auth ? [{ bearer: [] }] : []);
      if (route.body) {
        const schema = (op.requestBody as { content: Record<string, { schema: Json }> }).content[
          'application/json'
        ]!.schema;
        assert.equal(schema.type, 'object', `${route.path} body schema`);
      }
    }
    for (const path of [
      '/api/runs/{runId}/fork',
      '/api/events',
      '/.well-known/openwop',
      '/v1/runs',
      '/runs/{runId}:fork',
    ])
      assert.ok(doc.paths[path], path);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        assert.ok(['get', 'post'].includes(method), `${path} ${method}`);
        const responses = op.responses as Json;
        assert.ok(Object.keys(responses).length > 0, `${method} ${path} has responses`);
        assert.ok(!ids.has(op.operationId as string), `operationId ${op.operationId} is unique`);
        ids.add(op.operationId as string);
        for (const name of path.match(/\{[^}]+\}/g) ?? [])
          assert.ok(
            (op.parameters as Json[]).some((p) => p.in === 'path' && `{${p.name}}` === name),
            `${method} ${path} declares ${name}`,
          );
      }
    }
    // Every $ref points at something in the document.
    for (const ref of JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? []) {
      const parts = ref.slice(8, -1).replace(/^#\//, '').split('/');
      let at: unknown = doc;
      for (const part of parts) at = (at as Json)[part];
      assert.ok(at, ref);
    }
    assert.deepEqual(doc.components['x-error-statuses'], httpStatusTable());
    assert.deepEqual((doc.components.schemas.ErrorBody as { required: string[] }).required.sort(), [
      'error',
      'message',
    ]);
    assert.deepEqual(doc.components.securitySchemes.bearer, {
      type: 'http',
      scheme: 'bearer',
      description: 'an API key (`keel keys create`)',
    });
  });
});
