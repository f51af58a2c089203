/**
 * What OpenWOP's official scenarios check that Keel used to fail (issue 31 §2), against real
 * `keel serve` processes on real SQLite stores (and the audit surface and a rejection again on a
 * scratch PostgreSQL schema of KEEL_TEST_DATABASE_URL): bulk-cancel entries (v2: the error envelope; v1:
 * a cancelled run re-cancelled is ok) and a v1 cancel of a finished run (200, idempotent); the
 * audit-integrity surface (404 unless advertised; with `--checkpoint-key` advertised at both
 * majors, answered under a named contract in the closed audit-verify-result shape); a rejected
 * approval (RFC 0223: approval_rejected on the snapshot, node.failed and run.failed, failedNodeId,
 * action and decision on interrupt.resolved; the interrupt facet's tokenAlgs); and the `values`
 * stream mode (state.snapshot frames, one first on a resume) and `messages` (nothing of Keel's).
 */
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  dropSchema,
  openScratchStore,
  scratchSchemaName,
  testDatabaseUrl,
} from '../../src/adapters/postgres/index.ts';
import { Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const sandbox = new Sandbox('openwop-scenarios');
const plain = new Sandbox('openwop-scenarios-plain');
let server: KeelServer;
let bare: KeelServer;
let acme: string;
let plainKey: string;

before(async () => {
  acme = createKey(sandbox, 'acme');
  plainKey = createKey(plain, 'acme');
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  const keyFile = sandbox.write('checkpoint.pem', pem);
  [server, bare] = await Promise.all([
    KeelServer.start(sandbox, ['--checkpoint-key', keyFile, '--checkpoint-every', '1']),
    KeelServer.start(plain),
  ]);
});
after(async () => {
  await Promise.all([server?.stop(), bare?.stop()]);
  sandbox.remove();
  plain.remove();
});

interface Ev {
  sequence: number;
  type: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

const V2 = { 'OpenWOP-Version': '2' };
const terminal = (s: string) => ['completed', 'failed', 'cancelled'].includes(s);
const bound = (runId: string) => `/runs/${runId.replace('/', '~2F')}`;

async function create(workflowId: string, o: { v1?: boolean; inputs?: Record<string, unknown> } = {}) {
  const r = await server.api<{ runId: string }>('POST', o.v1 ? '/v1/runs' : '/runs', {
    key: acme,
    body: { workflowId, ...(o.inputs ? { inputs: o.inputs } : {}) },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { runId: r.body.runId, path: o.v1 ? `/v1/runs/${r.body.runId}` : bound(r.body.runId) };
}

async function eventsOf(path: string): Promise<Ev[]> {
  const r = await server.api<{ events: Ev[] }>('GET', `${path}/events/poll?timeout=1`, { key: acme });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.events;
}

/** Reads an SSE stream until the server closes it (or `ms`): its frames and who closed it. */
async function sse(path: string, o: { lastEventId?: string; ms?: number } = {}) {
  const ctl = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: {
      Authorization: `Bearer ${acme}`,
      Accept: 'text/event-stream',
      ...(o.lastEventId !== undefined ? { 'Last-Event-ID': o.lastEventId } : {}),
    },
    signal: ctl.signal,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const reader = res.body!.getReader();
  let text = '';
  let closedByServer = false;
  const timer = setTimeout(() => ctl.abort(), o.ms ?? 10_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        closedByServer = true;
        break;
      }
      text += new TextDecoder().decode(value);
    }
  } catch {
    // the deadline: the server kept the stream open
  } finally {
    clearTimeout(timer);
  }
  const frames = text
    .split('\n\n')
    .filter((f) => f.includes('data:'))
    .map((f) => {
      const line = (k: string) =>
        f
          .split('\n')
          .find((l) => l.startsWith(`${k}:`))
          ?.slice(k.length + 1)
          .trim();
      return {
        id: line('id'),
        event: line('event'),
        data: JSON.parse(line('data')!) as Record<string, unknown>,
      };
    });
  return { frames, closedByServer };
}

describe('cancel and bulk cancel (runs.md, rest-endpoints.md, errors.md)', () => {
  test('v2 bulk cancel: a failed entry carries the error envelope {error, message, details?}, no `code`', async () => {
    const run = await create('conformance-cancellable');
    const foreign = 'globex/0123456789abcdef0123456789abcdef';
    const r = await server.api<{
      results: { runId: string; ok: boolean; status?: string; error?: unknown }[];
    }>('POST', '/runs:bulk-cancel', { key: acme, body: { runIds: [run.runId, foreign] } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers.get('OpenWOP-Version'), '2.0');
    const [own, theirs] = r.body.results;
    assert.deepEqual([own!.ok, own!.status], [true, 'cancelled']);
    assert.equal(theirs!.ok, false);
    const env = theirs!.error as Record<string, unknown>;
    assert.equal(env.error, 'id_tenant_mismatch');
    assert.equal(typeof env.message, 'string');
    assert.deepEqual(
      Object.keys(env).filter((k) => !['error', 'message', 'details'].includes(k)),
      [],
      `the entry's error is exactly the envelope: ${JSON.stringify(env)}`,
    );
    // Re-cancelling over v2 is run_terminal, in the same envelope.
    const again = await server.api<{ results: { ok: boolean; error?: { error?: string } }[] }>(
      'POST',
      '/runs:bulk-cancel',
      { key: acme, body: { runIds: [run.runId] } },
    );
    assert.equal(again.body.results[0]!.error?.error, 'run_terminal');
  });

  test('v1 bulk cancel: re-cancelling a cancelled run is ok (status cancelled); a completed run is run_terminal; an unknown id is not_found', async () => {
    const run = await create('conformance-cancellable', { v1: true });
    const noop = await create('conformance-noop', { v1: true });
    await server.waitFor(noop.path, acme, terminal);
    const first = await server.api<{ results: { ok: boolean; status?: string }[] }>(
      'POST',
      '/v1/runs:bulk-cancel',
      {
        key: acme,
        body: { runIds: [run.runId] },
      },
    );
    assert.deepEqual(first.body.results[0], { runId: run.runId, ok: true, status: 'cancelled' });
    const second = await server.api<{
      results: { runId: string; ok: boolean; status?: string; error?: { code?: string; error?: string } }[];
    }>('POST', '/v1/runs:bulk-cancel', {
      key: acme,
      body: { runIds: [run.runId, noop.runId, 'run-does-not-exist-xxxxxxxx'] },
    });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('OpenWOP-Version'), '1.0');
    const [cancelled, completed, unknown] = second.body.results;
    assert.deepEqual(cancelled, { runId: run.runId, ok: true, status: 'cancelled' });
    assert.equal(completed!.ok, false);
    assert.equal(completed!.error?.code, 'run_terminal', 'v1 entries name the code as `code`');
    assert.equal(unknown!.error?.code, 'not_found');
  });

  test('v1 cancel of a finished run answers 200 with its status; v2 answers 409 run_terminal', async () => {
    const noop = await create('conformance-noop', { v1: true });
    await server.waitFor(noop.path, acme, terminal);
    const v1 = await server.api<Record<string, unknown>>('POST', `${noop.path}/cancel`, {
      key: acme,
      body: {},
    });
    assert.equal(v1.status, 200, JSON.stringify(v1.body));
    assert.deepEqual(v1.body, { runId: noop.runId, status: 'completed', alreadyTerminal: true });
    const v2 = await server.api<{ error: string; details: { runStatus: string } }>(
      'POST',
      `/runs/${noop.runId}/cancel`,
      { key: acme, body: {} },
    );
    assert.equal(v2.status, 409);
    assert.deepEqual([v2.body.error, v2.body.details.runStatus], ['run_terminal', 'completed']);
    // The run is still completed: the v1 answer changed nothing.
    assert.equal(
      (await server.api<{ status: string }>('GET', noop.path, { key: acme })).body.status,
      'completed',
    );
  });
});

describe('audit-log integrity (auth-profiles.md, RFC 0218/0224)', () => {
  test('not advertised (no --checkpoint-key): /audit/verify and /v1/audit/verify are 404 and name their contract', async () => {
    const v1doc = await bare.api<Record<string, unknown>>('GET', '/.well-known/openwop');
    const v2doc = await bare.api<Record<string, unknown>>('GET', '/.well-known/openwop', { headers: V2 });
    assert.equal('auth' in v1doc.body, false);
    assert.equal('auditLogIntegrity' in v2doc.body, false);
    for (const [path, version] of [
      ['/audit/verify', '2.0'],
      ['/v1/audit/verify', '1.0'],
    ] as const) {
      const r = await bare.api<{ error: string }>('GET', path, { key: plainKey });
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error, 'not_found');
      assert.equal(r.headers.get('OpenWOP-Version'), version, path);
    }
  });

  test('advertised at both majors; verify answers the closed AuditVerifyResult, checkpoints one entry apart', async () => {
    const v1doc = await server.api<{
      auth: { profiles: string[]; auditLogIntegrity: Record<string, unknown> };
    }>('GET', '/.well-known/openwop');
    assert.deepEqual(v1doc.body.auth.profiles, ['openwop-audit-log-integrity']);
    assert.equal(v1doc.body.auth.auditLogIntegrity.hashChain, true);
    assert.equal(v1doc.body.auth.auditLogIntegrity.checkpointSignatureAlgorithm, 'ed25519');
    const v2doc = await server.api<{ auditLogIntegrity: Record<string, unknown> }>(
      'GET',
      '/.well-known/openwop',
      {
        headers: V2,
      },
    );
    assert.equal(
      v2doc.body.auditLogIntegrity.checkpointPublicKey,
      v1doc.body.auth.auditLogIntegrity.checkpointPublicKey,
    );

    // A run moves the tenant's heads; the checkpointer (every second) signs them.
    const run = await create('conformance-noop');
    await server.waitFor(run.path, acme, terminal);
    let body: Record<string, unknown> = {};
    const until = Date.now() + 10_000;
    for (;;) {
      const r = await server.api<Record<string, unknown>>('GET', '/audit/verify', { key: acme });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.headers.get('OpenWOP-Version'), '2.0');
      body = r.body;
      if ((body.checkpoints as unknown[]).length > 0) break;
      assert.ok(Date.now() < until, 'no checkpoint within 10 s');
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.deepEqual(Object.keys(body).sort(), [
      'anomalies',
      'chainValid',
      'checkpoints',
      'checkpointsValid',
      'fromSeq',
      'toSeq',
    ]);
    assert.equal(body.chainValid, true);
    assert.deepEqual(body.anomalies, []);
    const cps = body.checkpoints as Record<string, unknown>[];
    let prev = 0;
    for (const c of cps) {
      assert.deepEqual(Object.keys(c).sort(), ['atSequence', 'checkpoint', 'merkleRoot', 'signature']);
      assert.equal(typeof c.checkpoint, 'string');
      assert.ok(Number.isInteger(c.atSequence));
      assert.equal((c.atSequence as number) - prev, 1, 'checkpointIntervalEntries: 1');
      prev = c.atSequence as number;
      assert.match(c.merkleRoot as string, /^[0-9a-f]{64}$/);
      assert.ok((c.signature as string).length > 0);
    }
    const v1 = await server.api<Record<string, unknown>>('GET', '/v1/audit/verify?fromSeq=0&toSeq=100', {
      key: acme,
    });
    assert.equal(v1.status, 200);
    assert.equal(v1.headers.get('OpenWOP-Version'), '1.0');
    assert.deepEqual([v1.body.fromSeq, v1.body.toSeq], [0, 100]);
    // audit-checkpoint-signature: Ed25519 over the root's 32 bytes, under the key the v1 profile names.
    const pub = createPublicKey({
      key: Buffer.from(v1doc.body.auth.auditLogIntegrity.checkpointPublicKey as string, 'base64'),
      format: 'der',
      type: 'spki',
    });
    const signed = v1.body.checkpoints as { merkleRoot: string; signature: string }[];
    assert.ok(signed.length > 0);
    for (const c of signed)
      assert.ok(verify(null, Buffer.from(c.merkleRoot, 'hex'), pub, Buffer.from(c.signature, 'base64')));
    const empty = await server.api<{ checkpoints: unknown[] }>(
      'GET',
      '/audit/verify?fromSeq=5000&toSeq=6000',
      {
        key: acme,
      },
    );
    assert.deepEqual(empty.body.checkpoints, [], 'a range past every checkpoint lists none');
    const bad = await server.api<{ error: string; details: { field: string } }>(
      'GET',
      '/audit/verify?fromSeq=3&toSeq=1',
      {
        key: acme,
      },
    );
    assert.deepEqual(
      [bad.status, bad.body.error, bad.body.details.field],
      [400, 'validation_error', 'toSeq'],
    );
    assert.equal((await server.api('GET', '/audit/verify')).status, 401);
  });
});

describe('a rejected approval (RFC 0223)', () => {
  test('the v2 interrupt facet carries tokenAlgs', async () => {
    const doc = await server.api<{ interrupt: { tokenAlgs: string[] } }>('GET', '/.well-known/openwop', {
      headers: V2,
    });
    assert.deepEqual(doc.body.interrupt.tokenAlgs, ['hs256']);
  });

  test('reject fails the run with approval_rejected: snapshot, node.failed (not retryable), run.failed with failedNodeId; interrupt.resolved says action and decision', async () => {
    const run = await create('conformance-approval');
    await server.waitFor(run.path, acme, (s) => s === 'waiting-approval');
    const r = await server.api('POST', `${run.path}/interrupts/gate`, {
      key: acme,
      body: { resumeValue: { action: 'reject' } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const snap = (await server.waitFor(run.path, acme, terminal)) as unknown as {
      status: string;
      error: { code: string };
    };
    assert.equal(snap.status, 'failed');
    assert.equal(snap.error.code, 'approval_rejected');
    const evs = await eventsOf(run.path);
    const resolved = evs.find((e) => e.type === 'interrupt.resolved')!;
    assert.deepEqual([resolved.payload.action, resolved.payload.decision], ['reject', 'rejected']);
    const nodeFailed = evs.find((e) => e.type === 'node.failed' && e.nodeId === 'gate')!;
    const err = nodeFailed.payload.error as { code: string; retryable: boolean };
    assert.deepEqual([err.code, err.retryable], ['approval_rejected', false]);
    const runFailed = evs.find((e) => e.type === 'run.failed')!;
    assert.equal((runFailed.payload.error as { code: string }).code, 'approval_rejected');
    assert.equal(runFailed.payload.failedNodeId, 'gate');
  });

  test('an accepted approval records action accept and decision approved', async () => {
    const run = await create('conformance-approval');
    await server.waitFor(run.path, acme, (s) => s === 'waiting-approval');
    await server.api('POST', `${run.path}/interrupts/gate`, {
      key: acme,
      body: { resumeValue: { action: 'accept' } },
    });
    assert.equal((await server.waitFor(run.path, acme, terminal)).status, 'completed');
    const resolved = (await eventsOf(run.path)).find((e) => e.type === 'interrupt.resolved')!;
    assert.deepEqual([resolved.payload.action, resolved.payload.decision], ['accept', 'approved']);
  });
});

describe('resolving an interrupt whose run ended (errors.md §One code per state)', () => {
  test('after a cancel, after completion: 409 interrupt_already_resolved; an unknown run: 404 not_found', async () => {
    const cancelled = await create('conformance-approval');
    await server.waitFor(cancelled.path, acme, (s) => s === 'waiting-approval');
    assert.equal((await server.api('POST', `${cancelled.path}/cancel`, { key: acme, body: {} })).status, 200);
    await server.waitFor(cancelled.path, acme, (s) => s === 'cancelled');
    const accept = { resumeValue: { action: 'accept' } };
    const late = await server.api<{ error: string }>('POST', `${cancelled.path}/interrupts/gate`, {
      key: acme,
      body: accept,
    });
    assert.deepEqual([late.status, late.body.error], [409, 'interrupt_already_resolved']);
    assert.equal(
      (await server.api<{ status: string }>('GET', cancelled.path, { key: acme })).body.status,
      'cancelled',
      'the resolve resumed nothing',
    );

    const done = await create('conformance-approval');
    await server.waitFor(done.path, acme, (s) => s === 'waiting-approval');
    assert.equal(
      (await server.api('POST', `${done.path}/interrupts/gate`, { key: acme, body: accept })).status,
      200,
    );
    await server.waitFor(done.path, acme, (s) => s === 'completed');
    const again = await server.api<{ error: string }>('POST', `${done.path}/interrupts/gate`, {
      key: acme,
      body: accept,
    });
    assert.deepEqual([again.status, again.body.error], [409, 'interrupt_already_resolved']);

    const unknown = await server.api<{ error: string }>(
      'POST',
      '/runs/acme~2Fopenwopconformanceunknown1/interrupts/gate',
      {
        key: acme,
        body: accept,
      },
    );
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'not_found']);
  });
});

describe('streamMode=values (stream-modes.md §values, events.md §SSE frames)', () => {
  test('a live run streams state.snapshot frames (the run snapshot), the last one terminal, then the server closes', async () => {
    const run = await create('conformance-delay', { v1: true, inputs: { delayMs: 600 } });
    const { frames, closedByServer } = await sse(`${run.path}/events?streamMode=values`);
    assert.ok(closedByServer, 'closed by the server after the terminal snapshot');
    assert.ok(frames.length >= 2, `a snapshot first and at least one as the run moved: ${frames.length}`);
    assert.ok(frames.every((f) => f.event === 'state.snapshot'));
    const ids = frames.map((f) => Number(f.id));
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      ids,
      'ids ascend',
    );
    const lastFrame = frames.at(-1)!.data;
    const snap = await server.api<Record<string, unknown>>('GET', run.path, { key: acme });
    assert.deepEqual(lastFrame, snap.body, 'the payload is the snapshot GET /runs/{id} gives');
    assert.equal(lastFrame.status, 'completed');
    const events = await eventsOf(run.path);
    assert.equal(Number(frames.at(-1)!.id), events.at(-1)!.sequence, 'the last frame covers the last event');
  });

  test('a values resume emits a state.snapshot first; values with another mode is 400 naming values as supported', async () => {
    const run = await create('conformance-noop');
    await server.waitFor(run.path, acme, terminal);
    const { frames, closedByServer } = await sse(`${run.path}/events?streamMode=values`, {
      lastEventId: '0',
    });
    assert.ok(closedByServer);
    assert.equal(frames[0]?.event, 'state.snapshot');
    const mixed = await server.api<{ error: string; details: { supported: string[] } }>(
      'GET',
      `${run.path}/events?streamMode=values,updates`,
      { key: acme, headers: { Accept: 'text/event-stream' } },
    );
    assert.equal(mixed.status, 400);
    assert.equal(mixed.body.error, 'unsupported_stream_mode');
    assert.ok(mixed.body.details.supported.includes('values'));
  });

  test('messages: beside updates it adds nothing (run.completed still arrives, server-closed); alone it sends no event and closes after the run', async () => {
    const run = await create('conformance-delay', { v1: true, inputs: { delayMs: 300 } });
    const mixed = await sse(`${run.path}/events?streamMode=updates,messages`);
    assert.ok(mixed.closedByServer);
    assert.ok(mixed.frames.some((f) => f.event === 'run.completed'));
    const alone = await sse(`${run.path}/events?streamMode=messages`);
    assert.ok(alone.closedByServer);
    assert.deepEqual(alone.frames, [], 'Keel streams no model tokens');
    const bogus = await server.api('GET', `${run.path}/events?streamMode=updates,bogus`, { key: acme });
    assert.equal(bogus.status, 400);
  });
});

describe('on PostgreSQL: the audit surface and a rejected approval', () => {
  const url = testDatabaseUrl();
  const schema = scratchSchemaName('keel_test_openwop_scenarios');
  const pgSandbox = new Sandbox('openwop-scenarios-pg');
  let pgServer: KeelServer;
  let key: string;

  before(async () => {
    await (await openScratchStore(url, schema)).close();
    const u = new URL(url);
    u.searchParams.set('schema', schema);
    const store = u.toString();
    key = createKey(pgSandbox, 'acme', store);
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    const keyFile = pgSandbox.write('checkpoint.pem', pem);
    pgServer = await KeelServer.start(
      pgSandbox,
      ['--checkpoint-key', keyFile, '--checkpoint-every', '1'],
      store,
    );
  });
  after(async () => {
    await pgServer?.stop();
    await dropSchema(url, schema);
    pgSandbox.remove();
  });

  test('a rejected approval fails the run with approval_rejected; the checkpoint that covers it verifies in the closed shape', async () => {
    const c = await pgServer.api<{ runId: string }>('POST', '/runs', {
      key,
      body: { workflowId: 'conformance-approval' },
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const path = bound(c.body.runId);
    await pgServer.waitFor(path, key, (s) => s === 'waiting-approval');
    const r = await pgServer.api('POST', `${path}/interrupts/gate`, {
      key,
      body: { resumeValue: { action: 'reject' } },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const snap = (await pgServer.waitFor(path, key, terminal)) as unknown as { error: { code: string } };
    assert.equal(snap.error.code, 'approval_rejected');
    const evs = (await pgServer.api<{ events: Ev[] }>('GET', `${path}/events/poll?timeout=1`, { key })).body
      .events;
    assert.equal(evs.find((e) => e.type === 'run.failed')?.payload.failedNodeId, 'gate');
    const until = Date.now() + 10_000;
    for (;;) {
      const v = await pgServer.api<{
        chainValid: boolean;
        checkpoints: { checkpoint: string }[];
        anomalies: unknown[];
      }>('GET', '/v1/audit/verify', { key });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal(v.headers.get('OpenWOP-Version'), '1.0');
      if (v.body.checkpoints.length > 0) {
        assert.equal(v.body.chainValid, true);
        assert.deepEqual(v.body.anomalies, []);
        assert.equal(typeof v.body.checkpoints[0]!.checkpoint, 'string');
        break;
      }
      assert.ok(Date.now() < until, 'no checkpoint within 10 s');
      await new Promise((res) => setTimeout(res, 200));
    }
  });
});
