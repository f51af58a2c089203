/**
 * Writ trust in the store, wired into real runs (SQLite files, spies counting calls on the tool
 * side): a tenant's stored keys are trusted beside its configured ones, a retired key stops
 * trusting; revoking a writ (or an ancestor of it) refuses the next proposal of a running run with
 * `writ_revoked` — in this process at once, and after a restart — and a revoked writ starts no run.
 * Other tenants are unaffected.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PayloadOf } from '../core/ledger/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { attenuate, signWrit, writHash } from '../core/writs/index.ts';
import { deploy, fakeSources, type SpyTool, spyTool, withStoreFile } from '../testing/index.ts';
import { createKeel, type KeelConfig } from './keel.ts';

const SPEC = `id: w
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: tool_a}
  - {name: b, tool: tool_b}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

const EVENT = { id: 'e1', type: 'go', time: '2026-03-15T00:00:00Z', payload: {} };
const MARCH = Date.UTC(2026, 2, 15, 12);
const ASK_B = parsePolicy(
  'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
  'p.yaml',
);

function tools(): { a: SpyTool; b: SpyTool } {
  return { a: spyTool('tool_a'), b: spyTool('tool_b') };
}

function open(path: string, t: ReturnType<typeof tools>, o: Partial<KeelConfig> = {}) {
  return createKeel({ store: path, tools: [t.a, t.b], sources: fakeSources({ start: MARCH }), ...o });
}

const pem = (k: ReturnType<typeof keyPair>) => k.publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** A root and a child writ of `tenant`, signed by `k`. */
function chainFor(k: ReturnType<typeof keyPair>, tenant = 'acme') {
  const root = signedRoot(k, { tenant, scopes: ['*'] });
  const c = attenuate(root.body, { id: 'child', subject: 'x', issuer: k.trusted.keyId }, root.body.budget);
  assert.ok(c.ok);
  return { root, child: signWrit(c.body, k.privateKey), chain: [root, signWrit(c.body, k.privateKey)] };
}

const refusedWith = (code: string) => (e: unknown) =>
  (e as { code?: string }).code === 'writ_refused' &&
  (e as { details: { code?: string } }).details.code === code;

test('a stored key is trusted beside the configured ones; a retired one no longer admits a writ', async () => {
  await withStoreFile('keel-trust', async (path) => {
    const k = keyPair('acme');
    const t = tools();
    const keel = open(path, t);
    await deploy(keel, 'acme', SPEC);
    const { chain } = chainFor(k);
    await assert.rejects(
      keel.events.emit('acme', EVENT, { writ: chain }),
      refusedWith('writ_chain_untrusted'),
    );
    // The refusal claimed nothing: the event is not named in the index, so it is delivered afresh.
    assert.equal(await keel.events.delivered('acme', 'library', EVENT.id), undefined);

    const added = await keel.writs.trust('acme', pem(k), 'ops@acme');
    assert.equal(added.created, true);
    assert.equal(added.record.keyId, k.trusted.keyId);
    assert.equal((await keel.writs.trust('acme', pem(k), 'ops@acme')).created, false);
    assert.equal((await keel.writs.inspect('acme', { chain })).verified, true);
    assert.equal((await keel.writs.inspect('globex', { chain })).verified, false, 'trust is per tenant');

    const delivered = await keel.events.emit('acme', EVENT, { writ: { chain } });
    assert.equal(delivered.redelivery, undefined, 'a first delivery');
    const [run] = delivered.runs;
    assert.equal(run!.status, 'completed');
    assert.equal(t.b.calls.length, 1);

    const retired = await keel.writs.untrust('acme', k.trusted.keyId);
    assert.ok(retired.retiredAt);
    assert.equal((await keel.writs.trusted('acme')).length, 1, 'a retired key is kept');
    await assert.rejects(keel.writs.untrust('globex', k.trusted.keyId), /not found/);
    const again = { ...EVENT, id: 'e2' };
    await assert.rejects(
      keel.events.emit('acme', again, { writ: chain }),
      refusedWith('writ_chain_untrusted'),
    );
    // Replay judges as the record did: with the key the run was walked under, retired since.
    assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    await keel.close();
  });
});

