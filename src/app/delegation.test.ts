/**
 * Delegation on real SQLite: a `core.delegate` step runs another workflow as a child run under a
 * child writ minted from the parent's leaf writ and signed with the tenant's delegation key. The
 * child's chain verifies against the trusted keys, its budget fits the parent's remaining one,
 * both ledgers link, a writ that cannot be minted leaves no child, a resumed parent finds the same
 * child, replay serves the child's outcome from the parent's record, and tenants stay apart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PayloadOf } from '../core/ledger/index.ts';
import { childRunIdFor } from '../core/run/index.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { type SignedWrit, verifyWritChain, type WritBody, writHash } from '../core/writs/index.ts';
import { deploy, fakeSources, type SpyTool, spyTool } from '../testing/index.ts';
import { createKeel, type KeelConfig } from './keel.ts';

const MARCH = Date.UTC(2026, 2, 15, 12);
const EVENT = { id: 'e1', type: 'go', time: '2026-03-15T00:00:00Z', payload: { ticket: 'T-7' } };

const CHILD = `id: child
version: 1
status: LIVE
triggers: [{event: child.go}]
steps:
  - {name: b, tool: tool_b, args: {ticket: "{{event.payload.ticket}}"}}
limits: {maxSteps: 3, maxCostUsd: 0}
`;

/** A parent whose second step delegates to `child`, asking for `writ` (an attenuation request). */
function parentSpec(writ: unknown, id = 'parent'): string {
  return `id: ${id}
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: prep, tool: tool_a}
  - name: hand
    tool: core.delegate
    args: {workflowId: child, writ: ${JSON.stringify(writ)}, payload: {ticket: "{{event.payload.ticket}}"}}
  - {name: after, tool: tool_c}
limits: {maxSteps: 5, maxCostUsd: 0}
`;
}

const NARROW = { scopes: ['tool_b'], budget: { cents: 0, steps: 2, calls: 2 } };
const ROOT_SCOPES = ['tool_a', 'tool_b', 'tool_c', 'core.delegate'];

function tools(o: { hangB?: boolean } = {}) {
  let calls = 0;
  const b = spyTool('tool_b', {
    handler: (args) => {
      calls++;
      return o.hangB && calls === 1 ? new Promise(() => {}) : { handled: args.ticket };
    },
  });
  return { a: spyTool('tool_a'), b, c: spyTool('tool_c') };
}

function keel(store: string, t: { a: SpyTool; b: SpyTool; c: SpyTool }, o: Partial<KeelConfig> = {}) {
  return createKeel({ store, tools: [t.a, t.b, t.c], sources: fakeSources({ start: MARCH }), ...o });
}

/** The tenant's root key (trusted) and its delegation key (trusted too, unless told otherwise). */
function keys(o: { trustDelegation?: boolean } = {}) {
  const root = keyPair('acme');
  const delegation = keyPair('acme');
  const trusted = [root.publicKey, ...(o.trustDelegation === false ? [] : [delegation.publicKey])];
  return {
    root,
    delegation,
    config: {
      trustedKeys: { acme: trusted },
      delegationKeys: { acme: delegation.privateKey },
    } satisfies Partial<KeelConfig>,
  };
}

const rootWrit = (k: ReturnType<typeof keyPair>, over: Partial<WritBody> = {}) => ({
  chain: [signedRoot(k, { scopes: ROOT_SCOPES, budget: { cents: 0, steps: 10, calls: 10 }, ...over })],
});

const payload = <K extends keyof import('../core/ledger/index.ts').Payloads>(
  entries: { kind: string; payload: unknown }[],
  kind: K,
) => entries.find((e) => e.kind === kind)?.payload as PayloadOf<K> | undefined;

