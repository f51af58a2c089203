import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { chainEntry, decodeEntry, payloadOf } from '../core/ledger/index.ts';
import { idempotencyKeyFor, proposalIdFor, runIdFor } from '../core/run/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const FIXTURE = readFileSync(
  join(import.meta.dirname, '..', 'app', 'fixtures', 'conformance-nondeterminism.yaml'),
  'utf8',
);
const go = (id: string, payload: Record<string, unknown> = {}) => ({
  id,
  type: 'go',
  time: '2026-01-01T00:00:00Z',
  payload,
});
const isCode = (code: string) => (e: unknown) => (e as { code?: string }).code === code;

const THREE_STEPS = `
id: three
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: t1, args: {n: 1, at: "{{clock.now}}"}}
  - {name: b, tool: t2, args: {prev: "{{steps.a.output.n}}", r: "{{random.float}}"}}
  - {name: c, tool: t3, args: {id: "{{id.new}}"}}
limits: {maxSteps: 3, maxCostUsd: 5}
`;

function threeStepKeel(sources = fakeSources()) {
  const tools = ['t1', 't2', 't3'].map((n) => spyTool(n, { handler: (args) => ({ n: 7, got: args }) }));
  const guarded = spyTool('t3', { destructive: true, handler: (args) => ({ n: 7, got: args }) });
  return {
    keel: createKeel({ store: ':memory:', tools: [tools[0]!, tools[1]!, guarded], sources }),
    tools: [tools[0]!, tools[1]!, guarded],
    sources,
  };
}

describe('replay', () => {
  test('regenerates every entry of a run (drawn sources and an approval included) identically, calling nothing', async () => {
    const { keel, tools, sources } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('e1'))).runs;
    assert.equal(run!.status, 'waiting_approval');
    await keel.approvals.approve('t1', run!.runId, 'dana');
    const calls = tools.map((t) => t.calls.length);
    const reads = { ...sources.reads };

    const r = await keel.runs.replay('t1', run!.runId);
    assert.deepEqual(r, {
      identical: true,
      runId: run!.runId,
      entries: (await keel.runs.entries('t1', run!.runId)).length,
    });
    assert.deepEqual(
      tools.map((t) => t.calls.length),
      calls,
      'no tool handler was called',
    );
    assert.deepEqual(sources.reads, reads, 'no clock, random or env read');
    await keel.close();
  });

  test('replays a run that is still waiting, up to its head', async () => {
    const { keel } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('e2'))).runs;
    const r = await keel.runs.replay('t1', run!.runId);
    assert.equal(r.identical, true);
  });

  test('names the seq, the regenerated and the recorded entry when a tool changed since the run', async () => {
    const sources = fakeSources();
    const path = ':memory:';
    const costly = spyTool('t1', { handler: () => ({ n: 1 }) });
    const keel = createKeel({ store: path, tools: [costly, spyTool('t2'), spyTool('t3')], sources });
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('e3'))).runs;
    // Same store, the tool now declares a cost: the regenerated allow decision differs.
    const changed = createKeel({
      store: keel.store,
      tools: [spyTool('t1', { cost: { fixedUsd: 1 } }), spyTool('t2'), spyTool('t3')],
    });
    const r = await changed.runs.replay('t1', run!.runId);
    assert.equal(r.identical, false);
    if (!r.identical) {
      const allowed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.allowed')!;
      assert.equal(r.divergence.seq, allowed.seq);
      assert.equal(r.divergence.expected?.kind, 'step.allowed');
      assert.equal(r.divergence.recorded?.kind, 'step.allowed');
      assert.equal(r.divergence.expected?.tool, 't1');
      assert.equal(r.divergence.recorded?.argsHash, r.divergence.expected?.argsHash);
      assert.match(r.divergence.hint, /tool descriptors/);
    }
    await keel.close();
  });

  test('a replay without a tool the run used is replay_unavailable naming it, never a divergence', async () => {
    const { keel } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('e-missing'))).runs;
    await keel.approvals.approve('t1', run!.runId, 'dana');
    // The same store opened by a process that loaded only some of the run's tools.
    const partial = createKeel({ store: keel.store, tools: [spyTool('t1')] });
    await assert.rejects(partial.runs.replay('t1', run!.runId), (e: unknown) => {
      assert.ok(isCode('replay_unavailable')(e), String(e));
      assert.deepEqual((e as { details: { missing: unknown } }).details.missing, { tools: ['t2', 't3'] });
      assert.match((e as Error).message, /t2, t3.*not registered here/);
      return true;
    });
  });

  test("a replay of another tenant's run is not found", async () => {
    const { keel } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('e4'))).runs;
    await assert.rejects(keel.runs.replay('t2', run!.runId), isCode('not_found'));
    await assert.rejects(
      keel.runs.fork('t2', run!.runId, { fromSeq: 0, mode: 'replay' }),
      isCode('not_found'),
    );
    await assert.rejects(keel.runs.rerun('t2', run!.runId), isCode('not_found'));
  });
});

