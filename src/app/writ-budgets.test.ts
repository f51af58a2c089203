/**
 * A writ's budget is shared by every run that presents it (real SQLite files, spies counting calls
 * on the tool side): runs under one writ together make no more calls than it allows, in sequence
 * or concurrently; a run reserves what its plan can take in the transaction of its first allow and
 * gives back what it did not use when it finishes; a delegated child's calls count against its
 * parent's writ; forks do not pay again for what they inherit, and replay never touches the budget;
 * a call reconciled as never having happened gives its share back to its run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Digest } from '../core/canonical/index.ts';
import type { PayloadOf } from '../core/ledger/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { type SignedWrit, type WritBody, writHash } from '../core/writs/index.ts';
import { deploy, fakeSources, type SpyTool, spyTool, withStoreFile } from '../testing/index.ts';
import { createKeel, type KeelConfig } from './keel.ts';

const MARCH = Date.UTC(2026, 2, 15, 12);
const event = (id: string) => ({ id, type: 'go', time: '2026-03-15T00:00:00Z', payload: {} });

const ONE_STEP = `id: one
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: tool_a}
limits: {maxSteps: 3, maxCostUsd: 0}
`;

const THREE_STEPS = `id: three
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: tool_a}
  - {name: b, tool: tool_b}
  - {name: c, tool: tool_c}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

function tools() {
  return { a: spyTool('tool_a'), b: spyTool('tool_b'), c: spyTool('tool_c') };
}
const calls = (t: ReturnType<typeof tools>) => t.a.calls.length + t.b.calls.length + t.c.calls.length;

function open(path: string, t: { a: SpyTool; b: SpyTool; c: SpyTool }, o: Partial<KeelConfig> = {}) {
  return createKeel({ store: path, tools: [t.a, t.b, t.c], sources: fakeSources({ start: MARCH }), ...o });
}

function writOf(budget: WritBody['budget']) {
  const k = keyPair('acme');
  const root = signedRoot(k, { scopes: ['*'], budget });
  return {
    k,
    chain: [root] as SignedWrit[],
    hash: writHash(root),
    config: { trustedKeys: { acme: [k.publicKey] } },
  };
}

async function used(keel: ReturnType<typeof open>, hash: Digest) {
  const u = (await keel.store.budgets.readWritBudgets('acme', hash))!;
  return u.map((x) => [x.id, x.used.steps, x.used.calls, x.used.cents]);
}

const refusalOf = async (keel: ReturnType<typeof open>, runId: string) =>
  (await keel.runs.entries('acme', runId)).find((e) => e.kind === 'step.refused')?.payload as
    | PayloadOf<'step.refused'>
    | undefined;

test('three runs under one writ allowing a single call make one call: the second and third are refused', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 1 });
    const t = tools();
    const keel = open(path, t, w.config);
    await deploy(keel, 'acme', ONE_STEP);
    const runs = [];
    for (const id of ['e1', 'e2', 'e3'])
      runs.push((await keel.events.emit('acme', event(id), { writ: w.chain })).runs[0]!);
    assert.deepEqual(
      runs.map((r) => r.status),
      ['completed', 'refused', 'refused'],
    );
    assert.equal(t.a.calls.length, 1);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 1, 1, 0]]);
    const refused = (await refusalOf(keel, runs[1]!.runId))!;
    assert.equal(refused.check, 'writ');
    assert.equal(refused.code, 'writ_budget_exhausted');
    assert.deepEqual(refused.writ, {
      hash: w.hash,
      code: 'writ_budget_exhausted',
      budget: {
        used: { steps: 1, calls: 1, cents: 0 },
        limit: { steps: 10, calls: 1, cents: 0 },
        asked: { steps: 1, calls: 1, cents: 0 },
      },
    });
    assert.match(
      refused.message,
      /writ root-1's budget, shared by every run under it, is exhausted: 1 of its 1 tool calls/,
    );
    const history = (await keel.runs.history('acme', runs[1]!.runId)).map((l) => l.text).join('\n');
    assert.match(history, /Refused tool_a: writ root-1's budget/);
    // Replay and verify read only the ledger: the refusal is served as recorded, the budget untouched.
    for (const r of runs) {
      assert.equal((await keel.runs.replay('acme', r.runId)).identical, true, r.runId);
      assert.equal((await keel.runs.verify('acme', r.runId)).ok, true);
    }
    assert.deepEqual(await used(keel, w.hash), [['root-1', 1, 1, 0]]);
    await keel.close();
  });
});

test('runs started concurrently under a writ allowing two calls make exactly two', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 2 });
    const t = tools();
    const keel = open(path, t, w.config);
    await deploy(keel, 'acme', ONE_STEP);
    const out = await Promise.all(
      Array.from({ length: 10 }, (_, i) => keel.events.emit('acme', event(`c${i}`), { writ: w.chain })),
    );
    const statuses = out.map((o) => o.runs[0]!.status);
    assert.equal(statuses.filter((s) => s === 'completed').length, 2, statuses.join());
    assert.equal(statuses.filter((s) => s === 'refused').length, 8);
    assert.equal(t.a.calls.length, 2);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 2, 2, 0]]);
    await keel.close();
  });
});

test('a run reserves what its plan can take with its first allow (no extra commit) and gives back what it did not use', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 5 });
    const policy = parsePolicy(
      'default: allow\nrules:\n  - {id: no-c, match: {tool: tool_c}, outcome: deny}\n',
      'p.yaml',
    );
    const t = tools();
    const plain = tools();
    const keel = open(path, t, { ...w.config, policies: { acme: policy } });
    await deploy(keel, 'acme', THREE_STEPS);
    const [first] = (await keel.events.emit('acme', event('r0'), { writ: w.chain })).runs;
    assert.equal(first!.status, 'refused');
    assert.deepEqual(await used(keel, w.hash), [['root-1', 2, 2, 0]]);
    // Measured once the writ's chain is stored (its first run stored it: one more commit).
    const before = keel.store.stats().commits;
    const [run] = (await keel.events.emit('acme', event('r1'), { writ: w.chain })).runs;
    const governedCommits = keel.store.stats().commits - before;
    assert.equal(run!.status, 'refused');
    assert.equal(calls(t), 4);
    const allows = (await keel.runs.entries('acme', run!.runId))
      .filter((e) => e.kind === 'step.allowed')
      .map((e) => (e.payload as PayloadOf<'step.allowed'>).reserves);
    // The first allow reserved the three steps of the plan; the second drew on it.
    assert.deepEqual(allows, [{ steps: 3, calls: 3, cents: 0 }, undefined]);
    assert.match(
      (await keel.runs.history('acme', run!.runId)).find((l) => l.kind === 'step.allowed')!.text,
      /^Allowed tool_a .*; reserved 3 steps, 3 calls of the writ's shared budget\.$/,
    );
    // Refused at c, it gave back the step it reserved for c when it finished.
    assert.deepEqual(await used(keel, w.hash), [['root-1', 4, 4, 0]]);
    await keel.close();

    // The same run without a writ takes as many commits: the reservation rides on existing appends.
    await withStoreFile('keel-budget-plain', async (plainPath) => {
      const k2 = open(plainPath, plain, { policies: { acme: policy } });
      await deploy(k2, 'acme', THREE_STEPS);
      await k2.events.emit('acme', event('r0'));
      const b2 = k2.store.stats().commits;
      await k2.events.emit('acme', event('r1'));
      assert.equal(k2.store.stats().commits - b2, governedCommits);
      await k2.close();
    });
  });
});

test('a run holds its reservation while it waits for a person, and a restart keeps it: another run is refused meanwhile', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 3 });
    const policy = parsePolicy(
      'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
      'p.yaml',
    );
    const config = { ...w.config, policies: { acme: policy } };
    const t = tools();
    const keel = open(path, t, config);
    await deploy(keel, 'acme', THREE_STEPS);
    const [waiting] = (await keel.events.emit('acme', event('w1'), { writ: w.chain })).runs;
    assert.equal(waiting!.status, 'waiting_approval');
    assert.deepEqual(await used(keel, w.hash), [['root-1', 3, 3, 0]]);
    const [other] = (await keel.events.emit('acme', event('w2'), { writ: w.chain })).runs;
    assert.equal(other!.status, 'refused');
    assert.equal((await refusalOf(keel, other!.runId))?.code, 'writ_budget_exhausted');
    await keel.close();

    const t2 = tools();
    const reopened = open(path, t2, config);
    assert.equal((await reopened.approvals.approve('acme', waiting!.runId, 'ops@acme')).status, 'completed');
    assert.deepEqual([t.a.calls.length, t2.b.calls.length, t2.c.calls.length], [1, 1, 1]);
    assert.deepEqual(await used(reopened, w.hash), [['root-1', 3, 3, 0]]);
    assert.equal((await reopened.runs.replay('acme', waiting!.runId)).identical, true);
    await reopened.close();
  });
});

test('forks and reruns: a branch fork pays only for what it runs itself, a replay fork pays nothing, a rerun pays again', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 20, calls: 6 });
    const t = tools();
    const keel = open(path, t, w.config);
    await deploy(keel, 'acme', THREE_STEPS);
    const [run] = (await keel.events.emit('acme', event('f1'), { writ: w.chain })).runs;
    assert.equal(run!.status, 'completed');
    assert.deepEqual(await used(keel, w.hash), [['root-1', 3, 3, 0]]);
    const entries = await keel.runs.entries('acme', run!.runId);
    // Forked after step a completed: the fork inherits a (paid by its source) and runs b and c.
    const fromSeq = entries.findIndex(
      (e) => e.kind === 'step.allowed' && (e.payload as { step: string }).step === 'b',
    );
    const branch = await keel.runs.fork('acme', run!.runId, { fromSeq, mode: 'branch' });
    assert.equal(branch.status, 'completed');
    assert.equal(calls(t), 5);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 5, 5, 0]]);
    // A replay fork serves every decision from its source's record, reservations included.
    const replayFork = await keel.runs.fork('acme', run!.runId, { fromSeq, mode: 'replay' });
    const fromRoot = await keel.runs.fork('acme', run!.runId, { fromSeq: 0, mode: 'replay' });
    assert.deepEqual([replayFork.status, fromRoot.status], ['completed', 'completed']);
    assert.equal(calls(t), 5);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 5, 5, 0]]);
    // A rerun presents the same writ: one call is left, so it runs a and is refused at b.
    const rerun = await keel.runs.rerun('acme', run!.runId);
    assert.equal(rerun.status, 'refused');
    assert.equal(calls(t), 6);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 6, 6, 0]]);
    // (A fork that inherits steps does not replay yet: its walk names proposals after the fork's
    // own run id, not the inherited ones — the fork work of issue 13, not budgets.)
    for (const id of [fromRoot.runId, rerun.runId])
      assert.equal((await keel.runs.replay('acme', id)).identical, true, id);
    assert.deepEqual(await used(keel, w.hash), [['root-1', 6, 6, 0]]);
    await keel.close();
  });
});

test('a call reconciled as never having happened gives its share back to its run: the next attempt runs under a one-call writ', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 1 });
    const pay = (hang: boolean) =>
      spyTool('tool_a', {
        idempotent: false,
        effect: 'external',
        handler: () => (hang ? new Promise(() => {}) : { paid: true }),
      });
    const crashed = createKeel({
      store: path,
      tools: [pay(true)],
      sources: fakeSources({ start: MARCH }),
      ...w.config,
    });
    await deploy(crashed, 'acme', ONE_STEP);
    void crashed.events.emit('acme', event('p1'), { writ: w.chain });
    let runId: string | undefined;
    while (!runId) {
      const [r] = (await crashed.store.runs.listRuns('acme')).runs;
      const entries = r ? await crashed.store.ledger.readEntries('acme', r.runId) : [];
      if (entries.some((e) => e.kind === 'step.allowed')) runId = r!.runId;
      else await new Promise((res) => setTimeout(res, 5));
    }
    // The process "died" inside the call; another one finds the call's outcome unknown.
    const tool = pay(false);
    const later = createKeel({
      store: path,
      tools: [tool],
      sources: fakeSources({ start: MARCH }),
      ...w.config,
    });
    assert.equal((await later.runs.recover('acme', runId)).status, 'outcome_unknown');
    assert.deepEqual(await used(later, w.hash), [['root-1', 1, 1, 0]]);
    const done = await later.runs.reconcile('acme', runId, { happened: false, by: 'ops@acme' });
    assert.equal(done.status, 'completed');
    assert.equal(tool.calls.length, 1);
    const allows = (await later.runs.entries('acme', runId)).filter((e) => e.kind === 'step.allowed');
    assert.deepEqual(
      allows.map((e) => [
        (e.payload as PayloadOf<'step.allowed'>).attempt,
        (e.payload as PayloadOf<'step.allowed'>).reserves,
      ]),
      [
        [1, { steps: 1, calls: 1, cents: 0 }],
        [2, undefined],
      ],
    );
    assert.deepEqual(await used(later, w.hash), [['root-1', 1, 1, 0]]);
    assert.equal((await later.runs.replay('acme', runId)).identical, true);
    await later.close();
    await crashed.close();
  });
});

test("a delegated child's calls count against every writ above it: the parent's writ runs out for the next run", async () => {
  const child = `id: child
version: 1
status: LIVE
triggers: [{event: child.go}]
steps:
  - {name: b1, tool: tool_b}
  - {name: b2, tool: tool_b}
limits: {maxSteps: 3, maxCostUsd: 0}
`;
  const parent = `id: parent
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - name: hand
    tool: core.delegate
    args: {workflowId: child, writ: {scopes: [tool_b], budget: {cents: 0, steps: 2, calls: 2}}}
limits: {maxSteps: 3, maxCostUsd: 0}
`;
  const root = keyPair('acme');
  const delegation = keyPair('acme');
  const writ = [
    signedRoot(root, { scopes: ['tool_b', 'core.delegate'], budget: { cents: 0, steps: 3, calls: 3 } }),
  ];
  const t = tools();
  const keel = open(':memory:', t, {
    trustedKeys: { acme: [root.publicKey, delegation.publicKey] },
    delegationKeys: { acme: delegation.privateKey },
  });
  await deploy(keel, 'acme', child);
  await deploy(keel, 'acme', parent);
  const [first] = (await keel.events.emit('acme', event('d1'), { writ })).runs;
  assert.equal(first!.status, 'completed');
  assert.equal(t.b.calls.length, 2);
  // The parent's own call (the delegation) and the child's two: the root writ is used up.
  const parentWrit = writHash(writ[0]!);
  assert.deepEqual(await used(keel, parentWrit), [['root-1', 3, 3, 0]]);
  const childRoot = (await keel.runs.list('acme')).runs.find((r) => r.workflowId === 'child')!;
  const childWrit = (
    (await keel.runs.entries('acme', childRoot.runId))[0]!.payload as PayloadOf<'run.started'>
  ).writ!.hash;
  assert.deepEqual(
    (await used(keel, childWrit)).map((u) => u.slice(1)),
    [
      [3, 3, 0],
      [2, 2, 0],
    ],
  );
  // Each run alone would fit its writ; together they do not: the second parent is refused.
  const [second] = (await keel.events.emit('acme', event('d2'), { writ })).runs;
  assert.equal(second!.status, 'refused');
  const refused = (await refusalOf(keel, second!.runId))!;
  assert.deepEqual(
    [refused.step, refused.code, refused.writ?.hash],
    ['hand', 'writ_budget_exhausted', parentWrit],
  );
  assert.equal(t.b.calls.length, 2);
  await keel.close();
});

test('a run cancelled while it waits gives back what it reserved and did not use', async () => {
  await withStoreFile('keel-budget', async (path) => {
    const w = writOf({ cents: 0, steps: 10, calls: 3 });
    const policy = parsePolicy(
      'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
      'p.yaml',
    );
    const t = tools();
    const keel = open(path, t, { ...w.config, policies: { acme: policy } });
    await deploy(keel, 'acme', THREE_STEPS);
    const [waiting] = (await keel.events.emit('acme', event('x1'), { writ: w.chain })).runs;
    assert.equal(waiting!.status, 'waiting_approval');
    const budgets = async () =>
      (await keel.writs.budgets('acme', w.chain)).map((u) => [u.id, u.used.calls, u.limit.calls]);
    assert.deepEqual(await budgets(), [['root-1', 3, 3]]);
    assert.equal((await keel.runs.cancel('acme', waiting!.runId, { by: 'ops@acme' })).status, 'cancelled');
    assert.deepEqual(await budgets(), [['root-1', 1, 3]]);
    assert.deepEqual(await keel.writs.budgets('acme', w.hash), await keel.writs.budgets('acme', w.chain));
    await assert.rejects(
      keel.writs.budgets('acme', `sha256:${'0'.repeat(64)}`),
      (e: unknown) => (e as { code?: string }).code === 'not_found',
    );
    await keel.close();
  });
});

test('property: runs under one writ never make more calls than it allows, and once they finish it counts exactly the calls made', async () => {
  const spec = (n: number) => `id: w${n}
version: 1
status: LIVE
triggers: [{event: go${n}}]
steps:
${Array.from({ length: n }, (_, i) => `  - {name: s${i}, tool: step, args: {i: ${i}, failAt: "{{event.payload.failAt}}"}}`).join('\n')}
limits: {maxSteps: 4, maxCostUsd: 0}
`;
  const w = writOf({ cents: 0, steps: 100, calls: 0 });
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 6 }),
      fc.array(fc.record({ steps: fc.integer({ min: 1, max: 3 }), failAt: fc.integer({ min: 0, max: 3 }) }), {
        minLength: 1,
        maxLength: 6,
      }),
      async (budget, runs) => {
        const root = signedRoot(w.k, {
          id: 'prop',
          scopes: ['*'],
          budget: { cents: 0, steps: 100, calls: budget },
        });
        let made = 0;
        // Fails at step `failAt` (a made call: it counts), so runs end early and give the rest back.
        const step = spyTool('step', {
          handler: (args) => {
            made++;
            if (String(args.i) === String(args.failAt)) throw new Error('failed on purpose');
            return { ok: true };
          },
        });
        const keel = createKeel({
          store: ':memory:',
          tools: [step],
          sources: fakeSources({ start: MARCH }),
          ...w.config,
        });
        for (const n of [1, 2, 3]) await deploy(keel, 'acme', spec(n));
        const out = await Promise.all(
          runs.map((r, i) =>
            keel.events.emit(
              'acme',
              {
                id: `e${i}`,
                type: `go${r.steps}`,
                time: '2026-03-15T00:00:00Z',
                payload: { failAt: r.failAt },
              },
              { writ: [root] },
            ),
          ),
        );
        assert.ok(made <= budget, `${made} calls under a ${budget}-call writ`);
        const [usage] = await keel.writs.budgets('acme', [root]);
        assert.deepEqual(usage!.used, { steps: made, calls: made, cents: 0 });
        for (const o of out) {
          const r = o.runs[0]!;
          assert.ok(['completed', 'failed', 'refused'].includes(r.status), r.status);
          if (r.status === 'refused')
            assert.equal((await refusalOf(keel, r.runId))?.code, 'writ_budget_exhausted');
        }
        await keel.close();
      },
    ),
    { numRuns: 25 },
  );
});