test('a child run completes under a child writ that verifies, fits the remaining budget, and links both ways', async () => {
  const t = tools();
  const k = keys();
  const kl = keel(':memory:', t, k.config);
  await deploy(kl, 'acme', CHILD);
  await deploy(kl, 'acme', parentSpec(NARROW));
  const [run] = (await kl.events.emit('acme', EVENT, { writ: rootWrit(k.root) })).runs;
  assert.equal(run!.status, 'completed');
  const parentId = run!.runId;
  const childId = childRunIdFor('acme', parentId, 'hand', 1);
  const parent = await kl.runs.entries('acme', parentId);
  const allowed = parent.find(
    (e) => e.kind === 'step.allowed' && (e.payload as PayloadOf<'step.allowed'>).step === 'hand',
  )!;
  const link = (allowed.payload as PayloadOf<'step.allowed'>).delegation!;
  assert.equal(link.runId, childId);
  assert.deepEqual([link.workflowId, link.version], ['child', 1]);

  // The child's root names the parent run and the delegating entry, and the child writ by hash;
  // the store holds its chain by content.
  const child = await kl.runs.entries('acme', childId);
  const root = payload(child, 'run.started')!;
  assert.deepEqual(root.delegatedBy, { runId: parentId, seq: allowed.seq, step: 'hand', attempt: 1 });
  assert.equal(root.writ!.hash, link.writ.hash);
  assert.equal(root.event.payload.ticket, 'T-7');
  assert.deepEqual(Object.keys(root.writ!), ['hash'], 'the root names the writ, the chain is stored apart');
  const chain = JSON.parse((await kl.store.keys.getWritChain('acme', root.writ!.hash))!) as SignedWrit[];
  assert.equal(chain.length, 2);
  assert.equal(writHash(chain[1]!), root.writ!.hash);
  assert.equal(verifyWritChain(chain, [k.root.trusted, k.delegation.trusted]).ok, true);
  // Without its chain, or without the delegation key trusted, the child writ proves nothing.
  assert.equal(verifyWritChain([chain[1]], [k.root.trusted, k.delegation.trusted]).ok, false);
  assert.equal(verifyWritChain(chain, [k.root.trusted]).ok, false);
  const leaf = chain[1]!.body;
  // Remaining when minted: 10 - prep - hand = 8 steps and calls; the child asked for 2.
  assert.deepEqual(leaf.budget, { cents: 0, steps: 2, calls: 2 });
  assert.ok(leaf.budget.steps <= 8 && leaf.budget.calls <= 8);
  assert.deepEqual(leaf.scopes, ['tool_b']);
  assert.equal(leaf.depth, 1);

  // The parent records the child's outcome, and went on.
  const done = parent.find(
    (e) => e.kind === 'step.completed' && (e.payload as PayloadOf<'step.completed'>).step === 'hand',
  )!.payload as PayloadOf<'step.completed'>;
  assert.deepEqual(done.output, {
    childRunId: childId,
    status: 'completed',
    outputs: { b: { handled: 'T-7' } },
  });
  assert.deepEqual([t.a.calls.length, t.b.calls.length, t.c.calls.length], [1, 1, 1]);
  assert.equal((await kl.runs.verify('acme', parentId)).ok, true);
  assert.equal((await kl.runs.verify('acme', childId)).ok, true);

  // Replay of the parent serves the child's outcome from the parent's record: nothing re-runs.
  const runsBefore = (await kl.runs.list('acme')).runs.length;
  const replay = await kl.runs.replay('acme', parentId);
  assert.equal(replay.identical, true, JSON.stringify(replay));
  assert.equal(t.b.calls.length, 1);
  assert.equal((await kl.runs.list('acme')).runs.length, runsBefore);
  // A replay fork of the parent never starts a child either.
  const fork = await kl.runs.fork('acme', parentId, { fromSeq: 1, mode: 'replay' });
  assert.equal(fork.status, 'completed');
  assert.equal(t.b.calls.length, 1);
  assert.equal((await kl.runs.list('acme')).runs.length, runsBefore + 1);
  await kl.close();
});

test("the child's budget is reserved: the parent cannot spend it again", async () => {
  const t = tools();
  const k = keys();
  const kl = keel(':memory:', t, k.config);
  await deploy(kl, 'acme', CHILD);
  await deploy(kl, 'acme', parentSpec({ scopes: ['tool_b'] }));
  // 5 steps: prep and hand take 2, the child inherits the remaining 3, so `after` has none left.
  const writ = rootWrit(k.root, { budget: { cents: 0, steps: 5, calls: 5 } });
  const [run] = (await kl.events.emit('acme', EVENT, { writ })).runs;
  assert.equal(run!.status, 'refused');
  const entries = await kl.runs.entries('acme', run!.runId);
  const link = payload(entries, 'step.allowed' as const);
  assert.ok(link);
  const refused = payload(entries, 'step.refused')!;
  assert.deepEqual([refused.step, refused.code], ['after', 'writ_budget_exhausted']);
  const child = await kl.runs.entries('acme', childRunIdFor('acme', run!.runId, 'hand', 1));
  const childWrit = payload(child, 'run.started')!.writ!.hash;
  const childChain = JSON.parse((await kl.store.keys.getWritChain('acme', childWrit))!) as SignedWrit[];
  assert.deepEqual(childChain[1]!.body.budget, {
    cents: 0,
    steps: 3,
    calls: 3,
  });
  assert.equal(t.c.calls.length, 0);
  await kl.close();
});

