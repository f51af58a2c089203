/**
 * Where OpenWOP's own conformance scenarios look closely, against a real `keel serve` on a real
 * SQLite store. Written from the spec text (events.md, identity.md, replay.md, runs.md, errors.md):
 * `Last-Event-ID` at or past a finished run's end closes at once; `bufferMs` batches; `owner` is
 * the v2 subject on the snapshot and on `run.started`; the effect-seam manifest; a fork's inherited
 * events equal its source's; `GET /runs` lists snapshots; refusals carry OpenWOP codes (a
 * malformed `~` escape, a foreign cursor, a dotted `configurable` key, bulk-cancel entries,
 * pause/resume); the 413 names its contract; `/v1/openapi.json`; the identity fixture echoes
 * `payload`; an immediate pause; a replay fork never performs a side effect its source never
 * recorded; the advertised node-execution limit; and a keyed create that keeps its run id after
 * its idempotency record is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Sandbox } from '../helpers/keel-cli.ts';
import { createKey, KeelServer } from '../helpers/keel-server.ts';
import { withDb } from '../helpers/sqlite-files.ts';

const sandbox = new Sandbox('openwop-conformance');
let server: KeelServer;
let acme: string;
let globex: string;

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
}
interface Ev {
  eventId: string;
  runId: string;
  sequence: number;
  type: string;
  nodeId?: string;
  payload: Record<string, unknown>;
  timestamp: string;
}

const V2 = { 'OpenWOP-Version': '2' };
const terminal = (s: string) => ['completed', 'failed', 'cancelled'].includes(s);
const bound = (runId: string) => `/runs/${runId.replace('/', '~2F')}`;

async function create(body: Record<string, unknown>, o: { v1?: boolean; key?: string; idem?: string } = {}) {
  const r = await server.api<Created>('POST', o.v1 ? '/v1/runs' : '/runs', {
    key: o.key ?? acme,
    body,
    ...(o.idem ? { headers: { 'Idempotency-Key': o.idem } } : {}),
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

/** A finished v2 run of `workflowId`: its bound path and its events (debug mode: every event). */
async function finished(workflowId: string, inputs: Record<string, unknown> = {}) {
  const c = await create({ workflowId, inputs });
  const path = bound(c.runId);
  await server.waitFor(path, acme, terminal);
  return { runId: c.runId, path, events: await eventsOf(path) };
}

async function eventsOf(path: string): Promise<Ev[]> {
  const r = await server.api<{ events: Ev[] }>('GET', `${path}/events/poll?timeout=1`, { key: acme });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.events;
}

/** Reads an SSE stream for at most `ms`: its frames, and whether the server closed it first. */
async function sse(path: string, o: { lastEventId?: string; ms?: number; key?: string } = {}) {
  const ctl = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    headers: {
      Authorization: `Bearer ${o.key ?? acme}`,
      Accept: 'text/event-stream',
      ...(o.lastEventId !== undefined ? { 'Last-Event-ID': o.lastEventId } : {}),
    },
    signal: ctl.signal,
  });
  if (res.status !== 200)
    return { status: res.status, frames: [], closedByServer: false, body: await res.json() };
  const reader = res.body!.getReader();
  let text = '';
  let closedByServer = false;
  const timer = setTimeout(() => ctl.abort(), o.ms ?? 3000);
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
    // aborted by the deadline: the server kept the stream open
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
      return { id: line('id'), event: line('event'), data: JSON.parse(line('data')!) as unknown };
    });
  return { status: res.status, frames, closedByServer, body: undefined };
}

