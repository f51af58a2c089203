import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { hashOf } from '../core/canonical/index.ts';
import { isKeelError } from '../core/errors.ts';
import { decodeEntry, payloadOf, type StoredEntry, verifyLedger } from '../core/ledger/index.ts';
import { specHash, type WorkflowSpec } from '../core/spec/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy, fakeSources, spyTool, withStoreFile } from '../testing/index.ts';
import { replayRun } from './replay.ts';

const SPEC = `
id: secrets
version: 1
status: AUTONOMOUS
env: [API_TOKEN, REGION]
triggers: [{event: go}]
steps:
  - {name: call, tool: call, args: {token: "{{env.API_TOKEN}}", region: "{{env.REGION}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;
const CLEAR = 'tok-Zr9-very-secret';
const EXPOSED = { exposeEnv: { '*': ['API_TOKEN', 'REGION'] } };

const go = (id: string) => ({ id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });

async function drawnOf(keel: ReturnType<typeof createKeel>, tenant: string, runId: string) {
  const entries = await keel.runs.entries(tenant, runId);
  return entries.filter((e) => e.kind === 'source.drawn').map((e) => payloadOf(e, 'source.drawn'));
}

test('a secret env value is ledgered as a keyed hash under its tenant key, never in clear, and the tool still receives it', async () => {
  const call = spyTool('call');
  const keel = createKeel({
    store: ':memory:',
    tools: [call],
    sources: fakeSources({ env: { API_TOKEN: CLEAR, REGION: 'eu' } }),
    ...EXPOSED,
  });
  await deploy(keel, 't1', SPEC);
  await deploy(keel, 't2', SPEC);
  const [run] = (await keel.events.emit('t1', go('s'))).runs;
  assert.equal(run!.status, 'completed');
  assert.equal(call.calls[0]!.args.token, CLEAR);
  const key = Buffer.from(await keel.store.keys.secretKey('t1', new Uint8Array(32))).toString('hex');
  const stored = await keel.runs.storedEntries('t1', run!.runId);
  for (const e of stored) {
    const text = Buffer.from(e.payload).toString('utf8');
    assert.ok(!text.includes(CLEAR), `clear secret in ${e.kind}`);
    assert.ok(!text.includes(key), `the tenant's secret key in ${e.kind}`);
  }
  const drawn = await drawnOf(keel, 't1', run!.runId);
  const secret = drawn.find((d) => d.name === 'API_TOKEN')?.value as { $secret: string; env: string };
  assert.equal(secret.env, 'API_TOKEN');
  assert.match(secret.$secret, /^hmac-sha256:[0-9a-f]{64}$/);
  assert.notEqual(secret.$secret, hashOf(CLEAR), 'not the plain hash anyone could compute from a guess');
  assert.equal(drawn.find((d) => d.name === 'REGION')?.value, 'eu', 'a plain env value is recorded as is');
  // Another tenant's key gives the same value another hash: ledgers of two tenants cannot be matched up.
  const [other] = (await keel.events.emit('t2', go('s'))).runs;
  const otherSecret = (await drawnOf(keel, 't2', other!.runId)).find((d) => d.name === 'API_TOKEN')?.value;
  assert.notEqual((otherSecret as { $secret: string }).$secret, secret.$secret);
  // The spy echoes its arguments: the secret it was given is masked in the recorded output.
  const entries = await keel.runs.entries('t1', run!.runId);
  const completed = payloadOf(entries.find((e) => e.kind === 'step.completed')!, 'step.completed');
  assert.deepEqual((completed.output as { echo: unknown }).echo, {
    region: 'eu',
    token: '[secret API_TOKEN]',
  });
  // The run still replays identically from the record alone.
  assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
  await keel.close();
});

test('a secret that changed between the draw and the call fails the step instead of using another value', async () => {
  const env: Record<string, string> = { API_TOKEN: CLEAR, REGION: 'eu' };
  const call = spyTool('call', {
    handler: () => ({ ok: true }),
  });
  const sources = fakeSources({ env });
  // The env changes as soon as it has been read once for the draw.
  const get = sources.env.get;
  let reads = 0;
  sources.env.get = (name) => (name === 'API_TOKEN' && reads++ > 0 ? 'rotated' : get(name));
  const keel = createKeel({ store: ':memory:', tools: [call], sources, ...EXPOSED });
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('s2'))).runs;
  assert.equal(run!.status, 'failed');
  assert.equal(call.calls.length, 0);
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(payloadOf(failed, 'step.failed').error.code, 'secret_changed');
  await keel.close();
});