const VIOLATIONS: { name: string; writ: unknown; root?: Partial<WritBody>; code: string }[] = [
  { name: 'widened scope', writ: { scopes: ['tool_x'] }, code: 'writ_scope_widened' },
  { name: 'raised budget', writ: { budget: { steps: 9 } }, code: 'writ_budget_raised' },
  { name: 'deeper delegation', writ: { delegation: { maxDepth: 7 } }, code: 'writ_depth_exceeded' },
  {
    name: 'non-subdividable parent',
    writ: NARROW,
    root: { delegation: { maxDepth: 3, maySubdivide: false } },
    code: 'writ_not_subdividable',
  },
  { name: 'changed tenant', writ: { tenant: 'globex' }, code: 'writ_tenant_changed' },
  {
    name: 'extended window',
    writ: { window: { notAfter: '2027-01-01T00:00:00Z' } },
    code: 'writ_window_extended',
  },
];

for (const v of VIOLATIONS) {
  test(`${v.name}: no child run exists and the parent ledgers ${v.code}`, async () => {
    const t = tools();
    const k = keys();
    const kl = keel(':memory:', t, k.config);
    await deploy(kl, 'acme', CHILD);
    await deploy(kl, 'acme', parentSpec(v.writ));
    const [run] = (await kl.events.emit('acme', EVENT, { writ: rootWrit(k.root, v.root) })).runs;
    assert.equal(run!.status, 'refused');
    const entries = await kl.runs.entries('acme', run!.runId);
    const refused = payload(entries, 'step.refused')!;
    assert.deepEqual(
      [refused.step, refused.tool, refused.check, refused.code],
      ['hand', 'core.delegate', 'writ', v.code],
    );
    assert.equal(refused.writ?.code, v.code);
    assert.ok(
      !entries.some((e) => e.kind === 'step.allowed' && (e.payload as { step: string }).step === 'hand'),
    );
    assert.deepEqual(
      (await kl.runs.list('acme')).runs.map((r) => r.runId),
      [run!.runId],
    );
    assert.equal(t.b.calls.length, 0);
    assert.equal((await kl.runs.replay('acme', run!.runId)).identical, true);
    await kl.close();
  });
}

test('a parent without a writ, or a Keel without a delegation key, refuses and creates no child', async () => {
  const t = tools();
  const k = keys();
  const kl = keel(':memory:', t, { trustedKeys: k.config.trustedKeys });
  await deploy(kl, 'acme', CHILD);
  await deploy(kl, 'acme', parentSpec(NARROW));
  const [bare] = (await kl.events.emit('acme', EVENT)).runs;
  assert.equal(bare!.status, 'refused');
  assert.equal(
    payload(await kl.runs.entries('acme', bare!.runId), 'step.refused')!.code,
    'delegation_requires_writ',
  );
  const [nokey] = (await kl.events.emit('acme', { ...EVENT, id: 'e2' }, { writ: rootWrit(k.root) })).runs;
  assert.equal(
    payload(await kl.runs.entries('acme', nokey!.runId), 'step.refused')!.code,
    'delegation_key_missing',
  );
  assert.equal((await kl.runs.list('acme')).runs.length, 2);
  await kl.close();
  // A delegation key the tenant does not trust mints a writ whose chain does not verify.
  const k2 = keys({ trustDelegation: false });
  const kl2 = keel(':memory:', tools(), k2.config);
  await deploy(kl2, 'acme', CHILD);
  await deploy(kl2, 'acme', parentSpec(NARROW));
  const [untrusted] = (await kl2.events.emit('acme', EVENT, { writ: rootWrit(k2.root) })).runs;
  assert.equal(
    payload(await kl2.runs.entries('acme', untrusted!.runId), 'step.refused')!.code,
    'writ_chain_untrusted',
  );
  assert.equal((await kl2.runs.list('acme')).runs.length, 1);
  await kl2.close();
});

