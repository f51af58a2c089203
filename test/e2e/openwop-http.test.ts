/**
 * The OpenWOP surface of a real `keel serve` process on a real SQLite store: discovery and
 * version negotiation, bearer auth, runs of the conformance fixtures over v1 and v2 paths, event
 * streams (JSON and SSE) projected from the ledger, approvals, cancel, fork (the replay fork of
 * conformance-nondeterminism reproduces every source), idempotency keys and tenant isolation.
 * Then the same runs through the CLI: `keel history` and `keel verify` on the store it wrote.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { okJson, Sandbox, show } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';

const sandbox = new Sandbox('openwop-http');
let server: KeelServer;
let acme: string;
let globex: string;
const createdByV1: string[] = [];

before(async () => {
  acme = createKey(sandbox, 'acme');
  globex = createKey(sandbox, 'globex');
  server = await KeelServer.start(sandbox);
});
after(async () => {
  await server?.stop();
  sandbox.remove();
});

interface Created {
  runId: string;
  status: string;
  eventsUrl: string;
  statusUrl: string;
  error?: string;
}

async function createRun(body: unknown, o: { key?: string; idem?: string; path?: string } = {}) {
  return server.api<Created>('POST', o.path ?? '/v1/runs', {
    key: o.key ?? acme,
    body,
    ...(o.idem ? { headers: { 'Idempotency-Key': o.idem } } : {}),
  });
}

const v1 = (runId: string) => `/v1/runs/${encodeURIComponent(runId)}`;
const terminal = (s: string) => ['completed', 'failed', 'cancelled'].includes(s);

describe('discovery and negotiation', () => {
  test('without a header: the v1 document the sample clients read', async () => {
    const r = await server.api('GET', '/.well-known/openwop');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('openwop-version'), '1.0');
    assert.deepEqual(r.body.protocolVersions, ['1.0', '2.0']);
    assert.equal(r.body.preferredVersion, '1.0');
    assert.ok((r.body.supportedEnvelopes as string[]).includes('clarification.request'));
    assert.deepEqual(r.body.replay, {
      supported: true,
      fork: true,
      modes: ['replay', 'branch'],
      sideEffectSuppression: 'recorded-outcome',
    });
    for (const f of ['conformance-noop', 'conformance-approval', 'conformance-nondeterminism'])
      assert.ok((r.body.fixtures as string[]).includes(f), f);
  });

  test('OpenWOP-Version: 2 gets the closed v2 root, with ETag, 304 and Vary', async () => {
    const r = await server.api('GET', '/.well-known/openwop', { headers: { 'OpenWOP-Version': '2' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('openwop-version'), '2.0');
    assert.equal(r.headers.get('vary'), 'OpenWOP-Version');
    assert.equal(r.body.supportedEnvelopes, undefined, 'no v1 keys in the v2 root');
    assert.equal(r.body.capabilities, undefined);
    assert.deepEqual((r.body.nondeterminismPolicy as Record<string, unknown>).sources, [
      'clock',
      'random',
      'id',
      'env',
    ]);
    assert.equal((r.body.nondeterminismPolicy as Record<string, unknown>).declared, true);
    const etag = r.headers.get('etag')!;
    const again = await fetch(`${server.url}/.well-known/openwop`, {
      headers: { 'OpenWOP-Version': '2', 'If-None-Match': etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get('openwop-version'), '2.0');
    const v1doc = await server.api('GET', '/.well-known/openwop');
    assert.notEqual(v1doc.headers.get('etag'), etag, 'the two representations have different tags');
  });

  test('an unlisted major is 406; a /v1 path with major 2 is 400', async () => {
    const r = await server.api('GET', '/.well-known/openwop', { headers: { 'OpenWOP-Version': '3' } });
    assert.equal(r.status, 406);
    assert.equal(r.body.error, 'protocol_version_unsupported');
    assert.equal(r.headers.get('openwop-version'), '1.0', 'every protocol response names a contract');
    const m = await server.api('GET', '/v1/runs', { key: acme, headers: { 'OpenWOP-Version': '2' } });
    assert.equal(m.status, 400);
    assert.equal(m.body.error, 'protocol_version_mismatch');
    assert.equal(m.headers.get('openwop-version'), '1.0');
  });

  test('a body over 1 MiB is 413 payload_too_large, and creates nothing', async () => {
    const r = await createRun({ workflowId: 'conformance-noop', inputs: { blob: 'x'.repeat(1024 * 1024) } });
    assert.equal(r.status, 413);
    assert.equal(r.body.error, 'payload_too_large');
  });

  test('no or wrong bearer key: 401 unauthenticated with a challenge, before any existence check', async () => {
    for (const key of [undefined, 'keel_not-a-key']) {
      const r = await server.api('GET', `/v1/runs/${'0'.repeat(64)}`, key ? { key } : {});
      assert.equal(r.status, 401);
      assert.equal(r.body.error, 'unauthenticated');
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    }
  });
});

describe('runs of the fixtures', () => {
  test('conformance-noop over /v1: 201, completes, events contiguous from 0, run.completed with outputs', async () => {
    const c = await createRun({ workflowId: 'conformance-noop' });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.match(c.body.runId, /^[0-9a-f]{64}$/, 'a bare id on /v1');
    assert.equal(c.body.statusUrl, v1(c.body.runId));
    createdByV1.push(c.body.runId);
    const snap = await server.waitFor(v1(c.body.runId), acme, terminal);
    assert.equal(snap.status, 'completed');
    const ev = await server.api<{
      events: { sequence: number; type: string; payload: Record<string, unknown>; eventId: string }[];
    }>('GET', `${v1(c.body.runId)}/events`, { key: acme, headers: { Accept: 'application/json' } });
    assert.equal(ev.status, 200);
    const events = ev.body.events;
    assert.deepEqual(
      events.map((e) => e.sequence),
      events.map((_, i) => i),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['run.started', 'node.started', 'node.completed', 'run.completed'],
    );
    assert.deepEqual(events.at(-1)!.payload.outputs, {});
    for (const e of events) assert.match(e.eventId, /^[A-Za-z0-9._~-]{16,128}$/);
  });

  test('SSE: backlog then live frames (id, event, data), closed after the terminal event', async () => {
    const c = await createRun({ workflowId: 'conformance-delay', inputs: { delayMs: 300 } });
    assert.equal(c.status, 201);
    const res = await fetch(`${server.url}${v1(c.body.runId)}/events`, {
      headers: { Authorization: `Bearer ${acme}`, Accept: 'text/event-stream', 'X-Request-Id': 'sse-1' },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    // Written straight to Node's response, the stream still carries the headers every answer has.
    assert.equal(res.headers.get('x-request-id'), 'sse-1');
    assert.equal(res.headers.get('openwop-version'), '1.0');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const text = await res.text(); // resolves only because the server closes the stream
    const frames = text
      .split('\n\n')
      .filter((f) => f.includes('data:'))
      .map((f) =>
        Object.fromEntries(
          f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
        ),
      );
    assert.deepEqual(
      frames.map((f) => f.event),
      ['run.started', 'node.started', 'node.completed', 'run.completed'],
    );
    frames.forEach((f, i) => {
      assert.equal(f.id, String(i));
      assert.equal(JSON.parse(f.data!).sequence, i);
    });
    // Reconnecting after sequence 1 resumes at 2 and never re-sends 1.
    const resumed = await fetch(`${server.url}${v1(c.body.runId)}/events`, {
      headers: { Authorization: `Bearer ${acme}`, Accept: 'text/event-stream', 'Last-Event-ID': '1' },
    });
    const ids = [...(await resumed.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.deepEqual(ids, [2, 3]);
  });

  test('SSE with a cursor past every event of a live run: the headers come at once, the stream closes when the run ends', async () => {
    const c = await createRun({ workflowId: 'conformance-delay', inputs: { delayMs: 1500 } });
    assert.equal(c.status, 201);
    const res = await fetch(`${server.url}${v1(c.body.runId)}/events`, {
      headers: { Authorization: `Bearer ${acme}`, Accept: 'text/event-stream', 'Last-Event-ID': '99' },
    });
    assert.equal(res.status, 200);
    // The headers arrived while the run still runs: nothing had been written to carry them.
    const during = await server.api('GET', `/v1/runs/${c.body.runId}`, { key: acme });
    assert.equal(during.body.status, 'running');
    assert.doesNotMatch(await res.text(), /^id: /m);
    assert.equal(
      (await server.api('GET', `/v1/runs/${c.body.runId}`, { key: acme })).body.status,
      'completed',
    );
  });

  test('an unknown streamMode is 400 unsupported_stream_mode, before content negotiation', async () => {
    const r = await server.api('GET', `/v1/runs/${createdByV1[0]}/events?streamMode=does-not-exist`, {
      key: acme,
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'unsupported_stream_mode');
  });

  test('conformance-failure ends failed with the node error; multi-node runs in edge order', async () => {
    const f = await createRun({ workflowId: 'conformance-failure' });
    const snap = (await server.waitFor(v1(f.body.runId), acme, terminal)) as {
      status: string;
      error?: { code: string };
    };
    assert.equal(snap.status, 'failed');
    assert.equal(snap.error?.code, 'conformance_failure');
    const m = await createRun({ workflowId: 'conformance-multi-node' });
    await server.waitFor(v1(m.body.runId), acme, terminal);
    const ev = await server.api<{ events: { type: string; nodeId?: string }[] }>(
      'GET',
      `${v1(m.body.runId)}/events`,
      { key: acme },
    );
    assert.deepEqual(
      ev.body.events.filter((e) => e.type === 'node.completed').map((e) => e.nodeId),
      ['a', 'b', 'c'],
    );
  });

  test('v2 paths mint tenant-bound ids, resolvable in ~2F and %2F form; the bare id resolves too', async () => {
    const c = await createRun(
      { workflowId: 'conformance-identity', inputs: { value: 'x' } },
      { path: '/runs' },
    );
    assert.equal(c.status, 201);
    assert.equal(c.headers.get('openwop-version'), '2.0');
    assert.match(c.body.runId, /^acme\/[0-9a-f]{64}$/);
    const hex = c.body.runId.split('/')[1]!;
    for (const path of [
      `/runs/acme~2F${hex}`,
      `/runs/${encodeURIComponent(c.body.runId)}`,
      `/v1/runs/${hex}`,
    ]) {
      const snap = await server.waitFor(path, acme, terminal);
      assert.equal(snap.status, 'completed', path);
    }
    const v2snap = await server.api('GET', `/runs/acme~2F${hex}`, { key: acme });
    assert.equal(v2snap.body.runId, c.body.runId);
    assert.equal((v2snap.body.owner as { tenant: string }).tenant, 'acme');
    assert.equal(v2snap.body.eventLogSchemaVersion, 3);
    const poll = await server.api<{
      events: unknown[];
      lastSequence: number;
      isTerminal: boolean;
      status: string;
    }>('GET', `/runs/acme~2F${hex}/events/poll?afterSequence=0&timeout=1`, { key: acme });
    assert.equal(poll.status, 200);
    assert.equal(poll.body.isTerminal, true);
    assert.equal(poll.body.events.length, poll.body.lastSequence, 'every event after 0');
  });
});

describe('OpenWOP definitions beside Keel specs', () => {
  test("a definition published through the Keel API runs on the same engine, with its variables' defaults", async () => {
    const definition = {
      id: 'greet',
      name: 'Greet',
      version: '1',
      nodes: [
        {
          id: 'first',
          typeId: 'core.identity',
          name: 'First',
          position: { x: 0, y: 0 },
          config: {},
          inputs: { who: { type: 'variable', variableName: 'who' } },
        },
        {
          id: 'second',
          typeId: 'core.identity',
          name: 'Second',
          position: { x: 0, y: 0 },
          config: {},
          inputs: { greeting: { type: 'connection', nodeId: 'first', outputKey: 'who' } },
        },
      ],
      edges: [{ id: 'e', sourceNodeId: 'first', targetNodeId: 'second' }],
      variables: [{ name: 'who', type: 'string', defaultValue: 'world' }],
      triggers: [{ id: 'manual', type: 'manual' }],
      metadata: {},
      settings: {},
    };
    const pub = await server.api<{ workflowId: string; version: number }>('POST', '/api/workflows', {
      key: acme,
      body: definition,
    });
    assert.equal(pub.status, 201, JSON.stringify(pub.body));
    const outputs = async (inputs: Record<string, unknown>) => {
      const c = await createRun({ workflowId: 'greet', inputs });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      await server.waitFor(v1(c.body.runId), acme, terminal);
      const ev = await server.api<{ events: { type: string; payload: { outputs?: unknown } }[] }>(
        'GET',
        `${v1(c.body.runId)}/events`,
        { key: acme },
      );
      return ev.body.events.find((e) => e.type === 'run.completed')!.payload.outputs;
    };
    assert.deepEqual(await outputs({}), { greeting: 'world' });
    assert.deepEqual(await outputs({ who: 'keel' }), { greeting: 'keel' });
    const shown = await server.api<{ nodes: { id: string; typeId: string }[]; variables: unknown[] }>(
      'GET',
      '/v1/workflows/greet',
      { key: acme },
    );
    assert.deepEqual(
      shown.body.nodes.map((n) => [n.id, n.typeId]),
      [
        ['first', 'core.identity'],
        ['second', 'core.identity'],
      ],
    );
    assert.deepEqual(shown.body.variables, [{ name: 'who', defaultValue: 'world' }]);
    // An installed fixture shows the definition it was written as, edges and ports included.
    const fixture = await server.api<{ edges: unknown[]; nodes: { inputs: Record<string, unknown> }[] }>(
      'GET',
      '/workflows/conformance-delay',
      { key: acme },
    );
    assert.equal(fixture.status, 200);
    assert.deepEqual(fixture.body.nodes[0]!.inputs, {
      delayMs: { type: 'variable', variableName: 'delayMs' },
    });
    assert.equal((await server.api('GET', '/workflows/no-such-flow', { key: acme })).status, 404);
    const bad = await server.api<{ error: string; details: { problems: { field: string }[] } }>(
      'POST',
      '/api/workflows',
      {
        key: acme,
        body: {
          ...definition,
          id: 'loop',
          edges: [...definition.edges, { id: 'back', sourceNodeId: 'second', targetNodeId: 'first' }],
        },
      },
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'spec_invalid');
    assert.equal(bad.body.details.problems[0]!.field, 'edges');
  });
});

describe('approvals, cancel, fork', () => {
  test('conformance-approval waits at node gate; the sample alias approves once; a second resolve is 409', async () => {
    const c = await createRun({ workflowId: 'conformance-approval' });
    const waiting = await server.waitFor(
      v1(c.body.runId),
      acme,
      (s) => s === 'waiting-approval' || terminal(s),
    );
    assert.equal(waiting.status, 'waiting-approval');
    assert.equal(waiting.currentNodeId, 'gate');
    const ok = await server.api('POST', `${v1(c.body.runId)}/approvals/gate`, {
      key: acme,
      body: { action: 'accept' },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const done = await server.waitFor(v1(c.body.runId), acme, terminal);
    assert.equal(done.status, 'completed');
    const again = await server.api('POST', `${v1(c.body.runId)}/interrupts/gate`, {
      key: acme,
      body: { resumeValue: { action: 'accept' } },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'interrupt_already_resolved');
    const ev = await server.api<{ events: { type: string }[] }>('GET', `${v1(c.body.runId)}/events`, {
      key: acme,
    });
    const types = ev.body.events.map((e) => e.type);
    assert.ok(types.indexOf('interrupt.requested') < types.indexOf('interrupt.resolved'));
    assert.ok(
      types.indexOf('interrupt.resolved') < types.lastIndexOf('node.started'),
      'the gate runs only after the resolve',
    );
  });

  test('cancel mid-run: cancelled; cancelling again is 409 run_terminal on v2, an idempotent 200 on v1', async () => {
    const c = await createRun({ workflowId: 'conformance-cancellable' });
    await server.waitFor(v1(c.body.runId), acme, (s) => s === 'running');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const r = await server.api('POST', `${v1(c.body.runId)}/cancel`, { key: acme, body: { reason: 'test' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const snap = await server.waitFor(v1(c.body.runId), acme, terminal);
    assert.equal(snap.status, 'cancelled');
    assert.ok(Date.now() - started < 10_000, 'far sooner than the 30 s delay');
    const again = await server.api('POST', `/runs/${c.body.runId}/cancel`, { key: acme, body: {} });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'run_terminal');
    const againV1 = await server.api('POST', `${v1(c.body.runId)}/cancel`, { key: acme, body: {} });
    assert.equal(againV1.status, 200);
    assert.equal(againV1.body.status, 'cancelled');
  });

  test(':pause holds a run after its current node, :resume walks on; refusals are 409', async () => {
    const c = await createRun(
      { workflowId: 'conformance-delay', inputs: { delayMs: 800 } },
      { path: '/runs' },
    );
    const path = `/runs/${c.body.runId.replace('/', '~2F')}`;
    await server.waitFor(path, acme, (s) => s === 'running');
    const paused = await server.api('POST', `${path}:pause`, { key: acme, body: { reason: 'look first' } });
    assert.equal(paused.status, 202, JSON.stringify(paused.body));
    assert.equal(paused.body.status, 'paused');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(
      (await server.api('GET', path, { key: acme })).body.status,
      'paused',
      'nothing walks a paused run',
    );
    const early = await server.api('POST', `${path}:pause`, { key: acme, body: {} });
    assert.equal(early.status, 409);
    assert.equal(early.body.error, 'run_state_conflict');
    assert.equal((early.body.details as { runStatus: string }).runStatus, 'paused');
    const immediate = await server.api('POST', `${path}:resume`, {
      key: acme,
      body: { drainPolicy: 'immediate' },
    });
    assert.equal(immediate.status, 202, 'resume ignores pause options');
    assert.equal((await server.waitFor(path, acme, terminal)).status, 'completed');
    const ev = await server.api<{ events: { type: string; payload: Record<string, unknown> }[] }>(
      'GET',
      `${path}/events?streamMode=debug`,
      {
        key: acme,
      },
    );
    const types = ev.body.events.map((e) => e.type);
    assert.deepEqual(types, [
      'run.started',
      'node.started',
      'node.completed',
      'run.paused',
      'run.resumed',
      'run.completed',
    ]);
    assert.equal(ev.body.events[3]!.payload.drainPolicy, 'drain-current-node');
    const late = await server.api('POST', `${path}:pause`, { key: acme, body: {} });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, 'run_terminal');
    const bad = await server.api('POST', `${path}:pause`, { key: acme, body: { drainPolicy: 'later' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'validation_error');
  });

  test('GET /runs/{id}/effects: each tool call under its idempotency key, with its state from the ledger', async () => {
    const done = createdByV1[0]!;
    const r = await server.api<{
      runId: string;
      effects: { nodeId: string; state: string; keying: string; providerKey: string; effectId: string }[];
    }>('GET', `/v1/runs/${done}/effects`, { key: acme });
    assert.equal(r.status, 200);
    assert.equal(r.body.runId, done);
    assert.deepEqual(
      r.body.effects.map((e) => [e.nodeId, e.state, e.keying]),
      [['noop', 'completed', 'activity']],
    );
    assert.match(r.body.effects[0]!.providerKey, /^sha256:[0-9a-f]{64}$/);
    assert.match(r.body.effects[0]!.effectId, /^[A-Za-z0-9._~-]{16,128}$/);
    const cancelled = await createRun({ workflowId: 'conformance-cancellable' });
    await server.waitFor(v1(cancelled.body.runId), acme, (s) => s === 'running');
    await new Promise((res) => setTimeout(res, 150));
    await server.api('POST', `${v1(cancelled.body.runId)}/cancel`, { key: acme, body: {} });
    await server.waitFor(v1(cancelled.body.runId), acme, terminal);
    const cut = await server.api<{ effects: { nodeId: string; state: string }[] }>(
      'GET',
      `${v1(cancelled.body.runId)}/effects`,
      {
        key: acme,
      },
    );
    assert.deepEqual(
      cut.body.effects.map((e) => [e.nodeId, e.state]),
      [['wait', 'released']],
      'a call cut by the cancel is released; the next node never claimed anything',
    );
    assert.equal((await server.api('GET', `/v1/runs/${done}/effects`, { key: globex })).status, 404);
  });

  test('bulk cancel answers per run, in request order; over 100 ids is 400 with details.maxRunIds', async () => {
    const a = await createRun({ workflowId: 'conformance-cancellable' });
    const done = createdByV1[0]!;
    const theirs = await createRun({ workflowId: 'conformance-cancellable' }, { key: globex });
    const r = await server.api<{
      results: { runId: string; ok: boolean; status?: string; error?: { code: string; message: string } }[];
    }>('POST', '/v1/runs:bulk-cancel', {
      key: acme,
      body: { runIds: [a.body.runId, done, theirs.body.runId], reason: 'bulk' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      r.body.results.map((x) => [x.runId, x.ok, x.error?.code]),
      [
        [a.body.runId, true, undefined],
        [done, false, 'run_terminal'],
        [theirs.body.runId, false, 'not_found'],
      ],
    );
    assert.equal((await server.waitFor(v1(a.body.runId), acme, terminal)).status, 'cancelled');
    assert.equal((await server.api('GET', v1(theirs.body.runId), { key: globex })).body.status, 'running');
    await server.api('POST', `${v1(theirs.body.runId)}/cancel`, { key: globex, body: {} });
    const tooMany = await server.api('POST', '/runs:bulk-cancel', {
      key: acme,
      body: { runIds: Array.from({ length: 101 }, () => done) },
    });
    assert.equal(tooMany.status, 400);
    assert.equal((tooMany.body.details as { maxRunIds: number }).maxRunIds, 100);
  });

  test('a replay fork of conformance-nondeterminism reproduces every declared source byte-equal; a branch draws afresh', async () => {
    const c = await createRun({ workflowId: 'conformance-nondeterminism' }, { path: '/runs' });
    const path = `/runs/${c.body.runId.replace('/', '~2F')}`;
    await server.waitFor(path, acme, terminal);
    const outputsOf = async (p: string) => {
      const poll = await server.api<{
        events: { type: string; payload: { outputs?: Record<string, string> } }[];
      }>('GET', `${p}/events/poll?timeout=1`, { key: acme });
      return poll.body.events.find((e) => e.type === 'run.completed')!.payload.outputs!;
    };
    const first = await outputsOf(path);
    const fork = await server.api<{ runId: string; sourceRunId: string; mode: string }>(
      'POST',
      `${path}:fork`,
      {
        key: acme,
        body: { mode: 'replay', fromSeq: 0 },
      },
    );
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    assert.notEqual(fork.body.runId, c.body.runId);
    assert.equal(fork.body.sourceRunId, c.body.runId);
    const forkPath = `/runs/${fork.body.runId.replace('/', '~2F')}`;
    assert.equal((await server.waitFor(forkPath, acme, terminal)).status, 'completed');
    const second = await outputsOf(forkPath);
    for (const s of ['clock', 'random', 'id', 'env']) {
      assert.equal(typeof first[s], 'string', s);
      assert.equal(second[s], first[s], s);
    }
    const branch = await server.api<{ runId: string }>('POST', `${path}:fork`, {
      key: acme,
      body: { mode: 'branch', fromSeq: 0 },
    });
    assert.equal(branch.status, 201);
    const branchPath = `/runs/${branch.body.runId.replace('/', '~2F')}`;
    await server.waitFor(branchPath, acme, terminal);
    assert.notEqual((await outputsOf(branchPath)).random, first.random);
    const bad = await server.api('POST', `${path}:fork`, {
      key: acme,
      body: { mode: 'replay', fromSeq: 999 },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error, 'fork_point_invalid');
  });
});

describe('idempotency keys', () => {
  const body = { workflowId: 'conformance-idempotent', inputs: { nonce: 'first-attempt' } };

  test('same key and body: same run and the replay header; another body: 409 idempotency_key_mismatch', async () => {
    const key = `test-idem-${crypto.randomUUID()}`;
    const a = await createRun(body, { idem: key });
    const b = await createRun(body, { idem: key });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(b.body.runId, a.body.runId);
    assert.equal(a.headers.get('openwop-idempotent-replay'), null);
    assert.equal(b.headers.get('openwop-idempotent-replay'), 'true');
    const c = await createRun({ ...body, inputs: { nonce: 'DIFFERENT-attempt' } }, { idem: key });
    assert.equal(c.status, 409);
    assert.equal(c.body.error, 'idempotency_key_mismatch');
    assert.equal((c.body as unknown as { runId?: string }).runId, undefined, 'never the cached body');
  });

  test('ten concurrent same-key POSTs create one run', async () => {
    const key = `test-concurrent-${crypto.randomUUID()}`;
    const before = await server.api<{ runs: unknown[] }>(
      'GET',
      '/v1/runs?workflowId=conformance-idempotent&limit=100',
      { key: acme },
    );
    const rs = await Promise.all(Array.from({ length: 10 }, () => createRun(body, { idem: key })));
    const ids = new Set(rs.filter((r) => r.status === 201).map((r) => r.body.runId));
    assert.equal(ids.size, 1, JSON.stringify(rs.map((r) => [r.status, r.body])));
    for (const r of rs)
      assert.ok(
        r.status === 201 ||
          (r.status === 409 && (r.body as unknown as { error: string }).error === 'idempotency_in_flight'),
      );
    const afterList = await server.api<{ runs: unknown[] }>(
      'GET',
      '/v1/runs?workflowId=conformance-idempotent&limit=100',
      { key: acme },
    );
    assert.equal(afterList.body.runs.length, before.body.runs.length + 1);
  });

  test('runs list by status: each run once, only that status; an unknown status is 400', async () => {
    const list = async (q: string) =>
      (
        await server.api<{ runs: { runId: string; status: string }[] }>('GET', `/v1/runs?limit=100&${q}`, {
          key: acme,
        })
      ).body.runs;
    const completed = await list('status=completed');
    assert.ok(completed.length > 0);
    assert.ok(completed.every((r) => r.status === 'completed'));
    const failed = await list('status=failed');
    assert.ok(failed.length > 0 && failed.every((r) => r.status === 'failed'));
    const bad = await server.api('GET', '/v1/runs?status=done', { key: acme });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'validation_error');
  });

  test('a malformed key is 400 idempotency_key_invalid and creates nothing', async () => {
    const r = await createRun(body, { idem: 'short' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'idempotency_key_invalid');
  });
});

describe('tenant isolation', () => {
  test("another tenant's run, approval, cancel and fork answer 404 (bare id) or 403 (bound id), revealing nothing", async () => {
    const c = await createRun({ workflowId: 'conformance-approval' });
    await server.waitFor(v1(c.body.runId), acme, (s) => s === 'waiting-approval');
    const hex = c.body.runId;
    const missing = 'f'.repeat(64);
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['GET', '/events', undefined],
      ['POST', '/approvals/gate', { action: 'accept' }],
      ['POST', '/cancel', {}],
      ['POST', ':fork', { mode: 'branch', fromSeq: 0 }],
    ] as const) {
      const theirs = await server.api(method, `/v1/runs/${hex}${suffix}`, {
        key: globex,
        ...(body ? { body } : {}),
      });
      const none = await server.api(method, `/v1/runs/${missing}${suffix}`, {
        key: globex,
        ...(body ? { body } : {}),
      });
      assert.equal(theirs.status, 404, `${method} ${suffix}: ${JSON.stringify(theirs.body)}`);
      assert.deepEqual(
        { ...theirs.body, message: undefined, details: undefined },
        { ...none.body, message: undefined, details: undefined },
        'the same answer as for a run that does not exist',
      );
      const bound = await server.api(method, `/runs/acme~2F${hex}${suffix}`, {
        key: globex,
        ...(body ? { body } : {}),
      });
      assert.equal(bound.status, 403);
      assert.equal(bound.body.error, 'id_tenant_mismatch');
    }
    const still = await server.api('GET', v1(hex), { key: acme });
    assert.equal(still.body.status, 'waiting-approval', 'nothing the other tenant sent reached the run');
  });
});

describe('one truth: the CLI reads the same runs', () => {
  test('keel history and keel verify on a run created over OpenWOP', async () => {
    const runId = `sha256:${createdByV1[0]}`;
    const hist = okJson<{ kind: string }[]>(sandbox.keel(['--tenant', 'acme', '--json', 'history', runId]));
    assert.deepEqual(
      hist.map((h) => h.kind),
      ['run.started', 'step.allowed', 'step.completed', 'run.finished'],
    );
    const v = sandbox.keel(['--tenant', 'acme', '--json', 'verify', runId]);
    assert.equal(v.code, 0, show(v));
    const other = sandbox.keel(['--tenant', 'globex', '--json', 'verify', runId]);
    assert.equal(other.code, 3, show(other));
  });
});

describe('shutdown', () => {
  test('SIGTERM stops keel serve cleanly (exit 0)', async () => {
    assert.equal(await server.stop(), 0);
  });
});
