/**
 * Event streams are limited per process and per tenant, and never dropped silently: one over a
 * limit is `429 rate_limited` with `Retry-After`, and a closed stream frees its slot. A reconnect
 * at or past the end of a finished run closes at once, so reconnects never pile up in the slots.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/keel.ts';
import { createServerApp } from './app.ts';

/** A server on an in-memory Keel, a key of tenant acme, and a conformance-approval run it created (it waits). */
async function approvalRun(o: {
  maxEventStreams?: number;
  maxEventStreamsPerTenant?: number;
  keepAliveMs?: number;
}) {
  const keel = createKeel({ store: ':memory:' });
  const { app, host } = createServerApp(keel, { ...o, log: () => {} });
  const { key } = await keel.keys.create('acme', 'dana');
  const auth = { Authorization: `Bearer ${key}` };
  const created = await app.request('/v1/runs', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflowId: 'conformance-approval' }),
  });
  const { runId } = (await created.json()) as { runId: string };
  return { keel, app, host, auth, runId };
}

test('a stream over maxEventStreams is 429 with Retry-After; closing one frees its slot', async () => {
  const { keel, app, host, auth, runId } = await approvalRun({ maxEventStreams: 1 });
  const sse = () =>
    app.request(`/v1/runs/${runId}/events`, { headers: { ...auth, Accept: 'text/event-stream' } });
  const first = await sse(); // the run waits for an approval, so this stream stays open
  assert.equal(first.status, 200);
  const second = await sse();
  assert.equal(second.status, 429);
  assert.equal(second.headers.get('retry-after'), '5');
  assert.equal(((await second.json()) as { error: string }).error, 'rate_limited');
  await first.body!.cancel();
  let third = await sse();
  for (let i = 0; i < 40 && third.status === 429; i++) {
    await new Promise((r) => setTimeout(r, 25));
    third = await sse();
  }
  assert.equal(third.status, 200, 'the closed stream gave its slot back');
  await third.body!.cancel();
  await new Promise((r) => setTimeout(r, 60));
  await host.drain();
  await keel.close();
});

test('an idle stream sends a keep-alive comment, and nothing else, while the run waits', async () => {
  const { keel, app, host, auth, runId } = await approvalRun({ keepAliveMs: 40 });
  while (
    ((await (await app.request(`/v1/runs/${runId}`, { headers: auth })).json()) as { status: string })
      .status !== 'waiting-approval'
  )
    await new Promise((r) => setTimeout(r, 10));
  const res = await app.request(`/v1/runs/${runId}/events`, {
    headers: { ...auth, Accept: 'text/event-stream' },
  });
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + 5000;
  while (!text.includes(': keep-alive\n\n') && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /event: interrupt.requested/, 'the backlog comes first');
  assert.match(text, /\n: keep-alive\n\n/);
  assert.doesNotMatch(text, /event: run\.completed/, 'the waiting run has not ended');
  await reader.cancel();
  await new Promise((r) => setTimeout(r, 60));
  await host.drain();
  await keel.close();
});

test('reconnects at or past the end of a finished run close at once: many more than the slots never lock anyone out', async () => {
  const keel = createKeel({ store: ':memory:' });
  const { app, host } = createServerApp(keel, { maxEventStreams: 3, keepAliveMs: 20, log: () => {} });
  const { key } = await keel.keys.create('acme', 'dana');
  const auth = { Authorization: `Bearer ${key}` };
  const created = await app.request('/v1/runs', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflowId: 'conformance-noop' }),
  });
  const { runId } = (await created.json()) as { runId: string };
  while (
    ((await (await app.request(`/v1/runs/${runId}`, { headers: auth })).json()) as { status: string })
      .status !== 'completed'
  )
    await new Promise((r) => setTimeout(r, 10));
  // The noop run's log ends at sequence 3; reconnect at its end and past it, 20 times (slots: 3).
  for (let i = 0; i < 20; i++) {
    const res = await app.request(`/v1/runs/${runId}/events`, {
      headers: { ...auth, Accept: 'text/event-stream', 'Last-Event-ID': String(3 + (i % 2) * 1000) },
    });
    assert.equal(res.status, 200, `reconnect ${i}`);
    // Resolves only because the server ends the stream: no frame, not even a keep-alive.
    assert.equal(await res.text(), '', `reconnect ${i} sends nothing and ends`);
  }
  const live = await app.request(`/v1/runs/${runId}/events`, {
    headers: { ...auth, Accept: 'text/event-stream' },
  });
  assert.equal(live.status, 200, 'a slot is still free for everyone else');
  assert.match(await live.text(), /event: run\.completed/);
  await host.drain();
  await keel.close();
});

test('one tenant cannot take every stream: its own limit is 429 while another tenant still gets a stream', async () => {
  const { keel, app, host, auth, runId } = await approvalRun({
    maxEventStreams: 4,
    maxEventStreamsPerTenant: 2,
  });
  const sse = (headers: Record<string, string>, id: string) =>
    app.request(`/v1/runs/${id}/events`, { headers: { ...headers, Accept: 'text/event-stream' } });
  const mine = [await sse(auth, runId), await sse(auth, runId)];
  assert.deepEqual(
    mine.map((r) => r.status),
    [200, 200],
  );
  const third = await sse(auth, runId);
  assert.equal(third.status, 429);
  assert.equal(third.headers.get('retry-after'), '5');
  assert.match(((await third.json()) as { message: string }).message, /this tenant/);
  const other = (await keel.keys.create('globex', 'eve')).key;
  const theirs = await app.request('/v1/runs', {
    method: 'POST',
    headers: { Authorization: `Bearer ${other}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflowId: 'conformance-approval' }),
  });
  const theirRun = ((await theirs.json()) as { runId: string }).runId;
  const stream = await sse({ Authorization: `Bearer ${other}` }, theirRun);
  assert.equal(stream.status, 200, 'another tenant still gets a stream');
  for (const r of [...mine, stream]) await r.body!.cancel();
  await new Promise((r) => setTimeout(r, 60));
  await host.drain();
  await keel.close();
});

test('a stream cancelled while its feed opens leaves nothing behind: no watcher, no keep-alive', async () => {
  const { keel, app, host, auth, runId } = await approvalRun({ keepAliveMs: 20 });
  for (let i = 0; i < 10; i++) {
    const res = await app.request(`/v1/runs/${runId}/events`, {
      headers: { ...auth, Accept: 'text/event-stream' },
    });
    assert.equal(res.status, 200);
    await res.body!.cancel();
  }
  await new Promise((r) => setTimeout(r, 50));
  const feeds = (host as unknown as { feeds: { watched: number } }).feeds;
  assert.equal(feeds.watched, 0, 'every reader closed');
  await host.drain();
  await keel.close();
});