test("a secret in a tool's error message is masked before the failure is ledgered", async () => {
  const call = spyTool('call', {
    handler: (args) => {
      throw new Error(`upstream refused token ${String(args.token)} for region ${String(args.region)}`);
    },
  });
  const keel = createKeel({
    store: ':memory:',
    tools: [call],
    sources: fakeSources({ env: { API_TOKEN: CLEAR, REGION: 'eu' } }),
    ...EXPOSED,
  });
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('s3'))).runs;
  assert.equal(run!.status, 'failed');
  assert.equal(call.calls[0]!.args.token, CLEAR, 'the tool was called with the clear value');
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(
    payloadOf(failed, 'step.failed').error.message,
    'upstream refused token [secret API_TOKEN] for region eu',
  );
  for (const e of await keel.runs.storedEntries('t1', run!.runId))
    assert.ok(!Buffer.from(e.payload).toString('utf8').includes(CLEAR), `clear secret in ${e.kind}`);
  for (const line of await keel.runs.history('t1', run!.runId)) assert.ok(!line.text.includes(CLEAR));
  await keel.close();
});

test('a whole-value secret passes a tool schema typed string; its value is checked against the schema at the call', async () => {
  const typed = {
    type: 'object',
    required: ['token', 'region'],
    properties: { token: { type: 'string', minLength: 12 }, region: { type: 'string' } },
  };
  const run = async (token: string) => {
    const call = spyTool('call', { args: typed });
    const keel = createKeel({
      store: ':memory:',
      tools: [call],
      sources: fakeSources({ env: { API_TOKEN: token, REGION: 'eu' } }),
      ...EXPOSED,
    });
    await deploy(keel, 't1', SPEC);
    const [r] = (await keel.events.emit('t1', go('typed'))).runs;
    const entries = await keel.runs.entries('t1', r!.runId);
    await keel.close();
    return { status: r!.status, calls: call.calls.length, entries };
  };
  const ok = await run(CLEAR);
  assert.equal(ok.status, 'completed');
  assert.equal(ok.calls, 1);
  // Too short for minLength: refused at the call, the tool never called, the value never shown.
  const short = await run('tok-short');
  assert.equal(short.status, 'failed');
  assert.equal(short.calls, 0);
  const failed = payloadOf(short.entries.find((e) => e.kind === 'step.failed')!, 'step.failed');
  assert.equal(failed.error.code, 'invalid_arguments');
  assert.match(failed.error.message, /^token: out of range \(expected minLength 12\)$/);
});

test('a secret placed inside a text is refused at validate and publish, naming the secret', async () => {
  const keel = createKeel({ store: ':memory:', tools: [spyTool('call')], ...EXPOSED });
  const spec = SPEC.replace('token: "{{env.API_TOKEN}}"', 'auth: "Bearer {{env.API_TOKEN}}"');
  for (const attempt of [
    () => keel.workflows.validate(spec, 'bearer.yaml'),
    () => keel.workflows.publish('t1', spec, 'bearer.yaml', 'dana'),
  ]) {
    await assert.rejects(
      async () => attempt(),
      (e: unknown) => {
        assert.ok(isKeelError(e) && e.code === 'spec_invalid');
        const [p] = e.details.problems as { field: string; message: string; line?: number }[];
        assert.equal(p!.field, 'steps[0].args.auth');
        assert.match(p!.message, /env\.API_TOKEN is a secret .* cannot be put into text/);
        assert.equal(p!.line, 8);
        return true;
      },
    );
  }
  assert.deepEqual(await keel.workflows.list('t1'), []);
  // A name that is not a secret can be put into text.
  const plain = SPEC.replace('region: "{{env.REGION}}"', 'region: "region-{{env.REGION}}"');
  assert.equal(keel.workflows.validate(plain, 'plain.yaml').spec.id, 'secrets');
  await keel.close();
});

