import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { deploy, fakeSources, type SpyTool, setStatus, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-engine-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(dir, `e${n++}.db`);

const refundArgs = {
  type: 'object',
  required: ['ticket_id', 'amount_usd'],
  properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number', exclusiveMinimum: 0 } },
  additionalProperties: false,
};

function deskTools() {
  const reply = spyTool('draft_reply', {
    args: { type: 'object', required: ['ticket_id'], properties: { ticket_id: { type: 'string' } } },
  });
  const refund = spyTool('issue_refund', {
    args: refundArgs,
    destructive: true,
    effect: 'external',
    cost: { fromArg: 'amount_usd' },
  });
  return { reply, refund, all: [reply, refund] as ToolDefinition[] };
}

const REFUND_SPEC = `
id: refund
version: 1
status: DRAFT
triggers:
  - event: refund.requested
    when: payload.currency == "USD"
steps:
  - name: reply
    tool: draft_reply
    args: { ticket_id: "{{event.subject}}" }
  - name: refund
    tool: issue_refund
    args:
      ticket_id: "{{event.subject}}"
      amount_usd: "{{event.payload.refund_amount}}"
limits: { maxSteps: 4, maxCostUsd: 50 }
`;

const event = (id: string, payload: Record<string, unknown>, subject = 'T-1') => ({
  id,
  type: 'refund.requested',
  source: 'test',
  subject,
  time: '2026-01-01T00:00:00Z',
  payload: { currency: 'USD', ...payload },
});

async function setup(status: 'LIVE' | 'AUTONOMOUS', path = freshPath(), tools = deskTools()) {
  const keel = createKeel({ store: path, tools: tools.all, sources: fakeSources() });
  await keel.workflows.publish('t1', REFUND_SPEC, 'refund.yaml', 'alice');
  // These tests need a version at `status`, not the evidence of its gates: put it there directly.
  await setStatus(keel, 't1', 'refund', 1, status, 'alice');
  return { keel, tools, path };
}

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;

describe('engine: checks before anything runs', () => {
  test('a refund within the cap completes; emitting the same event again returns the same run and calls nothing', async () => {
    const { keel, tools } = await setup('AUTONOMOUS');
    const first = await keel.events.emit('t1', event('e1', { refund_amount: 30 }));
    assert.equal(first.runs.length, 1);
    assert.equal(first.runs[0]!.status, 'completed');
    const again = await keel.events.emit('t1', event('e1', { refund_amount: 30 }));
    assert.equal(again.runs[0]!.runId, first.runs[0]!.runId);
    assert.equal(again.runs[0]!.created, false);
    assert.equal(tools.refund.calls.length, 1);
    assert.equal(tools.reply.calls.length, 1);
    const entries = await keel.runs.entries('t1', first.runs[0]!.runId);
    assert.deepEqual(kinds(entries), [
      'run.started',
      'step.allowed',
      'step.completed',
      'step.allowed',
      'step.completed',
      'run.finished',
    ]);
    assert.equal((entries[3]!.payload as { costCents: number }).costCents, 3000);
    assert.equal((await keel.runs.verify('t1', first.runs[0]!.runId)).ok, true);
    await keel.close();
  });

  test('the spend cap refuses before the tool is called, and says why', async () => {
    const { keel, tools } = await setup('AUTONOMOUS');
    const r = await keel.events.emit('t1', event('e2', { refund_amount: 500 }));
    assert.equal(r.runs[0]!.status, 'refused');
    assert.equal(tools.refund.calls.length, 0);
    const history = await keel.runs.history('t1', r.runs[0]!.runId);
    assert.ok(
      history.some((h) => h.text === 'Refused issue_refund: amount_usd 500 exceeds the spend cap of 50.'),
    );
    await keel.close();
  });

  test('a missing argument is refused by validation and the tool is never called', async () => {
    const { keel, tools } = await setup('AUTONOMOUS');
    const r = await keel.events.emit('t1', event('e3', {}));
    assert.equal(r.runs[0]!.status, 'refused');
    assert.equal(tools.refund.calls.length, 0);
    const refused = (await keel.runs.entries('t1', r.runs[0]!.runId)).find((e) => e.kind === 'step.refused')!;
    const p = payloadOf(refused, 'step.refused');
    assert.equal(p.check, 'validate');
    assert.deepEqual(
      (p.problems as { field: string; problem: string }[]).map((x) => [x.field, x.problem]),
      [['amount_usd', 'missing']],
    );
    await keel.close();
  });

  test('a type mismatch is reported with field, expected and got', async () => {
    const { keel, tools } = await setup('AUTONOMOUS');
    const r = await keel.events.emit('t1', event('e4', { refund_amount: 'thirty' }));
    assert.equal(tools.refund.calls.length, 0);
    const refused = (await keel.runs.entries('t1', r.runs[0]!.runId)).find((e) => e.kind === 'step.refused')!;
    assert.deepEqual(payloadOf(refused, 'step.refused').problems, [
      { field: 'amount_usd', problem: 'type_mismatch', expected: 'number', got: 'string "thirty"' },
    ]);
    await keel.close();
  });

  test('events route only to LIVE or AUTONOMOUS versions whose trigger matches', async () => {
    const tools = deskTools();
    const keel = createKeel({ store: freshPath(), tools: tools.all, sources: fakeSources() });
    await keel.workflows.publish('t1', REFUND_SPEC, 'refund.yaml', 'alice');
    assert.equal(
      (await keel.events.emit('t1', event('d1', { refund_amount: 1 }))).runs.length,
      0,
      'DRAFT is not routed',
    );
    await setStatus(keel, 't1', 'refund', 1, 'LIVE', 'alice');
    const eur = { ...event('d2', { refund_amount: 1 }), payload: { refund_amount: 1, currency: 'EUR' } };
    assert.equal((await keel.events.emit('t1', eur)).runs.length, 0, 'condition false');
    assert.equal(
      (await keel.events.emit('t1', { ...event('d3', {}), type: 'other' })).runs.length,
      0,
      'other type',
    );
    assert.equal(
      (await keel.events.emit('t2', event('d4', { refund_amount: 1 }))).runs.length,
      0,
      'other tenant',
    );
    assert.equal(tools.reply.calls.length, 0);
    await keel.close();
  });

  test('a spec whose maxSteps is below its step count is refused at publish', async () => {
    const keel = createKeel({ store: freshPath(), tools: [spyTool('noop')], sources: fakeSources() });
    await assert.rejects(
      keel.workflows.publish(
        't1',
        `id: many\nversion: 1\nstatus: DRAFT\ntriggers: [{event: go}]\nsteps:\n  - {name: a, tool: noop}\n  - {name: b, tool: noop}\n  - {name: c, tool: noop}\nlimits: {maxSteps: 2, maxCostUsd: 0}\n`,
        'many.yaml',
        'alice',
      ),
      (e: unknown) =>
        isCode('spec_invalid')(e) && /many\.yaml:9:\d+: limits\.maxSteps/.test((e as Error).message),
    );
    assert.deepEqual(await keel.workflows.list('t1'), []);
    await keel.close();
  });
});

describe('engine: approvals', () => {
  test('a destructive tool on a LIVE version waits; the approval survives a restart and executes once', async () => {
    const path = freshPath();
    const { keel, tools } = await setup('LIVE', path);
    const r = await keel.events.emit('t1', event('a1', { refund_amount: 20 }));
    const runId = r.runs[0]!.runId;
    assert.equal(r.runs[0]!.status, 'waiting_approval');
    assert.equal(tools.refund.calls.length, 0);
    await keel.close();

    // A new process: nothing in memory, only the store.
    const tools2 = deskTools();
    const keel2 = createKeel({
      store: path,
      tools: tools2.all,
      sources: fakeSources({ start: Date.UTC(2026, 1, 1) }),
    });
    const pending = await keel2.approvals.list('t1');
    assert.equal(pending.length, 1);
    assert.equal(pending[0]!.tool, 'issue_refund');
    assert.deepEqual(pending[0]!.args, { ticket_id: 'T-1', amount_usd: 20 });
    const done = await keel2.approvals.approve('t1', runId, 'dana');
    assert.equal(done.status, 'completed');
    assert.equal(tools2.refund.calls.length, 1);
    assert.deepEqual(tools2.refund.calls[0]!.args, { ticket_id: 'T-1', amount_usd: 20 });
    assert.deepEqual(await keel2.approvals.list('t1'), []);
    await assert.rejects(keel2.approvals.approve('t1', runId, 'erin'), isCode('already_resolved'));
    await assert.rejects(keel2.approvals.deny('t1', runId, 'erin'), isCode('already_resolved'));
    assert.equal(tools2.refund.calls.length, 1);
    const entries = await keel2.runs.entries('t1', runId);
    const allowed = entries.filter((e) => e.kind === 'step.allowed').at(-1)!;
    assert.equal((allowed.payload as { approvedBy?: string }).approvedBy, 'dana');
    assert.equal((await keel2.runs.verify('t1', runId)).ok, true);
    await keel2.close();
  });

  test('a denial stops the run without calling the tool; approving afterwards is already_resolved', async () => {
    const { keel, tools } = await setup('LIVE');
    const runId = (await keel.events.emit('t1', event('a2', { refund_amount: 20 }))).runs[0]!.runId;
    const denied = await keel.approvals.deny('t1', runId, 'dana', 'not eligible');
    assert.equal(denied.status, 'refused');
    await assert.rejects(keel.approvals.approve('t1', runId, 'dana'), isCode('already_resolved'));
    assert.equal(tools.refund.calls.length, 0);
    const history = await keel.runs.history('t1', runId);
    assert.ok(history.some((h) => h.text === 'dana denied the proposal: not eligible.'));
    await keel.close();
  });

  test('two approvers at once: exactly one decision is recorded and the tool runs once', async () => {
    const path = freshPath();
    const { keel, tools } = await setup('LIVE', path);
    const runId = (await keel.events.emit('t1', event('a3', { refund_amount: 20 }))).runs[0]!.runId;
    const other = createKeel({ store: path, tools: tools.all, sources: fakeSources() });
    const results = await Promise.allSettled([
      keel.approvals.approve('t1', runId, 'dana'),
      other.approvals.approve('t1', runId, 'erin'),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(isCode('already_resolved')(rejected.reason));
    assert.equal(tools.refund.calls.length, 1);
    const resolved = (await keel.runs.entries('t1', runId)).filter((e) => e.kind === 'approval.resolved');
    assert.equal(resolved.length, 1);
    await other.close();
    await keel.close();
  });

  test('approving a run that waits for nothing, or of another tenant, is refused', async () => {
    const { keel } = await setup('AUTONOMOUS');
    const runId = (await keel.events.emit('t1', event('a4', { refund_amount: 5 }))).runs[0]!.runId;
    await assert.rejects(keel.approvals.approve('t1', runId, 'dana'), isCode('run_state'));
    await assert.rejects(keel.approvals.approve('t2', runId, 'dana'), isCode('not_found'));
    await assert.rejects(keel.runs.verify('t2', runId), isCode('not_found'));
    await assert.rejects(keel.runs.history('t2', runId), isCode('not_found'));
    await keel.close();
  });

  test('a waiting run stays pinned to its version after a new version is published', async () => {
    const { keel, tools } = await setup('LIVE');
    const runId = (await keel.events.emit('t1', event('a5', { refund_amount: 20 }))).runs[0]!.runId;
    await keel.workflows.publish(
      't1',
      REFUND_SPEC.replace('version: 1', 'version: 2').replace('maxCostUsd: 50', 'maxCostUsd: 10'),
      'refund.yaml',
      'alice',
    );
    // v2 takes the traffic as a promotion to LIVE would: v2 LIVE, v1 stepped back to DRAFT.
    await setStatus(keel, 't1', 'refund', 2, 'LIVE', 'alice');
    await setStatus(keel, 't1', 'refund', 1, 'DRAFT', 'alice');
    const done = await keel.approvals.approve('t1', runId, 'dana');
    assert.equal(done.status, 'completed', 'v1 cap of 50 applies, not v2 cap of 10');
    assert.equal(tools.refund.calls.length, 1);
    await keel.close();
  });
});

describe('engine: sources, templates and failures', () => {
  test('every source value is ledgered before the step that uses it', async () => {
    const echo = spyTool('echo');
    const sources = fakeSources({ env: { REGION: 'eu-west', SECRET_TOKEN: 'nope' } });
    const keel = createKeel({ store: freshPath(), tools: [echo], sources, exposeEnv: { t1: ['REGION'] } });
    await deploy(
      keel,
      't1',
      [
        'id: sources',
        'version: 1',
        'status: AUTONOMOUS',
        'env: [REGION]',
        'triggers: [{event: go}]',
        'steps:',
        '  - name: a',
        '    tool: echo',
        '    args: { at: "{{clock.now}}", id: "{{id.new}}", r: "{{random.float}}", region: "{{env.REGION}}", note: "from {{env.REGION}}" }',
        '  - name: b',
        '    tool: echo',
        '    args: { previous: "{{steps.a.output.echo}}", region: "{{steps.a.output.echo.region}}" }',
        'limits: {maxSteps: 2, maxCostUsd: 0}',
      ].join('\n'),
    );
    const r = await keel.events.emit('t1', {
      id: 's',
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    assert.equal(r.runs[0]!.status, 'completed');
    const entries = await keel.runs.entries('t1', r.runs[0]!.runId);
    const drawn = entries
      .filter((e) => e.kind === 'source.drawn')
      .map((e) => e.payload as { source: string; value: unknown });
    // Drawn in canonical (sorted) key order: at, id, note, r, region — independent of how the YAML is laid out.
    assert.deepEqual(
      drawn.map((d) => d.source),
      ['clock', 'id', 'env', 'random', 'env'],
    );
    const firstAllowed = entries.findIndex((e) => e.kind === 'step.allowed');
    assert.ok(entries.findLastIndex((e) => e.kind === 'source.drawn') < firstAllowed);
    const args = echo.calls[0]!.args;
    assert.equal(args.at, drawn[0]!.value);
    assert.equal(args.id, drawn[1]!.value);
    assert.equal(args.r, drawn[3]!.value);
    assert.equal(typeof args.r, 'number');
    assert.equal(args.region, 'eu-west');
    assert.equal(args.note, 'from eu-west');
    // A whole-value template keeps the type of a previous step's output.
    assert.deepEqual(echo.calls[1]!.args.previous, args);
    assert.equal(echo.calls[1]!.args.region, 'eu-west');
    await keel.close();
  });

  test('a tool that throws fails the run with its message, and the ledger still verifies', async () => {
    const boom = spyTool('boom', {
      handler: () => {
        throw Object.assign(new Error('upstream said no'), { code: 'upstream_503' });
      },
    });
    const keel = createKeel({ store: freshPath(), tools: [boom], sources: fakeSources() });
    await deploy(
      keel,
      't1',
      'id: b\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: a, tool: boom}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    const r = await keel.events.emit('t1', {
      id: 'b',
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    assert.equal(r.runs[0]!.status, 'failed');
    const failed = (await keel.runs.entries('t1', r.runs[0]!.runId)).find((e) => e.kind === 'step.failed')!;
    assert.deepEqual((failed.payload as { error: unknown }).error, {
      code: 'upstream_503',
      message: 'upstream said no',
    });
    assert.equal((await keel.runs.verify('t1', r.runs[0]!.runId)).ok, true);
    await keel.close();
  });

  test('a tool returning a value with no canonical form fails the step instead of corrupting the ledger', async () => {
    const nan = spyTool('nan', { handler: () => ({ x: Number.NaN }) });
    const keel = createKeel({ store: freshPath(), tools: [nan], sources: fakeSources() });
    await deploy(
      keel,
      't1',
      'id: n\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: a, tool: nan}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    const r = await keel.events.emit('t1', {
      id: 'n',
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    assert.equal(r.runs[0]!.status, 'failed');
    assert.equal((await keel.runs.verify('t1', r.runs[0]!.runId)).ok, true);
    await keel.close();
  });

  test('an allow decision for a writing tool is durable before the tool runs', async () => {
    const path = freshPath();
    let seenDuringCall: string[] = [];
    const keelRef: { k?: ReturnType<typeof createKeel> } = {};
    const probe: SpyTool = spyTool('probe', {
      handler: async (_a, ctx) => {
        // A second handle on the same file sees only what was committed.
        const observer = createKeel({ store: path, tools: [], sources: fakeSources() });
        seenDuringCall = (await observer.runs.entries('t1', ctx.runId)).map((e) => e.kind);
        await observer.close();
        return 1;
      },
    });
    keelRef.k = createKeel({ store: path, tools: [probe], sources: fakeSources() });
    await deploy(
      keelRef.k,
      't1',
      'id: p\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: a, tool: probe}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    await keelRef.k.events.emit('t1', { id: 'p', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
    assert.deepEqual(seenDuringCall, ['run.started', 'step.allowed']);
    await keelRef.k.close();
  });

  test('the durability rule: later idempotent steps run on a reproducible batch; a non-idempotent one waits for a commit', async () => {
    const path = freshPath();
    const seen: Record<string, string[]> = {};
    const observe = async (runId: string, label: string) => {
      const observer = createKeel({ store: path, tools: [], sources: fakeSources() });
      seen[label] = (await observer.runs.entries('t1', runId)).map((e) => e.kind);
      await observer.close();
    };
    const idem = spyTool('idem', {
      handler: async (_a, ctx) => {
        await observe(ctx.runId, ctx.step);
        return { ok: 1 };
      },
    });
    const once = spyTool('once', {
      idempotent: false,
      handler: async (_a, ctx) => {
        await observe(ctx.runId, ctx.step);
        return { ok: 2 };
      },
    });
    const keel = createKeel({ store: path, tools: [idem, once], sources: fakeSources() });
    await deploy(
      keel,
      't1',
      'id: d\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps:\n  - {name: a, tool: idem}\n  - {name: b, tool: idem}\n  - {name: c, tool: once}\nlimits: {maxSteps: 3, maxCostUsd: 0}\n',
    );
    await keel.events.emit('t1', { id: 'd', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
    // Step a: the root must be durable first, so its allow is committed with it.
    assert.deepEqual(seen.a, ['run.started', 'step.allowed']);
    // Step b: idempotent and reproducible from the durable head, so it ran before its allow was committed.
    assert.deepEqual(seen.b, ['run.started', 'step.allowed']);
    // Step c: not idempotent, so everything before it, its own allow included, was durable first.
    assert.deepEqual(seen.c, [
      'run.started',
      'step.allowed',
      'step.completed',
      'step.allowed',
      'step.completed',
      'step.allowed',
    ]);
    await keel.close();
  });

  test('a source draw in the batch forces a commit before an idempotent step runs', async () => {
    const path = freshPath();
    let seen: string[] = [];
    const idem = spyTool('idem', {
      handler: async (_a, ctx) => {
        const observer = createKeel({ store: path, tools: [], sources: fakeSources() });
        seen = (await observer.runs.entries('t1', ctx.runId)).map((e) => e.kind);
        await observer.close();
        return 1;
      },
    });
    const keel = createKeel({ store: path, tools: [idem], sources: fakeSources() });
    await deploy(
      keel,
      't1',
      'id: s\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps:\n  - {name: a, tool: idem}\n  - {name: b, tool: idem, args: {at: "{{clock.now}}"}}\nlimits: {maxSteps: 2, maxCostUsd: 0}\n',
    );
    await keel.events.emit('t1', { id: 's', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
    assert.deepEqual(seen, ['run.started', 'step.allowed', 'step.completed', 'source.drawn', 'step.allowed']);
    await keel.close();
  });
});
