/**
 * Policies and writs wired into real runs (SQLite files, spies counting calls on the tool side):
 * a denied proposal never reaches its tool and the ledger holds the decision with its trace; the
 * writ budget is folded from the ledger, so a restart cannot reset it; expiry is read through the
 * injected clock; a writ without its chain to the tenant's trusted root creates no run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PayloadOf } from '../core/ledger/index.ts';
import { parsePolicy } from '../core/policy/index.ts';
import { keyPair, signedRoot } from '../core/writs/fixtures.test-helpers.ts';
import { attenuate, signWrit } from '../core/writs/index.ts';
import { deploy, fakeSources, type SpyTool, spyTool, withStoreFile } from '../testing/index.ts';
import { createKeel, type KeelConfig } from './keel.ts';

const SPEC = `id: w
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - {name: a, tool: tool_a}
  - {name: b, tool: tool_b}
  - {name: c, tool: tool_c}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

const EVENT = { id: 'e1', type: 'go', time: '2026-03-15T00:00:00Z', payload: {} };
const MARCH = Date.UTC(2026, 2, 15, 12);

function tools(): { a: SpyTool; b: SpyTool; c: SpyTool } {
  return { a: spyTool('tool_a'), b: spyTool('tool_b'), c: spyTool('tool_c') };
}

function open(path: string, t: ReturnType<typeof tools>, o: Partial<KeelConfig> = {}) {
  return createKeel({
    store: path,
    tools: [t.a, t.b, t.c],
    sources: fakeSources({ start: MARCH }),
    ...o,
  });
}

test('a policy-denied proposal never reaches its tool; the ledger holds the decision and its trace', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const policy = parsePolicy(
      'rules:\n  - {id: no-c, match: {tool: tool_c}, outcome: deny, reason: c is off limits}\n  - {id: rest, match: {tool: "*"}, outcome: allow}\n',
      'p.yaml',
    );
    const t = tools();
    const keel = open(path, t, { policies: { acme: policy } });
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT)).runs;
    assert.equal(run!.status, 'refused');
    assert.deepEqual([t.a.calls.length, t.b.calls.length, t.c.calls.length], [1, 1, 0]);
    const entries = await keel.runs.entries('acme', run!.runId);
    const refused = entries.find((e) => e.kind === 'step.refused')!.payload as PayloadOf<'step.refused'>;
    assert.equal(refused.check, 'policy');
    assert.equal(refused.code, 'policy_denied');
    // The root pins the policy by hash; each decision names only its outcome, rule and trace.
    assert.equal((entries[0]!.payload as PayloadOf<'run.started'>).policy, policy.hash);
    assert.deepEqual(refused.policy, {
      outcome: 'deny',
      rule: 'no-c',
      trace: [{ rule: 'no-c', outcome: 'deny' }],
    });
    const history = (await keel.runs.history('acme', run!.runId)).map((l) => l.text);
    const allowedA = history.findIndex((l) => /^Allowed tool_a.*policy rule rest allowed it/.test(l));
    const ranA = history.findIndex((l) => l.startsWith('Ran tool_a'));
    assert.ok(allowedA >= 0 && allowedA < ranA, history.join('\n'));
    assert.match(
      history.find((l) => l.startsWith('Refused tool_c'))!,
      /c is off limits \(1 policy rule consulted/,
    );
    // The policy reads the entry clock, which replay serves from the record: the replay agrees.
    assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    assert.equal((await keel.runs.verify('acme', run!.runId)).ok, true);
    await keel.close();
  });
});

test('a third tool call on a 2-call writ is refused after a restart, from the ledger', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const k = keyPair('acme');
    const writ = { chain: [signedRoot(k, { scopes: ['*'], budget: { cents: 0, steps: 5, calls: 2 } })] };
    const policy = parsePolicy(
      'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
      'p.yaml',
    );
    const config = { policies: { acme: policy }, trustedKeys: { acme: [k.publicKey] } };
    const first = tools();
    const keel = open(path, first, config);
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT, { writ })).runs;
    assert.equal(run!.status, 'waiting_approval');
    const root = (await keel.runs.entries('acme', run!.runId))[0]!.payload as PayloadOf<'run.started'>;
    assert.equal(JSON.parse((await keel.store.keys.getWritChain('acme', root.writ!.hash))!).length, 1);
    await keel.close();

    // A Keel that trusts no key of the tenant cannot walk the run: thrown, and nothing is written.
    const untrusting = open(path, tools(), { policies: config.policies });
    const before = (await untrusting.runs.entries('acme', run!.runId)).length;
    await assert.rejects(
      untrusting.approvals.approve('acme', run!.runId, 'ops@acme'),
      (e: unknown) => (e as { details?: { field?: string } }).details?.field === 'trustedKeys',
    );
    assert.equal((await untrusting.runs.entries('acme', run!.runId)).length, before);
    // Nor replay it: the missing key is named as what this process lacks, never called a divergence.
    await assert.rejects(untrusting.runs.replay('acme', run!.runId), (e: unknown) => {
      const err = e as { code?: string; details?: { missing?: unknown } };
      assert.equal(err.code, 'replay_unavailable', String(e));
      assert.deepEqual(err.details?.missing, { trustedKeys: true });
      return true;
    });
    await untrusting.close();

    const second = tools();
    const reopened = open(path, second, config);
    const after = await reopened.approvals.approve('acme', run!.runId, 'ops@acme');
    assert.equal(after.status, 'refused');
    assert.deepEqual([first.a.calls.length, second.b.calls.length, second.c.calls.length], [1, 1, 0]);
    const entries = await reopened.runs.entries('acme', run!.runId);
    const refused = entries.at(-2)!.payload as PayloadOf<'step.refused'>;
    assert.equal(refused.check, 'writ');
    assert.equal(refused.code, 'writ_budget_exhausted');
    assert.equal(refused.writ?.hash, root.writ?.hash);
    assert.match(refused.message, /allows 2 tool calls and 2 were made/);
    assert.equal((await reopened.runs.replay('acme', run!.runId)).identical, true);
    await reopened.close();
  });
});

test('an expired writ refuses the first proposal with writ_expired, read through the injected clock', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const k = keyPair('acme');
    const writ = [signedRoot(k, { scopes: ['*'] })];
    const t = tools();
    const keel = open(path, t, {
      trustedKeys: { acme: [k.publicKey.export({ type: 'spki', format: 'pem' }).toString()] },
      sources: fakeSources({ start: Date.UTC(2026, 3, 1) }),
    });
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT, { writ })).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(t.a.calls.length, 0);
    const refused = (await keel.runs.entries('acme', run!.runId)).find((e) => e.kind === 'step.refused')!
      .payload as PayloadOf<'step.refused'>;
    assert.equal(refused.code, 'writ_expired');
    assert.match(refused.message, /expired at 2026-04-01T00:00:00Z/);
    await keel.close();
  });
});

test("another tenant's writ, or a child without its chain to a trusted root, creates no run", async () => {
  await withStoreFile('keel-gov', async (path) => {
    const acme = keyPair('acme');
    const globex = keyPair('globex');
    const t = tools();
    const keel = open(path, t, { trustedKeys: { acme: [acme.publicKey], globex: [globex.publicKey] } });
    await deploy(keel, 'acme', SPEC);
    const refusedWith = (code: string) => (e: unknown) =>
      (e as { code?: string }).code === 'writ_refused' &&
      (e as { details: { code?: string } }).details.code === code;

    const foreign = [signedRoot(globex, { tenant: 'globex', scopes: ['*'] })];
    await assert.rejects(
      keel.events.emit('acme', EVENT, { writ: foreign }),
      refusedWith('writ_chain_untrusted'),
    );

    const root = signedRoot(acme, { scopes: ['*'] });
    const child = attenuate(
      root.body,
      { id: 'child', subject: 'x', issuer: acme.trusted.keyId },
      root.body.budget,
    );
    assert.ok(child.ok);
    const alone = [signWrit(child.body, acme.privateKey)];
    await assert.rejects(
      keel.runs.start('acme', 'w', EVENT, { writ: { chain: alone } }),
      refusedWith('writ_chain_untrusted'),
    );
    assert.deepEqual((await keel.runs.list('acme')).runs, []);
    assert.equal(t.a.calls.length, 0);
    await keel.close();
  });
});

test('an approval given after the writ expired executes nothing and records why', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const k = keyPair('acme');
    const writ = [signedRoot(k, { scopes: ['*'] })]; // valid until 2026-04-01T00:00:00Z
    const policy = parsePolicy(
      'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
      'p.yaml',
    );
    const sources = fakeSources({ start: Date.UTC(2026, 2, 31, 23) });
    const t = tools();
    const keel = open(path, t, { policies: { acme: policy }, trustedKeys: { acme: [k.publicKey] }, sources });
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT, { writ })).runs;
    assert.equal(run!.status, 'waiting_approval');
    sources.advance(2 * 3600_000); // the approver answers after the writ's window closed

    const after = await keel.approvals.approve('acme', run!.runId, 'ops@acme');
    assert.equal(after.status, 'refused');
    assert.deepEqual([t.a.calls.length, t.b.calls.length, t.c.calls.length], [1, 0, 0]);
    const entries = await keel.runs.entries('acme', run!.runId);
    assert.deepEqual(
      entries.slice(-3).map((e) => e.kind),
      ['approval.resolved', 'step.refused', 'run.finished'],
    );
    const refused = entries.at(-2)!;
    const p = refused.payload as PayloadOf<'step.refused'>;
    assert.equal(p.check, 'writ');
    assert.equal(p.code, 'writ_expired');
    assert.match(p.message, /expired at 2026-04-01T00:00:00Z/);
    // Judged at the time the refusal records (the clock at approval), not the time of the request.
    assert.ok(refused.at >= '2026-04-01T00:00:00Z', refused.at);
    assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    assert.equal((await keel.runs.verify('acme', run!.runId)).ok, true);
    await keel.close();
  });
});

test("an approval is re-judged by the policy at the approval's time: a deny that now applies refuses", async () => {
  await withStoreFile('keel-gov', async (path) => {
    const policy = parsePolicy(
      `default: allow
rules:
  - {id: b-after-hours, match: {tool: tool_b}, when: clock.hour >= 18, outcome: deny, reason: not after hours}
  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}
`,
      'p.yaml',
    );
    const sources = fakeSources({ start: MARCH }); // 12:00 UTC
    const t = tools();
    const keel = open(path, t, { policies: { acme: policy }, sources });
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT)).runs;
    assert.equal(run!.status, 'waiting_approval');
    sources.advance(7 * 3600_000);
    assert.equal((await keel.approvals.approve('acme', run!.runId, 'ops@acme')).status, 'refused');
    assert.equal(t.b.calls.length, 0);
    const refused = (await keel.runs.entries('acme', run!.runId)).at(-2)!
      .payload as PayloadOf<'step.refused'>;
    assert.equal(refused.code, 'policy_denied');
    assert.deepEqual(refused.policy?.trace, [{ rule: 'b-after-hours', outcome: 'deny' }]);
    assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    await keel.close();
  });
});

test('a run is judged by the policy it started under; a process without that policy refuses to guess', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const before = parsePolicy(
      'default: allow\nrules:\n  - {id: ask-b, match: {tool: tool_b}, outcome: require_approval}\n',
      'before.yaml',
    );
    const now = parsePolicy(
      'default: allow\nrules:\n  - {id: no-b, match: {tool: tool_b}, outcome: deny}\n',
      'now.yaml',
    );
    let current = before;
    const t = tools();
    const keel = open(path, t, { policies: () => current });
    await deploy(keel, 'acme', SPEC);
    const first = (await keel.events.emit('acme', EVENT)).runs[0]!;
    const second = (await keel.events.emit('acme', { ...EVENT, id: 'e2' })).runs[0]!;
    const root = (await keel.runs.entries('acme', first.runId))[0]!.payload as PayloadOf<'run.started'>;
    assert.equal(root.policy, before.hash);
    current = now; // the tenant's policy changes while both runs wait

    assert.equal((await keel.approvals.approve('acme', first.runId, 'ops@acme')).status, 'completed');
    assert.equal(t.b.calls.length, 1);
    const allowed = (await keel.runs.entries('acme', first.runId)).filter((e) => e.kind === 'step.allowed');
    // Judged by the pinned policy (`ask-b` decided tool_b), so no decision names another policy.
    const decisions = allowed.map((e) => (e.payload as PayloadOf<'step.allowed'>).policy);
    assert.deepEqual(
      decisions.map((d) => [d?.hash, d?.rule]),
      [
        [undefined, null],
        [undefined, 'ask-b'],
        [undefined, null],
      ],
    );
    // Replay serves the same decisions: it judges by the pinned policy, not the current one.
    assert.equal((await keel.runs.replay('acme', first.runId)).identical, true);
    const third = (await keel.events.emit('acme', { ...EVENT, id: 'e3' })).runs[0]!;
    assert.equal(third.status, 'refused'); // a new run starts under the new policy
    await keel.close();

    // A process that only knows the new policy does not judge the old run by it: nothing is written.
    const other = tools();
    const reopened = open(path, other, { policies: { acme: now } });
    const length = (await reopened.runs.entries('acme', second.runId)).length;
    await assert.rejects(
      reopened.approvals.approve('acme', second.runId, 'ops@acme'),
      (e: unknown) =>
        (e as { code?: string }).code === 'policy_unavailable' &&
        (e as { details: { policy?: string } }).details.policy === before.hash,
    );
    assert.equal((await reopened.runs.entries('acme', second.runId)).length, length);
    assert.equal(other.b.calls.length, 0);
    // Replaying it here is unavailable, naming the pinned policy this process lacks (not a divergence).
    await assert.rejects(reopened.runs.replay('acme', first.runId), (e: unknown) => {
      const err = e as { code?: string; details?: { missing?: unknown } };
      assert.equal(err.code, 'replay_unavailable', String(e));
      assert.deepEqual(err.details?.missing, { policy: before.hash });
      return true;
    });
    await reopened.close();
  });
});

test('a run started before its tenant had a policy is judged by the policy now, and each decision names it', async () => {
  await withStoreFile('keel-gov', async (path) => {
    const later = parsePolicy('default: allow\nrules: []\n', 'later.yaml');
    let current: ReturnType<typeof parsePolicy> | undefined;
    const t = { ...tools(), b: spyTool('tool_b', { destructive: true }) };
    const keel = open(path, t, { policies: () => current });
    await deploy(keel, 'acme', SPEC);
    const [run] = (await keel.events.emit('acme', EVENT)).runs;
    assert.equal(run!.status, 'waiting_approval'); // tool_b is destructive on a LIVE version
    const root = (await keel.runs.entries('acme', run!.runId))[0]!.payload as PayloadOf<'run.started'>;
    assert.equal(root.policy, undefined, 'no policy to pin when it started');
    current = later;
    assert.equal((await keel.approvals.approve('acme', run!.runId, 'ops@acme')).status, 'completed');
    const allowed = (await keel.runs.entries('acme', run!.runId)).filter((e) => e.kind === 'step.allowed');
    const judged = allowed.map((e) => (e.payload as PayloadOf<'step.allowed'>).policy?.hash);
    // tool_a was allowed with no policy; tool_b and tool_c by the policy now, named in each decision.
    assert.deepEqual(judged, [undefined, later.hash, later.hash]);
    await keel.close();
  });
});