test('a spec naming a variable not exposed to its tenant is refused at publish; a stored one reads it as unset, never asking the process', async () => {
  await withStoreFile('secrets-exposure', async (path) => {
    const env = { API_TOKEN: CLEAR, REGION: 'eu' };
    const asked: string[] = [];
    const sources = fakeSources({ env });
    const get = sources.env.get;
    sources.env.get = (name) => {
      asked.push(name);
      return get(name);
    };
    // Only REGION is exposed to t1: publishing the spec is refused, naming API_TOKEN and how to expose it.
    const narrow = createKeel({
      store: path,
      tools: [spyTool('call')],
      sources,
      exposeEnv: { t1: ['REGION'] },
    });
    await assert.rejects(narrow.workflows.publish('t1', SPEC, 'spec.yaml', 'dana'), (e: unknown) => {
      assert.ok(isKeelError(e) && e.code === 'spec_invalid');
      assert.match(e.message, /env\[0\]: env\.API_TOKEN is not exposed to tenant t1/);
      assert.match(e.message, /--expose-env t1=API_TOKEN/);
      assert.equal((e.details.problems as unknown[]).length, 1, 'REGION is exposed');
      return true;
    });
    await narrow.close();
    // Published where both were exposed, then run by a Keel exposing only REGION: API_TOKEN is unset.
    const wide = createKeel({ store: path, tools: [spyTool('call')], sources, ...EXPOSED });
    await deploy(wide, 't1', SPEC);
    await wide.close();
    const call = spyTool('call');
    const runner = createKeel({ store: path, tools: [call], sources, exposeEnv: { t1: ['REGION'] } });
    const [run] = (await runner.events.emit('t1', go('narrow'))).runs;
    assert.equal(run!.status, 'completed');
    assert.equal(call.calls[0]!.args.token, null);
    assert.equal(call.calls[0]!.args.region, 'eu');
    assert.deepEqual(
      [...new Set(asked)],
      ['REGION'],
      'the process environment was never asked for API_TOKEN',
    );
    await runner.close();
  });
});

test('createKeel({ isSecretEnv }) decides which names are secrets, at validate time and in the ledger', async () => {
  const call = spyTool('call');
  const keel = createKeel({
    store: ':memory:',
    tools: [call],
    sources: fakeSources({ env: { API_TOKEN: CLEAR, REGION: 'eu' } }),
    isSecretEnv: (name) => name === 'REGION',
    ...EXPOSED,
  });
  // REGION is now the secret: it cannot go into text, and API_TOKEN (no longer one) can.
  assert.throws(
    () => keel.workflows.validate(SPEC.replace('"{{env.REGION}}"', '"in {{env.REGION}}"'), 'x.yaml'),
    /env\.REGION is a secret/,
  );
  await deploy(keel, 't1', SPEC);
  const [run] = (await keel.events.emit('t1', go('custom'))).runs;
  assert.equal(run!.status, 'completed');
  const drawn = await drawnOf(keel, 't1', run!.runId);
  assert.equal(drawn.find((d) => d.name === 'API_TOKEN')?.value, CLEAR);
  assert.match(
    (drawn.find((d) => d.name === 'REGION')!.value as { $secret: string }).$secret,
    /^hmac-sha256:/,
  );
  assert.deepEqual(call.calls[0]!.args, { region: 'eu', token: CLEAR });
  await keel.close();
});

test('a version that puts a secret into text (published before the name counted as one) is refused at run time naming the secret', async () => {
  await withStoreFile('secrets-in-text', async (path) => {
    const spec = SPEC.replace('token: "{{env.API_TOKEN}}"', 'auth: "Bearer {{env.API_TOKEN}}"');
    const sources = fakeSources({ env: { API_TOKEN: CLEAR, REGION: 'eu' } });
    const before = createKeel({
      store: path,
      tools: [spyTool('call')],
      sources,
      isSecretEnv: () => false,
      ...EXPOSED,
    });
    await deploy(before, 't1', spec);
    await before.close();
    const call = spyTool('call');
    const keel = createKeel({ store: path, tools: [call], sources, ...EXPOSED });
    const [run] = (await keel.events.emit('t1', go('in-text'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(call.calls.length, 0);
    assert.match(run!.reason!, /is the secret API_TOKEN, which cannot be put into text/);
    for (const e of await keel.runs.storedEntries('t1', run!.runId))
      assert.ok(!Buffer.from(e.payload).toString('utf8').includes(CLEAR), `clear secret in ${e.kind}`);
    await keel.close();
  });
});

// Ledgers recorded before keyed hashes: secrets as the plain SHA-256 of their value.
interface LegacyRun {
  readonly name: string;
  readonly spec: WorkflowSpec;
  readonly entries: (Omit<StoredEntry, 'payload'> & { payload: string })[];
}
const legacy = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'legacy', 'secret-plain-hash.json'),
    'utf8',
  ),
) as { tenant: string; env: Record<string, string>; runs: LegacyRun[] };
const legacyRun = (name: string) => {
  const r = legacy.runs.find((x) => x.name === name)!;
  const entries = r.entries.map((e) => ({ ...e, payload: Buffer.from(e.payload, 'utf8') }));
  const version = {
    tenant: legacy.tenant,
    workflowId: r.spec.id,
    version: r.spec.version,
    specHash: specHash(r.spec),
    spec: r.spec,
    status: 'LIVE' as const,
    publishedAt: '2026-01-05T09:00:00.000Z',
    publishedBy: 'dana',
  };
  return { entries, version };
};

