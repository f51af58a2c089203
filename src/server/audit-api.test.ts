/**
 * The audit query over HTTP, on both stores (in-memory SQLite, and a scratch PostgreSQL schema of
 * KEEL_TEST_DATABASE_URL): `GET /api/audit` lists ledger entries across the key's tenant's runs in
 * (at, runId, seq) order, filtered exactly by run, workflow, kind, actor, code and time, paged with
 * a cursor; `GET /api/audit/counts` counts them by kind. Actors come from real decisions (an
 * approval, a pause and resume, a cancellation), codes from a policy's refusal. Another tenant's
 * entries never appear, not even by its run id, and every bad filter is 400 naming its field.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { inProcessServer, type Json } from '../../test/helpers/in-process-server.ts';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../adapters/postgres/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy, fakeSources } from '../testing/index.ts';

const spec = (id: string, trigger: string, steps: string) => `id: ${id}
version: 1
status: LIVE
triggers: [{event: ${trigger}}]
steps:
${steps}
limits: {maxSteps: 3, maxCostUsd: 0}
`;

const POLICY = `default: allow
rules:
  - { id: no-wipes, match: { tool: core.noop }, when: args.wipe == true, outcome: deny, reason: wiping is not allowed }
`;

interface Backend {
  readonly name: string;
  readonly store?: () => Promise<Store>;
  readonly cleanup?: () => Promise<void>;
}

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_audit');
const BACKENDS: readonly Backend[] = [
  { name: 'SQLite' },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema), cleanup: () => dropSchema(url, schema) },
];

type Item = {
  runId: string;
  workflowId: string;
  version: number;
  kind: string;
  seq: number;
  at: string;
  prevHash: string | null;
  payloadHash: string;
  hash: string;
  payload: Json;
};

for (const backend of BACKENDS) {
  describe(`audit routes on ${backend.name}`, () => {
    const sources = fakeSources({ start: Date.UTC(2026, 2, 1, 9) });
    const t = inProcessServer({
      ...(backend.store ? { store: backend.store } : {}),
      ...(backend.cleanup ? { cleanup: backend.cleanup } : {}),
      sources,
      policies: { acme: parsePolicy(POLICY, 'policy.yaml') },
    });
    const api = t.api;
    let n = 0;
    const event = (type: string) => ({ id: `evt-${++n}`, type, time: '2026-03-01T09:00:00Z', payload: {} });
    const runs = {} as {
      approved: string;
      cancelled: string;
      refused: string;
      paused: string;
      theirs: string;
    };

    async function emit(type: string, key = t.acme): Promise<string> {
      sources.advance(1000);
      const r = await api('POST', '/api/events', { body: event(type), key });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      await t.server.host.drain();
      return (r.body.runs as Json[])[0]!.runId as string;
    }

    async function all(q: Record<string, string> = {}, limit = 500, key = t.acme): Promise<Item[]> {
      const seen: Item[] = [];
      let cursor: string | undefined;
      do {
        const qs = new URLSearchParams({ ...q, limit: String(limit), ...(cursor ? { cursor } : {}) });
        const r = await api('GET', `/api/audit?${qs}`, { key });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const page = r.body.entries as Item[];
        assert.ok(page.length <= limit);
        seen.push(...page);
        cursor = r.body.next as string | undefined;
      } while (cursor);
      return seen;
    }
    const keys = (items: readonly Item[]) => items.map((e) => `${e.runId}#${e.seq}`);

    before(async () => {
      for (const tenant of ['acme', 'globex'])
        await deploy(t.keel, tenant, spec('gated', 'ship', '  - {name: gate, tool: core.approvalGate}'));
      await deploy(
        t.keel,
        'acme',
        spec('wipes', 'wipe', '  - {name: wipe, tool: core.noop, args: {wipe: true}}'),
      );
      await deploy(t.keel, 'acme', spec('plain', 'plain', '  - {name: a, tool: core.noop}'));

      runs.approved = await emit('ship');
      sources.advance(1000);
      const approved = await api('POST', `/api/runs/${runs.approved}/approve`, { body: { note: 'ok' } });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      await t.server.host.drain();

      runs.cancelled = await emit('ship');
      sources.advance(1000);
      const cancelled = await api('POST', `/api/runs/${runs.cancelled}/cancel`, {
        body: { reason: 'duplicate' },
      });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

      runs.refused = await emit('wipe');

      // Paused and resumed by erin, through the library: held before its first step, then walked.
      sources.advance(1000);
      const started = await t.keel.runs.start('acme', 'plain', event('plain'), { walk: 'enqueue' });
      runs.paused = started.runId;
      await t.keel.runs.pause('acme', runs.paused, { by: 'erin' });
      await t.keel.runs.resume('acme', runs.paused, { by: 'erin' });

      runs.theirs = await emit('ship', t.globex);
      const theirs = await api('POST', `/api/runs/${runs.theirs}/approve`, { key: t.globex, body: {} });
      assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
      await t.server.host.drain();
    });

    test('every entry of the tenant’s runs, in (at, runId, seq) order, as each run’s ledger holds it', async () => {
      const items = await all();
      const sorted = [...items].sort((a, b) =>
        a.at !== b.at
          ? a.at < b.at
            ? -1
            : 1
          : a.runId !== b.runId
            ? a.runId < b.runId
              ? -1
              : 1
            : a.seq - b.seq,
      );
      assert.deepEqual(keys(items), keys(sorted));
      const mine = Object.values(runs).filter((id) => id !== runs.theirs);
      assert.deepEqual(new Set(items.map((e) => e.runId)), new Set(mine));
      for (const id of mine) {
        const ledger = (await api('GET', `/api/runs/${id}/entries`)).body.entries as Json[];
        const listed = items.filter((e) => e.runId === id);
        assert.deepEqual(
          listed.map(({ workflowId: _w, version: _v, ...rest }) => rest),
          ledger.map(({ v: _v, ...rest }) => rest),
          `run ${id}`,
        );
        assert.ok(listed.every((e) => e.version === 1 && typeof e.workflowId === 'string'));
      }
      // The same through pages of 2, each entry once.
      assert.deepEqual(keys(await all({}, 2)), keys(items));
    });

    test('filters: actor names who acted (approval, approvedBy, cancellation, pause, resume), code and kind the refusal', async () => {
      const dana = await all({ actor: 'dana' });
      assert.deepEqual(
        dana.map((e) => [e.runId, e.kind]),
        [
          [runs.approved, 'approval.resolved'],
          [runs.approved, 'step.allowed'],
          [runs.cancelled, 'run.finished'],
        ],
      );
      assert.equal(dana[0]!.payload.by, 'dana');
      assert.equal(dana[1]!.payload.approvedBy, 'dana');
      assert.equal(dana[2]!.payload.reason, 'cancelled by dana: duplicate');
      assert.deepEqual(
        (await all({ actor: 'erin' })).map((e) => e.kind),
        ['run.paused', 'run.resumed'],
      );
      assert.deepEqual(await all({ actor: 'dan' }), [], 'exact, not a prefix');
      assert.deepEqual(await all({ actor: 'eve' }), [], 'another tenant’s approver acted elsewhere');

      const refusals = await all({ kind: 'step.refused', code: 'policy_denied' });
      assert.equal(refusals.length, 1);
      assert.equal(refusals[0]!.runId, runs.refused);
      assert.equal(refusals[0]!.workflowId, 'wipes');
      assert.deepEqual(await all({ code: 'policy_denied', workflowId: 'gated' }), []);

      const byRun = await all({ runId: runs.approved });
      assert.deepEqual(
        byRun.map((e) => e.seq),
        byRun.map((_, i) => i),
      );
      assert.equal((await all({ workflowId: 'gated' })).filter((e) => e.kind === 'run.started').length, 2);
      assert.equal((await all({ runId: runs.approved, kind: 'run.started' })).length, 1);
    });

    test('since is inclusive and until exclusive on the entry’s time, in any zone', async () => {
      const items = await all();
      const at = (i: number) => items[i]!.at;
      const between = keys(items.filter((e) => e.at >= at(3) && e.at < at(6)));
      assert.ok(between.length > 0 && between.length < items.length);
      assert.deepEqual(keys(await all({ since: at(3), until: at(6) })), between);
      const ms = Date.parse(at(3));
      const inParis = `${new Date(ms + 3_600_000).toISOString().slice(0, 23)}+01:00`;
      assert.deepEqual(keys(await all({ since: inParis, until: at(6) })), between);
      assert.deepEqual(keys(await all({ until: at(0) })), []);
    });

    test('counts by kind: every kind, the same filters, the key’s tenant only', async () => {
      const items = await all();
      const r = await api('GET', '/api/audit/counts');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const counts = r.body.counts as Record<string, number>;
      assert.equal(r.body.total, items.length);
      for (const kind of ['run.started', 'step.allowed', 'approval.resolved', 'run.finished', 'step.refused'])
        assert.equal(counts[kind], items.filter((e) => e.kind === kind).length, kind);
      assert.equal(counts['step.reconciled'], 0, 'every kind, 0 where none');
      const dana = await api('GET', '/api/audit/counts?actor=dana');
      assert.equal(dana.body.total, 3);
      assert.deepEqual(
        Object.entries(dana.body.counts as Json).filter(([, v]) => v !== 0),
        [
          ['step.allowed', 1],
          ['approval.resolved', 1],
          ['run.finished', 1],
        ],
      );
      const theirs = await api('GET', '/api/audit/counts', { key: t.globex });
      assert.equal(theirs.body.total, (await all({}, 500, t.globex)).length);
      assert.ok((theirs.body.total as number) > 0);
    });

    test('another tenant’s entries never appear, not even by its run id', async () => {
      assert.deepEqual(await all({ runId: runs.theirs }), []);
      const counts = await api('GET', `/api/audit/counts?runId=${encodeURIComponent(runs.theirs)}`);
      assert.equal(counts.body.total, 0);
      const theirs = await all({}, 500, t.globex);
      assert.deepEqual(new Set(theirs.map((e) => e.runId)), new Set([runs.theirs]));
      assert.deepEqual(
        (await all({ actor: 'eve' }, 500, t.globex)).map((e) => e.kind),
        ['approval.resolved', 'step.allowed'],
      );
      assert.deepEqual(await all({ runId: runs.approved }, 500, t.globex), []);
    });

    test('a bad filter is 400 validation_error naming its field, on both routes', async () => {
      for (const [field, value] of [
        ['kind', 'step.nope'],
        ['runId', 'run-1'],
        ['workflowId', 'Not/A/Workflow'],
        ['actor', ''],
        ['code', ''],
        ['since', 'yesterday'],
        ['until', '2026-03-01'],
        ['since', '2026-02-30T00:00:00Z'],
        ['until', '2026-03-01T23:59:60Z'],
        ['limit', '0'],
        ['limit', '501'],
        ['cursor', 'garbage'],
      ] as const) {
        for (const path of ['/api/audit', '/api/audit/counts']) {
          if (path.endsWith('counts') && (field === 'limit' || field === 'cursor')) continue;
          const r = await api('GET', `${path}?${new URLSearchParams({ [field]: value })}`);
          assert.equal(r.status, 400, `${path} ${field}=${value}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error, 'validation_error');
          assert.equal((r.body.details as Json).field, field, `${path} ${field}=${value}`);
        }
      }
      const noKey = await api('GET', '/api/audit', { key: null });
      assert.equal(noKey.status, 401);
    });

    test('both routes are in the OpenAPI document with their query parameters', async () => {
      const doc = (await api('GET', '/openapi.json', { key: null })).body as {
        paths: Record<string, Record<string, { operationId: string; parameters?: Json[] }>>;
      };
      assert.equal(doc.paths['/api/audit']?.get?.operationId, 'queryAudit');
      assert.equal(doc.paths['/api/audit/counts']?.get?.operationId, 'countAudit');
      const names = (doc.paths['/api/audit']?.get?.parameters ?? []).map((p) => p.name);
      for (const q of ['runId', 'workflowId', 'kind', 'actor', 'code', 'since', 'until', 'limit', 'cursor'])
        assert.ok(names.includes(q), q);
    });
  });
}