describe('declared nondeterminism: conformance-nondeterminism', () => {
  async function original() {
    const sources = fakeSources({ seed: 7, env: { KEEL_REGION: 'eu-west' } });
    const keel = createKeel({ store: ':memory:', sources, exposeEnv: { t1: ['KEEL_REGION'] } });
    await deploy(keel, 't1', FIXTURE);
    const run = await keel.runs.start('t1', 'conformance-nondeterminism', go('nd'), { live: true });
    assert.equal(run.status, 'completed');
    const outputs = async (runId: string) => {
      const last = (await keel.runs.entries('t1', runId)).at(-1)!;
      return (payloadOf(last, 'run.finished').outputs as { draw: Record<string, unknown> }).draw;
    };
    return { keel, sources, run, outputs };
  }

  test('the completed outputs hold one string per declared source', async () => {
    const { run, outputs } = await original();
    const out = await outputs(run.runId);
    assert.deepEqual(Object.keys(out).sort(), ['clock', 'env', 'id', 'random']);
    for (const v of Object.values(out)) assert.equal(typeof v, 'string');
    assert.equal(out.env, 'eu-west');
    assert.match(String(out.random), /^[0-9a-f]{32}$/);
    assert.match(String(out.clock), /^\d{4}-\d\d-\d\dT/);
  });

  test('a replay fork from seq 0 reproduces every value byte-equal without drawing; a branch fork draws fresh ones', async () => {
    const { keel, sources, run, outputs } = await original();
    const first = await outputs(run.runId);
    const reads = { ...sources.reads };
    const fork = await keel.runs.fork('t1', run.runId, { fromSeq: 0, mode: 'replay' });
    assert.equal(fork.status, 'completed');
    assert.deepEqual(await outputs(fork.runId), first);
    assert.equal(sources.reads.random, reads.random, 'a replay fork draws no random value');
    assert.equal(sources.reads.env, reads.env, 'a replay fork reads no environment');

    // A replay of the replay fork, and a replay fork of the fork, still give the original draws.
    assert.equal((await keel.runs.replay('t1', fork.runId)).identical, true);
    const forkOfFork = await keel.runs.fork('t1', fork.runId, { fromSeq: 0, mode: 'replay' });
    assert.deepEqual(await outputs(forkOfFork.runId), first);

    // A replay fork that is created now and walked later (after a restart, or by a worker) is still
    // served from the record: resuming never goes live.
    const parked = await keel.engine.fork('t1', run.runId, { fromSeq: 1, mode: 'replay', walk: false });
    assert.equal(parked.run.status, 'running');
    const resumed = await keel.runs.recover('t1', parked.run.runId);
    assert.equal(resumed.status, 'completed');
    assert.deepEqual(await outputs(parked.run.runId), first);
    assert.equal(sources.reads.random, reads.random);

    const branch = await keel.runs.fork('t1', run.runId, { fromSeq: 0, mode: 'branch' });
    assert.equal(branch.status, 'completed');
    const fresh = await outputs(branch.runId);
    assert.notEqual(fresh.random, first.random);
    assert.notEqual(fresh.id, first.id);
    assert.equal((await keel.runs.verify('t1', branch.runId)).ok, true);
  });
});