test('revoking the parent refuses a running child-writ run at its next proposal (spy 0), also after a restart', async () => {
  await withStoreFile('keel-trust', async (path) => {
    const k = keyPair('acme');
    const g = keyPair('globex');
    const t = tools();
    const keel = open(path, t, { policies: { acme: ASK_B, globex: ASK_B } });
    await keel.writs.trust('acme', pem(k), 'ops@acme');
    await keel.writs.trust('globex', pem(g), 'ops@globex');
    await deploy(keel, 'acme', SPEC);
    await deploy(keel, 'globex', SPEC);
    const acme = chainFor(k);
    const globex = chainFor(g, 'globex');
    const [first] = (await keel.events.emit('acme', EVENT, { writ: { chain: acme.chain } })).runs;
    const [second] = (await keel.events.emit('acme', { ...EVENT, id: 'e2' }, { writ: acme.chain })).runs;
    const [other] = (await keel.events.emit('globex', EVENT, { writ: globex.chain })).runs;
    for (const r of [first, second, other]) assert.equal(r!.status, 'waiting_approval');
    assert.equal(t.a.calls.length, 3);

    // The same hash revoked in globex touches nothing of acme's, and vice versa.
    const revoked = await keel.writs.revoke('acme', writHash(acme.root), 'sec@acme', 'key leaked');
    assert.equal(revoked.created, true);
    assert.equal(revoked.record.reason, 'key leaked');
    assert.equal((await keel.writs.inspect('acme', acme.chain)).refusal?.code, 'writ_revoked');

    // In this process: at once (the write refreshed the cache).
    const r1 = await keel.approvals.approve('acme', first!.runId, 'ops@acme');
    assert.equal(r1.status, 'refused');
    assert.equal(t.b.calls.length, 0);
    const refused = (await keel.runs.entries('acme', first!.runId)).find((e) => e.kind === 'step.refused')!
      .payload as PayloadOf<'step.refused'>;
    assert.equal(refused.check, 'writ');
    assert.equal(refused.code, 'writ_revoked');
    assert.equal(refused.writ?.hash, writHash(acme.child));
    await keel.close();

    // After a restart: a new process reads the revocation from the store.
    const t2 = tools();
    const restarted = open(path, t2, { policies: { acme: ASK_B, globex: ASK_B } });
    const r2 = await restarted.approvals.approve('acme', second!.runId, 'ops@acme');
    assert.equal(r2.status, 'refused');
    assert.equal(t2.b.calls.length, 0);
    const codes = (await restarted.runs.entries('acme', second!.runId))
      .filter((e) => e.kind === 'step.refused')
      .map((e) => (e.payload as PayloadOf<'step.refused'>).code);
    assert.deepEqual(codes, ['writ_revoked']);

    // Another tenant is unaffected.
    const r3 = await restarted.approvals.approve('globex', other!.runId, 'ops@globex');
    assert.equal(r3.status, 'completed');
    assert.equal(t2.b.calls.length, 1);

    // A revoked chain starts no run: neither the child nor the revoked root itself.
    const before = (await restarted.runs.list('acme')).runs.length;
    await assert.rejects(
      restarted.events.emit('acme', { ...EVENT, id: 'e3' }, { writ: acme.chain }),
      refusedWith('writ_revoked'),
    );
    await assert.rejects(
      restarted.runs.start('acme', 'w', { ...EVENT, id: 'e4' }, { writ: [acme.root] }),
      refusedWith('writ_revoked'),
    );
    assert.equal((await restarted.runs.list('acme')).runs.length, before);
    assert.equal(t2.a.calls.length, 0);
    // The recorded decisions replay alike: replay judges without revocations, as the record did.
    assert.equal((await restarted.runs.replay('acme', first!.runId)).identical, true);
    await restarted.close();
  });
});

test('revocation reaches a run a worker claims: the claimed walk refuses writ_revoked', async () => {
  await withStoreFile('keel-trust', async (path) => {
    const k = keyPair('acme');
    const t = tools();
    const keel = open(path, t, { walk: 'enqueue' });
    await keel.writs.trust('acme', pem(k), 'ops@acme');
    await deploy(keel, 'acme', SPEC);
    const { chain, child } = chainFor(k);
    const [run] = (await keel.events.emit('acme', EVENT, { writ: chain })).runs;
    assert.equal(run!.status, 'running');
    assert.equal(t.a.calls.length, 0);
    // Revoked by another process (its own Keel on the same store) before a worker claims the run.
    const admin = open(path, tools());
    await admin.writs.revoke('acme', { chain }, 'sec@acme');
    await admin.close();
    assert.equal((await keel.writs.revoked('acme'))[0]?.hash, writHash(child));
    const [claimed] = await keel.store.queue.claimRuns('w1', 60_000, 10, Date.now());
    assert.equal(claimed?.runId, run!.runId);
    // A fresh process (as a worker is) reads the store; this one's cache is older than nothing yet.
    const worker = open(path, t);
    const done = await worker.engine.recover('acme', run!.runId, { entries: claimed!.entries });
    assert.equal(done.status, 'refused');
    assert.equal(t.a.calls.length, 0);
    await worker.close();
    await keel.close();
  });
});