test('a parent resumed after a crash finds the same child instead of starting another', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-delegation-'));
  try {
    const path = join(dir, 'k.db');
    const k = keys();
    // Process 1 "dies" inside the child's tool call: parent allow and child root are durable.
    const first = tools({ hangB: true });
    const one = keel(path, first, k.config);
    await deploy(one, 'acme', CHILD);
    await deploy(one, 'acme', parentSpec(NARROW));
    void one.events.emit('acme', EVENT, { writ: rootWrit(k.root) });
    while (first.b.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const listed = (await one.runs.list('acme')).runs;
    assert.equal(listed.length, 2);
    const parentId = listed.find((r) => r.workflowId === 'parent')!.runId;
    const childId = childRunIdFor('acme', parentId, 'hand', 1);

    // Process 2 resumes the parent: the delegation step is settled by finding the child.
    const second = tools();
    const two = keel(path, second, k.config);
    const resumed = await two.runs.recover('acme', parentId);
    assert.equal(resumed.status, 'completed');
    const runs = (await two.runs.list('acme')).runs;
    assert.deepEqual(runs.map((r) => r.runId).sort(), [parentId, childId].sort());
    assert.equal(second.b.calls.length, 1);
    const parent = await two.runs.entries('acme', parentId);
    const allows = parent.filter(
      (e) => e.kind === 'step.allowed' && (e.payload as { step: string }).step === 'hand',
    );
    assert.equal(allows.length, 1);
    const done = parent.find(
      (e) => e.kind === 'step.completed' && (e.payload as { step: string }).step === 'hand',
    )!.payload as PayloadOf<'step.completed'>;
    assert.deepEqual(done.output, {
      childRunId: childId,
      status: 'completed',
      outputs: { b: { handled: 'T-7' } },
    });
    assert.equal((await two.runs.replay('acme', parentId)).identical, true);
    await two.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the child runs in the parent's tenant only", async () => {
  const t = tools();
  const k = keys();
  const kl = keel(':memory:', t, k.config);
  // `child` exists only in another tenant: the parent cannot reach it.
  await deploy(kl, 'globex', CHILD);
  await deploy(kl, 'acme', parentSpec(NARROW));
  const [run] = (await kl.events.emit('acme', EVENT, { writ: rootWrit(k.root) })).runs;
  assert.equal(
    payload(await kl.runs.entries('acme', run!.runId), 'step.refused')!.code,
    'delegation_workflow_not_found',
  );
  assert.equal((await kl.runs.list('globex')).runs.length, 0);
  // With it in the tenant, the child is the tenant's, and another tenant cannot see it.
  await deploy(kl, 'acme', CHILD);
  const [ok] = (await kl.events.emit('acme', { ...EVENT, id: 'e2' }, { writ: rootWrit(k.root) })).runs;
  assert.equal(ok!.status, 'completed');
  const childId = childRunIdFor('acme', ok!.runId, 'hand', 1);
  assert.equal((await kl.runs.get('acme', childId)).tenant, 'acme');
  await assert.rejects(kl.runs.get('globex', childId), (e: { code?: string }) => e.code === 'not_found');
  assert.equal((await kl.runs.list('globex')).runs.length, 0);
  await kl.close();
});

test('a delegation key trusted only in the store mints children; a revoked parent writ mints none', async () => {
  const t = tools();
  const k = keys({ trustDelegation: false });
  const kl = keel(':memory:', t, k.config);
  await deploy(kl, 'acme', CHILD);
  await deploy(kl, 'acme', parentSpec(NARROW));
  await kl.writs.trust(
    'acme',
    k.delegation.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    'ops@acme',
  );
  const [ok] = (await kl.events.emit('acme', EVENT, { writ: rootWrit(k.root) })).runs;
  assert.equal(ok!.status, 'completed', 'the stored key verifies the child chain');

  const second = rootWrit(k.root, { id: 'second-root' });
  const [waiting] = (await kl.events.emit('acme', { ...EVENT, id: 'e2' }, { writ: second, walk: 'enqueue' }))
    .runs;
  const root = (await kl.runs.entries('acme', waiting!.runId))[0]!.payload as PayloadOf<'run.started'>;
  await kl.writs.revoke('acme', root.writ!.hash, 'ops@acme');
  const done = await kl.runs.recover('acme', waiting!.runId);
  assert.equal(done.status, 'refused');
  const childId = childRunIdFor('acme', waiting!.runId, 'hand', 1);
  await assert.rejects(kl.runs.get('acme', childId), /not found/);
});
