/**
 * What the operator console asks of the Keel API, on both stores (in-memory SQLite, and a scratch
 * PostgreSQL schema of KEEL_TEST_DATABASE_URL): pause and resume (a run paused mid-walk completes
 * once resumed), run list filters by version and creation time paged with a cursor, counts by
 * status (one tenant's only), approvals listed with their workflow, version, cost and why they
 * wait, and an approval decided twice naming whose decision stands. Another tenant's key gets a
 * missing run's answer and empty counts.
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
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const MISSING = `sha256:${'0'.repeat(64)}`;

const spec = (id: string, trigger: string, steps: string, maxCostUsd = 0) => `id: ${id}
version: 1
status: LIVE
triggers: [{event: ${trigger}}]
steps:
${steps}
limits: {maxSteps: 3, maxCostUsd: ${maxCostUsd}}
`;

const POLICY = `default: allow
rules:
  - { id: big-refunds, match: { tool: refund }, when: args.amount_usd > 20, outcome: require_approval, reason: refunds over $20 need a lead }
`;

interface Backend {
  readonly name: string;
  readonly store?: () => Promise<Store>;
  readonly cleanup?: () => Promise<void>;
}

const url = testDatabaseUrl();
const schema = scratchSchemaName('keel_test_console');
const BACKENDS: readonly Backend[] = [
  { name: 'SQLite' },
  { name: 'PostgreSQL', store: () => openScratchStore(url, schema), cleanup: () => dropSchema(url, schema) },
];

for (const backend of BACKENDS) {
  describe(`console routes on ${backend.name}`, () => {
    let release: () => void = () => {};
    let gate: Promise<void> = Promise.resolve();
    const slow = spyTool('slow', {
      handler: async () => {
        await gate;
        return { slow: true };
      },
    });
    const noop = spyTool('noop');
    const wipe = spyTool('wipe', { destructive: true });
    const refund = spyTool('refund', {
      args: { type: 'object', properties: { amount_usd: { type: 'number' } }, required: ['amount_usd'] },
      cost: { fromArg: 'amount_usd' },
    });
    const sources = fakeSources({ start: Date.UTC(2026, 0, 31, 12) });
    const t = inProcessServer({
      ...(backend.store ? { store: backend.store } : {}),
      ...(backend.cleanup ? { cleanup: backend.cleanup } : {}),
      tools: [slow, noop, wipe, refund],
      sources,
      policies: { acme: parsePolicy(POLICY, 'policy.yaml') },
    });
    const api = t.api;
    const run = (id: string, tail = '') => `/api/runs/${id}${tail}`;
    let n = 0;
    const event = (type: string) => ({ id: `evt-${++n}`, type, time: '2026-01-31T12:00:00Z', payload: {} });
    let erin: string;

    before(async () => {
      erin = (await t.keel.keys.create('acme', 'erin', 'human')).key;
      await deploy(
        t.keel,
        'acme',
        spec('hold', 'hold', '  - {name: a, tool: slow}\n  - {name: b, tool: noop}'),
      );
      await deploy(t.keel, 'acme', spec('gated', 'ship', '  - {name: gate, tool: core.approvalGate}'));
      await deploy(t.keel, 'acme', spec('wipe', 'wipe', '  - {name: wipe, tool: wipe}'));
      await deploy(
        t.keel,
        'acme',
        spec('refunds', 'refund', '  - {name: pay, tool: refund, args: {amount_usd: 42}}', 100),
      );
      const plain = spec('plain', 'never', '  - {name: a, tool: noop}');
      await deploy(t.keel, 'acme', plain);
      await deploy(t.keel, 'acme', plain.replace('version: 1', 'version: 2'));
    });

    async function emit(type: string): Promise<string> {
      const r = await api('POST', '/api/events', { body: event(type) });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const [only] = r.body.runs as Json[];
      return only!.runId as string;
    }

    async function status(id: string): Promise<string> {
      await t.server.host.drain();
      const r = await api('GET', run(id));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.status as string;
    }

    test('pause holds a run mid-walk; resume walks it on to completion; both as the key’s subject', async () => {
      gate = new Promise<void>((r) => (release = r));
      const id = await emit('hold');
      for (let i = 0; slow.calls.length === 0; i++) {
        if (i === 400) assert.fail(`slow was never called: ${await status(id)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const pausing = api('POST', run(id, '/pause'), { body: { reason: 'check the order first' } });
      // Time for the pause to reach the walk (as in engine/pause.test.ts), then the step in
      // progress finishes and the run stops at the boundary. The pause reads and verifies the run
      // first (on PostgreSQL, under a loaded suite, 100 ms was once not enough): nothing observable
      // marks its arrival at the walk, so the wait is generous.
      await new Promise((r) => setTimeout(r, 1000));
      release();
      const paused = await pausing;
      assert.equal(paused.status, 200, JSON.stringify(paused.body));
      assert.deepEqual(paused.body, {
        runId: id,
        tenant: 'acme',
        workflowId: 'hold',
        version: 1,
        status: 'paused',
      });
      assert.equal(await status(id), 'paused');
      assert.equal(noop.calls.length, 0, 'no step starts while paused');

      // Another tenant's key: exactly a missing run's answer, and the run stays paused.
      for (const tail of ['/pause', '/resume']) {
        const theirs = await api('POST', run(id, tail), { key: t.globex, body: {} });
        const missing = await api('POST', run(MISSING, tail), { key: t.globex, body: {} });
        assert.equal(theirs.status, 404, JSON.stringify(theirs.body));
        assert.deepEqual(JSON.parse(JSON.stringify(theirs.body).replaceAll(id, MISSING)), missing.body);
      }
      assert.equal(await status(id), 'paused');

      const again = await api('POST', run(id, '/pause'), { body: {} });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.error, 'run_state');
      assert.equal((again.body.details as Json).status, 'paused');

      const resumed = await api('POST', run(id, '/resume'));
      assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
      assert.equal(resumed.body.status, 'running');
      assert.equal(await status(id), 'completed');
      assert.equal(noop.calls.length, 1);
      const entries = (await api('GET', run(id, '/entries'))).body.entries as Json[];
      const payload = (kind: string) => entries.find((e) => e.kind === kind)?.payload as Json | undefined;
      assert.deepEqual(
        { by: payload('run.paused')?.by, reason: payload('run.paused')?.reason },
        { by: 'dana', reason: 'check the order first' },
      );
      assert.equal(payload('run.resumed')?.by, 'dana');
      const kinds = entries.map((e) => e.kind);
      assert.equal(kinds.indexOf('run.resumed'), kinds.indexOf('run.paused') + 1);
      assert.equal((await api('POST', run(id, '/verify'))).body.ok, true);

      const done = await api('POST', run(id, '/resume'), { body: {} });
      assert.equal(done.status, 409);
      assert.equal(done.body.error, 'run_terminal');
      const unknownField = await api('POST', run(id, '/resume'), { body: { reason: 'x' } });
      assert.equal(unknownField.status, 400);
      assert.equal((unknownField.body.details as Json).field, 'reason');
    });

    test('a run waiting for an approval is neither paused nor resumed (run_state)', async () => {
      const id = await emit('ship');
      assert.equal(await status(id), 'waiting_approval');
      for (const tail of ['/pause', '/resume']) {
        const r = await api('POST', run(id, tail), { body: {} });
        assert.equal(r.status, 409, `${tail}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error, 'run_state');
        assert.equal((r.body.details as Json).status, 'waiting_approval');
      }
    });

    test('approvals name their workflow, version, cost, and why they wait (policy rule, destructive, gate)', async () => {
      const byPolicy = await emit('refund');
      const destructive = await emit('wipe');
      const gated = await emit('ship');
      await t.server.host.drain();
      const item = async (id: string) => {
        const r = await api('GET', `/api/approvals?runId=${encodeURIComponent(id)}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const [only, ...rest] = r.body.approvals as Json[];
        assert.equal(rest.length, 0);
        return only!;
      };
      const p = await item(byPolicy);
      assert.equal(typeof p.proposalId, 'string');
      assert.equal(typeof p.requestedAt, 'string');
      assert.deepEqual(
        { ...p, proposalId: '-', requestedAt: '-' },
        {
          tenant: 'acme',
          runId: byPolicy,
          workflowId: 'refunds',
          version: 1,
          step: 'pay',
          tool: 'refund',
          proposalId: '-',
          args: { amount_usd: 42 },
          costCents: 4200,
          reason: 'policy rule big-refunds requires approval for refund: refunds over $20 need a lead',
          channel: 'cli',
          policy: {
            outcome: 'require_approval',
            rule: 'big-refunds',
            trace: [{ rule: 'big-refunds', outcome: 'require_approval' }],
          },
          cause: 'policy',
          requestedAt: '-',
        },
      );
      assert.ok(Number.isFinite(Date.parse(String(p.requestedAt))), 'requestedAt is an instant');
      const d = await item(destructive);
      assert.equal(d.cause, 'destructive');
      assert.equal(d.reason, 'wipe is destructive and this version is LIVE, not AUTONOMOUS');
      assert.equal((d.policy as Json).outcome, 'allow', 'the policy allowed it; the guardrail asks');
      assert.deepEqual([d.workflowId, d.version, d.costCents], ['wipe', 1, 0]);
      const g = await item(gated);
      assert.deepEqual([g.cause, g.workflowId, g.tool], ['gate', 'gated', 'core.approvalGate']);
      const all = (await api('GET', '/api/approvals')).body.approvals as Json[];
      const times = all.map((a) => String(a.requestedAt));
      assert.deepEqual(times, [...times].sort(), 'oldest request first');
      assert.deepEqual((await api('GET', '/api/approvals', { key: t.globex })).body.approvals, []);
    });

    test('an approval decided already names whose decision stands, whoever asks second', async () => {
      const id = await emit('ship');
      await t.server.host.drain();
      const first = await api('POST', run(id, '/approve'), { body: { note: 'customer confirmed' } });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const resolvedAt = ((await api('GET', run(id, '/entries'))).body.entries as Json[]).find(
        (e) => e.kind === 'approval.resolved',
      )?.at;
      for (const decision of ['approve', 'deny']) {
        const second = await api('POST', run(id, `/${decision}`), { key: erin, body: {} });
        assert.equal(second.status, 409, JSON.stringify(second.body));
        assert.equal(second.body.error, 'already_resolved');
        assert.equal(second.body.message, `the approval of run ${id} was already approved by dana`);
        const details = second.body.details as Json;
        assert.equal(typeof details.proposalId, 'string');
        assert.deepEqual(
          { ...details, proposalId: '-' },
          {
            runId: id,
            proposalId: '-',
            decision: 'approved',
            by: 'dana',
            resolvedBy: 'dana',
            resolvedAt,
            note: 'customer confirmed',
          },
        );
      }
      assert.equal(await status(id), 'completed');
    });

    test('list filters: version, since (inclusive), until (exclusive), paged with a cursor', async () => {
      const ids: string[] = [];
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        sources.advance(60_000);
        const r = await api('POST', '/api/workflows/plain/runs', {
          body: { event: event('never'), version: (i % 2) + 1 },
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        ids.push(r.body.runId as string);
      }
      await t.server.host.drain();
      for (const id of ids) created.push((await api('GET', run(id))).body.createdAt as string);
      assert.deepEqual(created, [...created].sort());
      assert.equal(new Set(created).size, 5);

      const pages = async (q: Record<string, string>) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const qs = new URLSearchParams({ ...q, limit: '1', ...(cursor ? { cursor } : {}) });
          const r = await api('GET', `/api/runs?${qs}`);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          seen.push(...(r.body.runs as Json[]).map((x) => x.runId as string));
          cursor = r.body.next as string | undefined;
        } while (cursor);
        return seen;
      };
      const at = (i: number) => created[i]!;
      const pick = (...i: number[]) => i.map((k) => ids[k]!);
      assert.deepEqual(await pages({ workflowId: 'plain', since: at(1), until: at(4) }), pick(3, 2, 1));
      assert.deepEqual(await pages({ workflowId: 'plain', version: '2' }), pick(3, 1));
      assert.deepEqual(await pages({ workflowId: 'plain', version: '1', since: at(2) }), pick(4, 2));
      // The same instant in another zone, and a finer fraction past it (rounds up to the next ms).
      const ms = Date.parse(at(1));
      const plusOne = `${new Date(ms + 3_600_000).toISOString().slice(0, 23)}+01:00`;
      assert.deepEqual(await pages({ workflowId: 'plain', since: plusOne, until: at(3) }), pick(2, 1));
      const finer = `${at(1).slice(0, 23)}0001Z`;
      assert.deepEqual(await pages({ workflowId: 'plain', since: finer, until: at(3) }), pick(2));
      // version alone: that version of every workflow (plain is the only one with a v2 here).
      assert.deepEqual(await pages({ version: '2' }), pick(3, 1));
      assert.deepEqual(await pages({ workflowId: 'plain', until: at(0) }), []);

      // Another tenant sees none of them, filters or not.
      const theirs = await api('GET', `/api/runs?workflowId=plain&since=${encodeURIComponent(at(0))}`, {
        key: t.globex,
      });
      assert.deepEqual(theirs.body.runs, []);

      for (const [field, value] of [
        ['since', 'yesterday'],
        ['until', '2026-01-31'],
        ['since', '2026-01-31T12:00:00'],
        ['since', '2026-04-31T12:00:00Z'],
        ['until', '2026-01-31T12:00:00-24:00'],
        ['version', '0'],
        ['version', '2147483648'],
        ['version', 'two'],
      ] as const) {
        const r = await api('GET', `/api/runs?${new URLSearchParams({ [field]: value })}`);
        assert.equal(r.status, 400, `${field}=${value}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error, 'validation_error');
        assert.equal((r.body.details as Json).field, field);
        assert.match(String(r.body.message), new RegExp(`^${field}: `));
      }
    });

    test('counts by status for the caller’s tenant only; /api/runs/counts is not a run id', async () => {
      const r = await api('GET', '/api/runs/counts');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const counts = r.body.counts as Record<string, number>;
      assert.deepEqual(Object.keys(counts).sort(), [
        'cancelled',
        'completed',
        'failed',
        'outcome_unknown',
        'paused',
        'refused',
        'running',
        'waiting',
        'waiting_approval',
      ]);
      // The total is every run the list pages through.
      let listed = 0;
      for (let cursor: string | undefined, first = true; first || cursor; first = false) {
        const page = await api('GET', `/api/runs?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        listed += (page.body.runs as Json[]).length;
        cursor = page.body.next as string | undefined;
      }
      assert.equal(r.body.total, listed);
      assert.equal(
        r.body.total,
        Object.values(counts).reduce((a, b) => a + b, 0),
      );
      assert.ok(counts.waiting_approval! >= 3 && counts.completed! >= 7, JSON.stringify(counts));

      const plain = await api('GET', '/api/runs/counts?workflowId=plain');
      assert.equal(plain.body.total, 5);
      assert.equal((plain.body.counts as Json).completed, 5);
      const v2 = await api('GET', '/api/runs/counts?workflowId=plain&version=2');
      assert.equal(v2.body.total, 2);
      const gated = await api('GET', '/api/runs/counts?workflowId=gated');
      assert.deepEqual(
        [(gated.body.counts as Json).waiting_approval, (gated.body.counts as Json).completed],
        [2, 1],
      );
      const none = await api('GET', '/api/runs/counts?since=2999-01-01T00:00:00Z');
      assert.equal(none.body.total, 0);

      const theirs = await api('GET', '/api/runs/counts', { key: t.globex });
      assert.equal(theirs.status, 200);
      assert.equal(theirs.body.total, 0);
      assert.ok(Object.values(theirs.body.counts as Json).every((c) => c === 0));

      const bad = await api('GET', '/api/runs/counts?since=noon');
      assert.equal(bad.status, 400);
      assert.equal((bad.body.details as Json).field, 'since');
      // A run id that is not one is still refused as such; `counts` is a route of its own.
      const notRun = await api('GET', '/api/runs/count');
      assert.equal(notRun.status, 400);
      assert.equal((notRun.body.details as Json).field, 'runId');
    });

    test('the new routes are in the OpenAPI document with their query parameters', async () => {
      const doc = (await api('GET', '/openapi.json', { key: null })).body as {
        paths: Record<string, Record<string, { operationId: string; parameters?: Json[] }>>;
      };
      assert.equal(doc.paths['/api/runs/counts']?.get?.operationId, 'countRuns');
      assert.equal(doc.paths['/api/runs/{runId}/pause']?.post?.operationId, 'pauseRun');
      assert.equal(doc.paths['/api/runs/{runId}/resume']?.post?.operationId, 'resumeRun');
      const names = (doc.paths['/api/runs']?.get?.parameters ?? []).map((p) => p.name);
      for (const q of ['status', 'workflowId', 'version', 'since', 'until', 'limit', 'cursor'])
        assert.ok(names.includes(q), q);
    });
  });
}