/** Puts a recorded run into a store as it was: its version, its entries, its pending approval. */
async function importRun(store: Store, name: string): Promise<string> {
  const { entries, version } = legacyRun(name);
  await store.registry.putVersion(version);
  const decoded = entries.map(decodeEntry);
  const root = payloadOf(decoded[0]!, 'run.started');
  // The approvals table holds the request only while the run waits for it (verify checks that).
  const waiting = decoded.at(-1)!.kind === 'approval.requested';
  const asked = waiting ? decoded.at(-1) : undefined;
  const request = asked && payloadOf(asked, 'approval.requested');
  await store.ledger.append({
    tenant: legacy.tenant,
    runId: decoded[0]!.runId,
    expectedHead: null,
    entries,
    status: decoded.at(-1)!.kind === 'run.finished' ? 'completed' : 'waiting_approval',
    create: {
      workflowId: version.workflowId,
      version: version.version,
      specHash: version.specHash,
      eventId: root.event.id,
      eventType: root.event.type,
    },
    ...(request && asked
      ? {
          openApproval: {
            tenant: legacy.tenant,
            runId: decoded[0]!.runId,
            proposalId: request.proposalId,
            step: request.step,
            tool: request.tool,
            args: request.args,
            reason: request.reason,
            channel: request.channel,
            requestedAt: asked.at,
          },
        }
      : {}),
  });
  return decoded[0]!.runId;
}

test('a ledger recorded with plain secret hashes still verifies and replays identically', async () => {
  const { entries, version } = legacyRun('completed');
  const drawn = entries
    .filter((e) => e.kind === 'source.drawn')
    .map((e) => Buffer.from(e.payload).toString());
  assert.ok(
    drawn.some((p) => /"API_TOKEN".*"\$secret":"sha256:/.test(p)),
    'recorded with the plain hash',
  );
  const runId = entries[0]!.runId;
  assert.equal(verifyLedger(runId, entries).ok, true);
  const keel = createKeel({ store: ':memory:', tools: [spyTool('call', { destructive: true })] });
  assert.deepEqual(await replayRun(entries, version, keel.tools), {
    identical: true,
    runId,
    entries: entries.length,
  });
  // Imported into a store, `verify` and `replay` agree.
  await importRun(keel.store, 'completed');
  assert.equal((await keel.runs.verify(legacy.tenant, runId)).ok, true);
  assert.equal((await keel.runs.replay(legacy.tenant, runId)).identical, true);
  await keel.close();
});

test('a run waiting for approval with a plain-hashed secret continues once approved; a changed value is still caught', async () => {
  for (const [value, expected] of [
    [legacy.env.API_TOKEN!, 'completed'],
    ['rotated-since', 'failed'],
  ] as const) {
    const call = spyTool('call', { destructive: true });
    const keel = createKeel({
      store: ':memory:',
      tools: [call],
      sources: fakeSources({ env: { ...legacy.env, API_TOKEN: value } }),
      exposeEnv: { [legacy.tenant]: ['API_TOKEN', 'REGION'] },
    });
    const runId = await importRun(keel.store, 'waiting');
    const after = await keel.approvals.approve(legacy.tenant, runId, 'dana');
    assert.equal(after.status, expected);
    const entries = await keel.runs.entries(legacy.tenant, runId);
    if (expected === 'completed') {
      assert.equal(call.calls[0]!.args.token, legacy.env.API_TOKEN);
    } else {
      assert.equal(call.calls.length, 0);
      const failed = entries.find((e) => e.kind === 'step.failed')!;
      assert.equal(payloadOf(failed, 'step.failed').error.code, 'secret_changed');
    }
    assert.equal((await keel.runs.verify(legacy.tenant, runId)).ok, true);
    await keel.close();
  }
});