describe('fork', () => {
  test('inherits the entries before fromSeq under a root naming the source, then continues', async () => {
    const { keel, tools } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('f1'))).runs;
    await keel.approvals.approve('t1', run!.runId, 'dana');
    const source = await keel.runs.entries('t1', run!.runId);
    const stored = await keel.runs.storedEntries('t1', run!.runId);
    const callsBefore = tools.map((t) => t.calls.length);
    const fromSeq = source.findIndex((e) => e.kind === 'step.completed') + 1;

    const fork = await keel.runs.fork('t1', run!.runId, { fromSeq, mode: 'replay' });
    assert.equal(fork.status, 'completed');
    const forked = await keel.runs.entries('t1', fork.runId);
    const root = payloadOf(forked[0]!, 'run.started');
    assert.deepEqual(root.forkOf, { runId: run!.runId, fromSeq, mode: 'replay' });
    for (let seq = 1; seq < fromSeq; seq++) {
      assert.equal(forked[seq]!.kind, source[seq]!.kind);
      assert.equal(forked[seq]!.at, source[seq]!.at);
      assert.deepEqual(forked[seq]!.payload, source[seq]!.payload);
    }
    // Later steps were served from the record: same outputs, no handler called, approval from the record.
    assert.deepEqual(
      tools.map((t) => t.calls.length),
      callsBefore,
    );
    assert.deepEqual(
      payloadOf(forked.at(-1)!, 'run.finished').outputs,
      payloadOf(source.at(-1)!, 'run.finished').outputs,
    );
    assert.ok(
      forked.some((e) => e.kind === 'approval.resolved' && payloadOf(e, 'approval.resolved').by === 'dana'),
    );
    assert.equal((await keel.runs.verify('t1', fork.runId)).ok, true);
    // The source run's bytes are untouched.
    assert.deepEqual(await keel.runs.storedEntries('t1', run!.runId), stored);
    // Forking again with the same arguments returns the same fork.
    const again = await keel.runs.fork('t1', run!.runId, { fromSeq, mode: 'replay' });
    assert.equal(again.runId, fork.runId);
    assert.equal(again.created, false);
  });

  test('a branch fork re-executes live after the fork point, optionally with another event', async () => {
    const { keel, tools } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS.replace('status: LIVE', 'status: AUTONOMOUS'));
    const [run] = (await keel.events.emit('t1', go('f2'))).runs;
    const calls = tools.map((t) => t.calls.length);
    const branch = await keel.runs.fork('t1', run!.runId, {
      fromSeq: 0,
      mode: 'branch',
      event: go('f2-what-if', { x: 1 }),
    });
    assert.equal(branch.status, 'completed');
    assert.deepEqual(
      tools.map((t, i) => t.calls.length - calls[i]!),
      [1, 1, 1],
    );
    const root = payloadOf((await keel.runs.entries('t1', branch.runId))[0]!, 'run.started');
    assert.equal(root.event.id, 'f2-what-if');
  });

  test('refuses a bad fromSeq, and a new event or version in replay mode', async () => {
    const { keel } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS);
    const [run] = (await keel.events.emit('t1', go('f3'))).runs;
    await assert.rejects(keel.runs.fork('t1', run!.runId, { fromSeq: 99, mode: 'replay' }), isCode('usage'));
    await assert.rejects(keel.runs.fork('t1', run!.runId, { fromSeq: -1, mode: 'replay' }), isCode('usage'));
    await assert.rejects(keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'sideways' }), isCode('usage'));
    await assert.rejects(
      keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'replay', event: go('x') }),
      isCode('usage'),
    );
  });

  test('an effect with no recorded outcome fails closed with replay_source_missing and is never executed', async () => {
    const t1 = spyTool('t1', { idempotent: false });
    const keel = createKeel({
      store: ':memory:',
      tools: [t1, spyTool('t2'), spyTool('t3')],
      sources: fakeSources(),
    });
    const v = await deploy(keel, 't1', THREE_STEPS.replace('{n: 1, at: "{{clock.now}}"}', '{n: 1}'));
    // A source run that died after its allow decision: no outcome was recorded for step a.
    // Named as its root derives it: a ledger whose root does not name its run is refused.
    const event = { ...go('crashed'), tenant: 't1', source: '', subject: '' };
    const root = chainEntry(
      runIdFor('t1', v.workflowId, v.specHash, event),
      null,
      'run.started',
      {
        tenant: 't1',
        workflowId: v.workflowId,
        version: v.version,
        specHash: v.specHash,
        status: 'LIVE',
        event,
        engine: 'keel/0.1.0',
      },
      '2026-01-01T00:00:00.000Z',
    );
    const runId = root.stored.runId;
    const allowed = chainEntry(
      runId,
      { seq: 0, hash: root.stored.hash },
      'step.allowed',
      {
        step: 'a',
        tool: 't1',
        proposalId: proposalIdFor(runId, 'a', 't1', { n: 1 }),
        args: { n: 1 },
        idempotencyKey: idempotencyKeyFor(runId, 'a', 1),
        attempt: 1,
        costCents: 0,
      },
      '2026-01-01T00:00:00.001Z',
    );
    await keel.store.ledger.append({
      tenant: 't1',
      runId,
      expectedHead: null,
      entries: [root.stored, allowed.stored],
      status: 'running',
      create: {
        workflowId: v.workflowId,
        version: v.version,
        specHash: v.specHash,
        eventId: 'crashed',
        eventType: 'go',
      },
    });
    const fork = await keel.runs.fork('t1', runId, { fromSeq: 0, mode: 'replay' });
    assert.equal(fork.status, 'failed');
    const failed = (await keel.runs.entries('t1', fork.runId)).find((e) => e.kind === 'step.failed')!;
    assert.equal(payloadOf(failed, 'step.failed').error.code, 'replay_source_missing');
    assert.equal(t1.calls.length, 0);
    assert.equal(decodeEntry((await keel.runs.storedEntries('t1', runId))[1]!).kind, 'step.allowed');
    // Once recovery has recorded the unknown outcome (a suspension), a replay reproduces that
    // suspension — still without calling the tool.
    assert.equal((await keel.runs.recover('t1', runId)).status, 'outcome_unknown');
    const again = await keel.runs.fork('t1', runId, { fromSeq: 1, mode: 'replay' });
    assert.equal(again.status, 'outcome_unknown');
    assert.deepEqual(
      (await keel.runs.entries('t1', again.runId)).map((e) => e.kind),
      ['run.started', 'step.allowed', 'run.suspended'],
    );
    assert.equal((await keel.runs.replay('t1', runId)).identical, true);
    assert.equal(t1.calls.length, 0);
  });
});

describe('rerun', () => {
  test('a new live attempt linked by attemptOf; the original stays byte-identical', async () => {
    const { keel, tools } = threeStepKeel();
    await deploy(keel, 't1', THREE_STEPS.replace('status: LIVE', 'status: AUTONOMOUS'));
    const [run] = (await keel.events.emit('t1', go('r1'))).runs;
    const before = await keel.runs.storedEntries('t1', run!.runId);
    const a2 = await keel.runs.rerun('t1', run!.runId);
    const a3 = await keel.runs.rerun('t1', run!.runId);
    assert.notEqual(a2.runId, a3.runId);
    assert.equal(a2.status, 'completed');
    assert.equal(tools[0]!.calls.length, 3, 'each attempt executes live');
    const root = payloadOf((await keel.runs.entries('t1', a2.runId))[0]!, 'run.started');
    assert.equal(root.attemptOf, run!.runId);
    assert.deepEqual(await keel.runs.storedEntries('t1', run!.runId), before);
    const history = await keel.runs.history('t1', a2.runId);
    assert.match(history[0]!.text, /a new attempt re-executing run/);
  });
});