describe('event streams (events.md §SSE frames)', () => {
  test('Last-Event-ID at or past the end of a finished run: 200, no frame, closed by the server at once (v1 and v2)', async () => {
    const run = await finished('conformance-noop');
    const last = run.events.at(-1)!.sequence;
    const hex = run.runId.split('/')[1]!;
    for (const path of [`${run.path}/events?streamMode=debug`, `/v1/runs/${hex}/events`]) {
      for (const cursor of [String(last), String(last + 1000)]) {
        const t0 = Date.now();
        const s = await sse(path, { lastEventId: cursor, ms: 5000 });
        assert.equal(s.status, 200, `${path} at ${cursor}`);
        assert.equal(s.frames.length, 0, `${path} at ${cursor}: nothing to send`);
        assert.equal(s.closedByServer, true, `${path} at ${cursor}: the server closes the empty resume`);
        assert.ok(Date.now() - t0 < 2500, 'at once, not after a keep-alive');
      }
      const first = await sse(path, { lastEventId: '0', ms: 5000 });
      assert.deepEqual(
        first.frames.map((f) => Number(f.id)),
        run.events.slice(1).map((e) => e.sequence),
        'resumes at the next sequence and loses nothing',
      );
    }
    const bad = await server.api('GET', `${run.path}/events`, {
      key: acme,
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'abc' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'validation_error');
    // The cursor is read only after the run is known to be the caller's: the same answer either way.
    const theirs = await server.api('GET', `/v1/runs/${hex}/events`, {
      key: globex,
      headers: { Accept: 'text/event-stream' },
    });
    const theirsAt = await server.api('GET', `/v1/runs/${hex}/events`, {
      key: globex,
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': '1000' },
    });
    assert.deepEqual([theirs.status, theirs.body.error], [404, 'not_found']);
    assert.deepEqual([theirsAt.status, theirsAt.body.error], [404, 'not_found']);
  });

  test('bufferMs batches events into `event: batch` frames; a bufferMs out of 0..5000 is 400 validation_error', async () => {
    const run = await finished('conformance-multi-node');
    const s = await sse(`${run.path}/events?streamMode=debug&bufferMs=200`, { ms: 5000 });
    assert.equal(s.status, 200);
    assert.equal(s.closedByServer, true);
    assert.ok(s.frames.length >= 1 && s.frames.every((f) => f.event === 'batch'));
    const batched = s.frames.flatMap((f) => f.data as Ev[]);
    assert.deepEqual(
      batched.map((e) => e.sequence),
      run.events.map((e) => e.sequence),
    );
    assert.equal(
      s.frames.at(-1)!.id,
      String(run.events.at(-1)!.sequence),
      'a batch is named by its last sequence',
    );
    for (const bad of ['5001', '-1', 'soon', '1.5'])
      for (const accept of ['text/event-stream', 'application/json']) {
        const r = await server.api('GET', `${run.path}/events?bufferMs=${bad}`, {
          key: acme,
          headers: { Accept: accept },
        });
        assert.equal(r.status, 400, `bufferMs=${bad} (${accept})`);
        assert.equal(r.body.error, 'validation_error');
        assert.equal((r.body.details as { field: string }).field, 'bufferMs');
      }
  });

  test('a quiet stream wakes when its run moves: an approval reaches it within a moment', async () => {
    const c = await create({ workflowId: 'conformance-approval' });
    const path = bound(c.runId);
    await server.waitFor(path, acme, (s) => s === 'waiting-approval');
    const reading = sse(`${path}/events?streamMode=debug`, { ms: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const ok = await server.api('POST', `${path}/interrupts/gate`, {
      key: acme,
      body: { resumeValue: { action: 'accept' } },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const s = await reading;
    assert.equal(s.closedByServer, true);
    assert.equal(s.frames.at(-1)!.event, 'run.completed');
    assert.ok(Date.now() - t0 < 3000, `woken by the append, not a poll (${Date.now() - t0} ms)`);
  });
});

describe('owner (identity.md §1.1)', () => {
  test('the snapshot owner is {tenant, subject} with the closed v2 subject, and run.started echoes it exactly', async () => {
    const run = await finished('conformance-noop');
    const snap = await server.api<{ owner: Record<string, unknown> }>('GET', run.path, { key: acme });
    const owner = snap.body.owner;
    assert.deepEqual(Object.keys(owner).sort(), ['subject', 'tenant']);
    assert.equal(owner.tenant, 'acme');
    const subject = owner.subject as Record<string, unknown>;
    assert.deepEqual(Object.keys(subject).sort(), ['issuer', 'kind', 'lane', 'subjectId', 'tenant']);
    assert.match(String(subject.issuer), /^\S+$/);
    assert.match(String(subject.subjectId), /^[^\s/]{1,256}$/);
    assert.equal(subject.tenant, 'acme');
    assert.equal(subject.lane, 'api-key');
    assert.equal(subject.kind, 'user');
    assert.deepEqual(run.events[0]!.payload.owner, owner);
    const v1 = await server.api<{ owner: unknown }>('GET', `/v1/runs/${run.runId.split('/')[1]}`, {
      key: acme,
    });
    assert.deepEqual(v1.body.owner, owner);
  });
});

describe('replay (replay.md)', () => {
  test('GET /host/effect-seams: every outbound seam guarded, the facet names its address, and it needs a key', async () => {
    const disco = await server.api<{ replay: Record<string, unknown> }>('GET', '/.well-known/openwop', {
      headers: V2,
    });
    assert.equal(disco.body.replay.effectSeamsManifest, '/host/effect-seams');
    const r = await server.api<{
      manifestVersion: string;
      host: { name: string; build: { kind: string; id: string } };
      seams: { seam: string; kind: string; guarded: boolean; guardedBy: string; branchReFires?: boolean }[];
    }>('GET', '/host/effect-seams', { key: acme });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('openwop-version'), '2.0');
    assert.equal(r.body.manifestVersion, '1');
    assert.equal(r.body.host.build.kind, 'artifact-sha256');
    assert.match(r.body.host.build.id, /^[0-9a-f]{64}$/);
    assert.ok(r.body.seams.length > 0);
    for (const s of r.body.seams) {
      assert.equal(s.guarded, true, s.seam);
      assert.ok(s.guardedBy.length > 0, s.seam);
      assert.ok(
        ['http', 'smtp', 'queue', 'storage', 'provider-sdk', 'webhook-fanout', 'other'].includes(s.kind),
      );
    }
    assert.ok(
      r.body.seams.some((s) => s.kind === 'provider-sdk'),
      'model calls are a seam',
    );
    assert.equal((await server.api('GET', '/host/effect-seams')).status, 401);
  });

  test("a fork's events before fromSeq equal its source's exactly (runId aside); the event at fromSeq is re-executed", async () => {
    const source = await finished('conformance-multi-node');
    const point = source.events.find((e, i) => e.type === 'node.completed' && i < source.events.length - 1)!;
    const fromSeq = point.sequence;
    const fork = await server.api<{ runId: string; sourceRunId: string }>('POST', `${source.path}:fork`, {
      key: acme,
      body: { mode: 'replay', fromSeq },
    });
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    await server.waitFor(bound(fork.body.runId), acme, terminal);
    const forked = await eventsOf(bound(fork.body.runId));
    const strip = (e: Ev) => ({ ...e, runId: undefined });
    assert.deepEqual(
      forked.slice(0, fromSeq).map(strip),
      source.events.slice(0, fromSeq).map(strip),
      'eventId, type, payload, timestamp and sequence of every inherited event',
    );
    assert.ok(forked.every((e) => e.runId === fork.body.runId));
    assert.equal('forkOf' in forked[0]!.payload, false, 'run.started is the source’s, with no fork marker');
    assert.notEqual(
      forked[fromSeq]!.eventId,
      source.events[fromSeq]!.eventId,
      'the event at fromSeq is the fork’s own',
    );
    // The prefix ends inside the node (its node.started inherited, its outcome not): the fork
    // restarts it, so the event at fromSeq is a fresh node.started of that node (v2-run-fork-prefix).
    assert.deepEqual([forked[fromSeq]!.type, forked[fromSeq]!.nodeId], ['node.started', point.nodeId]);
    assert.deepEqual(
      [forked[fromSeq + 1]!.type, forked[fromSeq + 1]!.nodeId],
      ['node.completed', point.nodeId],
    );
  });

  test('conformance-replay-side-effect: cancelled mid-wait, its replay fork fails the effect closed (replay_source_missing) and never performs it', async () => {
    const disco = await server.api<{ replay: Record<string, unknown>; fixtures: string[] }>(
      'GET',
      '/.well-known/openwop',
    );
    assert.equal(disco.body.replay.sideEffectSuppression, 'recorded-outcome');
    assert.ok(disco.body.fixtures.includes('conformance-replay-side-effect'));
    const c = await create(
      { workflowId: 'conformance-replay-side-effect', inputs: { delayMs: 1500 } },
      { v1: true },
    );
    const path = `/v1/runs/${c.runId}`;
    await server.waitFor(path, acme, (s) => s === 'running');
    await new Promise((r) => setTimeout(r, 150));
    assert.equal((await server.api('POST', `${path}/cancel`, { key: acme, body: {} })).status, 200);
    assert.equal((await server.waitFor(path, acme, terminal)).status, 'cancelled');
    const sourceEvents = await eventsOf(path);
    assert.equal(
      sourceEvents.some((e) => e.nodeId === 'effect'),
      false,
      'the source never reached the effect',
    );
    const fork = await server.api<{ runId: string }>('POST', `${path}:fork`, {
      key: acme,
      body: { mode: 'replay' },
    });
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    const forkPath = `/v1/runs/${fork.body.runId}`;
    assert.equal((await server.waitFor(forkPath, acme, terminal, 20_000)).status, 'failed');
    const effect = (await eventsOf(forkPath)).filter((e) => e.nodeId === 'effect');
    assert.equal(
      effect.some((e) => e.type === 'node.completed'),
      false,
      'the side effect was not performed',
    );
    const failed = effect.find((e) => e.type === 'node.failed');
    assert.ok(failed, 'the effect node failed');
    assert.equal((failed.payload.error as { code: string }).code, 'replay_source_missing');
    const effects = await server.api<{ effects: { nodeId: string; state: string }[] }>(
      'GET',
      `${forkPath}/effects`,
      {
        key: acme,
      },
    );
    assert.equal(effects.body.effects.find((e) => e.nodeId === 'effect')?.state, 'released');
  });
});

describe('runs (runs.md)', () => {
  test('GET /runs lists full run snapshots; a cursor the host never minted is 400 validation_error', async () => {
    await finished('conformance-noop');
    const list = await server.api<{ runs: Record<string, unknown>[] }>('GET', '/runs?limit=5', { key: acme });
    assert.equal(list.status, 200);
    assert.ok(list.body.runs.length > 0);
    for (const run of list.body.runs) {
      assert.match(String(run.runId), /^acme\/[0-9a-f]{64}$/);
      const snap = await server.api('GET', bound(String(run.runId)), { key: acme });
      assert.deepEqual(run, snap.body, 'each entry is the run’s snapshot');
    }
    for (const prefix of ['', '/v1']) {
      const bad = await server.api('GET', `${prefix}/runs?cursor=openwop-conformance-not-a-cursor`, {
        key: acme,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error, 'validation_error', 'never a Keel code such as usage');
      assert.equal((bad.body.details as { field: string }).field, 'cursor');
    }
  });

  test('a run id whose ~ escape is broken is 400 validation_error; a double-projected one is simply not found', async () => {
    const run = await finished('conformance-noop');
    const hex = run.runId.split('/')[1]!;
    const broken = await server.api('GET', '/runs/acme~2', { key: acme });
    assert.deepEqual([broken.status, broken.body.error], [400, 'validation_error']);
    const twice = await server.api('GET', `/runs/acme~7E2F${hex}`, { key: acme });
    assert.deepEqual([twice.status, twice.body.error], [404, 'not_found']);
    const unknown = await server.api('GET', '/runs/acme~2Fnot-a-run-of-keel-0123456789', { key: acme });
    assert.deepEqual([unknown.status, unknown.body.error], [404, 'not_found']);
  });

  test('bulk cancel (v2): each failed entry carries the error envelope {error, message}; a foreign id is refused in its entry', async () => {
    const done = await finished('conformance-noop');
    const r = await server.api<{
      results: { runId: string; ok: boolean; error?: Record<string, unknown> }[];
    }>('POST', '/runs:bulk-cancel', {
      key: acme,
      body: { runIds: [done.runId, 'openwop-conformance-foreign-tenant/foreignopaque0123456789abcdef'] },
    });
    assert.equal(r.status, 200);
    const [own, foreign] = r.body.results;
    assert.equal(own!.ok, false);
    assert.equal(own!.error!.error, 'run_terminal');
    assert.equal(typeof own!.error!.message, 'string');
    assert.equal('code' in own!.error!, false, 'v2: the entry error is the envelope (errors.md)');
    assert.equal(foreign!.ok, false);
    assert.ok(['id_tenant_mismatch', 'not_found'].includes(String(foreign!.error!.error)));
  });

  test('pause and resume refusals name the run status: run_terminal on a finished run, run_state_conflict otherwise', async () => {
    const done = await finished('conformance-noop');
    for (const op of [':pause', ':resume']) {
      const r = await server.api('POST', `${done.path}${op}`, { key: acme, body: {} });
      assert.equal(r.status, 409, op);
      assert.equal(r.body.error, 'run_terminal', op);
      assert.equal((r.body.details as { runStatus: string }).runStatus, 'completed', op);
    }
    const c = await create({ workflowId: 'conformance-approval' });
    await server.waitFor(bound(c.runId), acme, (s) => s === 'waiting-approval');
    for (const op of [':pause', ':resume']) {
      const r = await server.api('POST', `${bound(c.runId)}${op}`, { key: acme, body: {} });
      assert.equal(r.status, 409, op);
      assert.equal(r.body.error, 'run_state_conflict', op);
      assert.equal((r.body.details as { runStatus: string }).runStatus, 'waiting-approval', op);
    }
    await server.api('POST', `${bound(c.runId)}/cancel`, { key: acme, body: {} });
  });

  test('drainPolicy immediate: 202 at once, the idempotent call in progress is cut (no node event), and made again on resume', async () => {
    const c = await create({ workflowId: 'conformance-delay', inputs: { delayMs: 4000 } });
    const path = bound(c.runId);
    await server.waitFor(path, acme, (s) => s === 'running');
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    const paused = await server.api('POST', `${path}:pause`, {
      key: acme,
      body: { reason: 'now', drainPolicy: 'immediate' },
    });
    assert.equal(paused.status, 202, JSON.stringify(paused.body));
    assert.equal(paused.body.status, 'paused');
    assert.ok(Date.now() - t0 < 2500, `without waiting for the 4 s node (${Date.now() - t0} ms)`);
    const types = (await eventsOf(path)).map((e) => e.type);
    assert.deepEqual(types, ['run.started', 'node.started', 'run.paused']);
    const pausedEvent = (await eventsOf(path)).at(-1)!;
    assert.equal(pausedEvent.payload.drainPolicy, 'immediate');
    assert.equal(pausedEvent.payload.interruptedNodeId, 'wait', 'the cut is recorded');
    assert.equal(pausedEvent.payload.interruptedAttempt, 1);
    const resumed = await server.api('POST', `${path}:resume`, { key: acme, body: {} });
    assert.equal(resumed.status, 202);
    assert.equal((await server.waitFor(path, acme, terminal, 20_000)).status, 'completed');
    assert.deepEqual(
      (await eventsOf(path)).map((e) => e.type),
      ['run.started', 'node.started', 'run.paused', 'run.resumed', 'node.completed', 'run.completed'],
    );
    const verified = await server.api<{ ok: boolean }>(
      'POST',
      `/api/runs/sha256:${c.runId.split('/')[1]}/verify`,
      {
        key: acme,
      },
    );
    assert.equal(verified.body.ok, true, JSON.stringify(verified.body));
  });

  test('a dotted or unknown configurable key on a v2 create is 400 validation_error naming it; v1 stays lenient', async () => {
    await create({ workflowId: 'conformance-noop', configurable: { version: 1 } });
    for (const [configurable, field] of [
      [{ version: 1, ai: { 'ai.provider': 'x' } }, 'configurable.ai.ai.provider'],
      [{ version: 1, unknownKey: 1 }, 'configurable.unknownKey'],
      [{ ai: { provider: 'x' } }, 'configurable.version'],
      [{ version: 1, run: { recursionLimit: 0 } }, 'configurable.run.recursionLimit'],
    ] as const) {
      const r = await server.api('POST', '/runs', {
        key: acme,
        body: { workflowId: 'conformance-noop', configurable },
      });
      assert.equal(r.status, 400, JSON.stringify(configurable));
      assert.equal(r.body.error, 'validation_error');
      assert.equal((r.body.details as { field: string }).field, field);
    }
    await create({ workflowId: 'conformance-noop', configurable: { runTimeoutMs: 5000 } }, { v1: true });
  });

  test('conformance-identity echoes an arbitrary payload: the v1 snapshot variables and run.completed outputs', async () => {
    const payload = {
      s: 'hello',
      n: 42,
      b: true,
      a: [1, 'two', { three: 3 }],
      nested: { deeper: { leaf: 'x' } },
    };
    const c = await create({ workflowId: 'conformance-identity', inputs: { payload } }, { v1: true });
    const snap = await server.waitFor(`/v1/runs/${c.runId}`, acme, terminal);
    assert.equal(snap.status, 'completed');
    const full = await server.api<{ variables: { payload: unknown } }>('GET', `/v1/runs/${c.runId}`, {
      key: acme,
    });
    assert.deepEqual(full.body.variables.payload, payload);
    const done = (await eventsOf(`/v1/runs/${c.runId}`)).at(-1)!;
    assert.deepEqual((done.payload.outputs as { payload: unknown }).payload, payload);
  });

  test('discovery advertises the node-execution limit every run is held to, and no run-duration limit it does not enforce', async () => {
    for (const headers of [{}, V2]) {
      const r = await server.api<{ limits: Record<string, unknown> }>('GET', '/.well-known/openwop', {
        headers,
      });
      assert.equal(r.body.limits.maxNodeExecutions, 1000);
      assert.equal('maxRunDurationMs' in r.body.limits, false);
    }
    const nodes = Array.from({ length: 1001 }, (_, i) => ({
      id: `n${i}`,
      typeId: 'core.noop',
      name: `N${i}`,
      position: { x: 0, y: 0 },
      config: {},
      inputs: {},
    }));
    const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, sourceNodeId: `n${i}`, targetNodeId: n.id }));
    const big = await server.api<{
      error: string;
      details: { problems: { field: string; message: string }[] };
    }>('POST', '/api/workflows', {
      key: acme,
      body: {
        id: 'too-long',
        name: 'Too long',
        version: '1',
        nodes,
        edges,
        triggers: [],
        variables: [],
        metadata: {},
        settings: {},
      },
    });
    assert.equal(big.status, 400);
    assert.equal(big.body.details.problems[0]!.field, 'nodes');
    assert.match(big.body.details.problems[0]!.message, /1000 node executions/);
  });
});

describe('protocol edges', () => {
  test('a body over the limit is 413 payload_too_large and still names its contract (OpenWOP-Version)', async () => {
    for (const [path, version] of [
      ['/runs', '2.0'],
      ['/v1/runs', '1.0'],
    ] as const) {
      const r = await server.api('POST', path, {
        key: acme,
        body: { workflowId: 'conformance-noop', inputs: { blob: 'x'.repeat(1024 * 1024) } },
      });
      assert.equal(r.status, 413);
      assert.equal(r.body.error, 'payload_too_large');
      assert.equal(r.headers.get('openwop-version'), version, path);
    }
  });

  test('/v1/openapi.json serves the OpenAPI document under contract 1.0', async () => {
    const r = await server.api<{ openapi: string; paths: Record<string, unknown> }>(
      'GET',
      '/v1/openapi.json',
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('openwop-version'), '1.0');
    assert.equal(r.body.openapi, '3.1.0');
    assert.ok('/v1/runs' in r.body.paths && '/host/effect-seams' in r.body.paths);
  });
});

describe('idempotency keys (idempotency.md)', () => {
  test('a keyed create keeps its run id after its idempotency record is lost: the retry names the same run', async () => {
    const key = `conformance-lost-record-${crypto.randomUUID()}`;
    const body = { workflowId: 'conformance-idempotent', inputs: { nonce: 'first-attempt' } };
    const first = await create(body, { v1: true, idem: key });
    await server.waitFor(`/v1/runs/${first.runId}`, acme, terminal);
    const removed = withDb(
      sandbox.store(),
      (db) => db.prepare('DELETE FROM idempotency WHERE key = ?').run(key).changes,
    );
    assert.equal(removed, 1, 'the record is gone, as after a crash that lost it');
    const listed = async () =>
      (
        await server.api<{ runs: unknown[] }>('GET', '/v1/runs?workflowId=conformance-idempotent&limit=100', {
          key: acme,
        })
      ).body.runs.length;
    const before = await listed();
    const retry = await server.api<Created>('POST', '/v1/runs', {
      key: acme,
      body,
      headers: { 'Idempotency-Key': key },
    });
    assert.equal(retry.status, 201);
    assert.equal(retry.body.runId, first.runId, 'the same run, derived from the key');
    assert.equal(await listed(), before, 'no second run');
    // Another key, same body: another run.
    const other = await create(body, { v1: true, idem: `conformance-other-key-${crypto.randomUUID()}` });
    assert.notEqual(other.runId, first.runId);
    const hist = await server.api<{ history: { kind: string }[] }>(
      'GET',
      `/api/runs/sha256:${first.runId}/history`,
      {
        key: acme,
      },
    );
    assert.equal(hist.body.history.filter((h) => h.kind === 'run.started').length, 1);
  });
});
