/**
 * Live event feeds over a real SQLite store: one watcher per run however many readers, reads of
 * only the entries appended since, woken by the store's append notifications; the slow poll alone
 * still delivers when notifications are lost; a fork's inherited events are its source's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createKeel, type Keel } from '../app/keel.ts';
import type { StoredEntry } from '../core/ledger/index.ts';
import type { AppendListener } from '../ports/index.ts';
import { fakeSources } from '../testing/index.ts';
import { compileDefinition } from './definition.ts';
import { fixtureDefinitions } from './fixtures.ts';
import { projectRun, RunFeeds } from './run-feeds.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-run-feeds-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function keelWith(...workflowIds: string[]): Promise<Keel> {
  const keel = createKeel({ store: join(dir, `f${n++}.db`), sources: fakeSources({ seed: 3 }) });
  for (const id of workflowIds)
    await keel.workflows.publishObject('t', compileDefinition(fixtureDefinitions().get(id)!), 'test');
  return keel;
}

const event = (id: string, inputs: Record<string, unknown> = {}) => ({
  id,
  type: 'openwop.run.requested',
  time: '2026-11-30T00:00:00Z',
  payload: { inputs },
});

/** The store's reads, counted: which run, from which seq, how many entries came back. */
function countingSource(keel: Keel, o: { silent?: boolean; withoutEntries?: boolean } = {}) {
  const reads: { runId: string; fromSeq: number; got: number }[] = [];
  return {
    reads,
    async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number): Promise<StoredEntry[]> {
      const got = await keel.store.ledger.readEntries(tenant, runId, fromSeq, limit);
      reads.push({ runId, fromSeq, got: got.length });
      return got;
    },
    // `silent`: every notification is lost; only the feeds' own poll can notice appends.
    // `withoutEntries`: notifications name the run only, as PostgreSQL's and other processes' do.
    onAppended: o.silent
      ? async () => async () => {}
      : (listener: AppendListener) =>
          keel.store.ledger.onAppended((runId, entries) =>
            listener(runId, o.withoutEntries ? undefined : entries),
          ),
  };
}

async function until(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('one watcher per run however many readers; an append is read from the head on, once, and reaches every reader', async () => {
  const keel = await keelWith('conformance-approval');
  const run = await keel.runs.start('t', 'conformance-approval', event('e1'), { live: true });
  assert.equal(run.status, 'waiting_approval');
  const src = countingSource(keel, { withoutEntries: true });
  const feeds = new RunFeeds(src, { fallbackPollMs: 60_000 });
  const woken = new Array(20).fill(0);
  const readers = await Promise.all(woken.map((_, i) => feeds.open('t', run.runId, () => woken[i]++)));
  assert.equal(feeds.watched, 1, 'twenty readers, one watcher');
  const backlog = readers[0]!.events.length;
  assert.ok(backlog > 0 && readers.every((r) => r.events.length === backlog && !r.terminal));
  await new Promise((r) => setTimeout(r, 100));
  const head = (await keel.runs.get('t', run.runId)).head.seq;
  src.reads.length = 0;
  await keel.approvals.approve('t', run.runId, 'alice');
  await until(() => readers.every((r) => r.terminal));
  assert.ok(
    woken.every((w) => w >= 1),
    'every reader was told',
  );
  assert.ok(src.reads.length >= 1 && src.reads.length <= 4, `few reads for one append: ${src.reads.length}`);
  assert.equal(src.reads[0]!.fromSeq, head + 1, 'only what was appended since is read');
  assert.equal(readers[0]!.events.at(-1)!.event.type, 'run.completed');
  for (const r of readers) r.close();
  assert.equal(feeds.watched, 0, 'the last reader gone, nothing is watched');
  await feeds.close();
  await keel.close();
});

test("this process's appends come with their entries: the feed takes them without reading, the same events a fresh read projects", async () => {
  const keel = await keelWith('conformance-approval');
  const run = await keel.runs.start('t', 'conformance-approval', event('e5'), { live: true });
  const src = countingSource(keel);
  const feeds = new RunFeeds(src, { fallbackPollMs: 60_000 });
  const reader = await feeds.open('t', run.runId, () => {});
  await new Promise((r) => setTimeout(r, 100));
  src.reads.length = 0;
  await keel.approvals.approve('t', run.runId, 'alice');
  await until(() => reader.terminal);
  assert.deepEqual(src.reads, [], 'nothing was read back');
  assert.deepEqual(reader.events, (await projectRun(keel.store.ledger, 't', run.runId, run.runId)).events);
  reader.close();
  await feeds.close();
  await keel.close();
});

test("a feed opened on a run this process appended lately, up to the head its caller saw, starts from those entries unread; the tenant's own only; another process's commit forgets them", async () => {
  const keel = await keelWith('conformance-approval');
  const file = join(dir, `f${n - 1}.db`);
  const src = countingSource(keel);
  const feeds = new RunFeeds(src, { fallbackPollMs: 60_000 });
  // Listening starts with the first feed opened.
  const warm = await keel.runs.start('t', 'conformance-approval', event('e20'), { live: true });
  (await feeds.open('t', warm.runId, () => {})).close();
  const run = await keel.runs.start('t', 'conformance-approval', event('e21'), { live: true });
  await keel.approvals.approve('t', run.runId, 'alice');
  await new Promise((r) => setTimeout(r, 50));
  src.reads.length = 0;
  const head = (await keel.runs.get('t', run.runId)).head.seq;
  // A head past what this process was told of (a commit not announced yet): the ledger is read.
  (await feeds.open('t', run.runId, () => {}, head + 1)).close();
  assert.equal(src.reads.length, 1, 'read: the memory does not reach the head seen');
  src.reads.length = 0;
  // Without the head the caller saw, never from memory.
  (await feeds.open('t', run.runId, () => {})).close();
  assert.equal(src.reads.length, 1, 'read: no head said');
  src.reads.length = 0;
  const reader = await feeds.open('t', run.runId, () => {}, head);
  assert.deepEqual(src.reads, [], 'nothing was read');
  assert.ok(reader.terminal);
  assert.deepEqual(reader.events, (await projectRun(keel.store.ledger, 't', run.runId, run.runId)).events);
  reader.close();
  // Another tenant naming the run reads the store (which has nothing for it), never this memory.
  const other = await feeds.open('u', run.runId, () => {}, head);
  assert.equal(other.events.length, 0);
  assert.equal(src.reads.length, 1);
  other.close();
  // A commit by another handle on the file (another process) is announced without a run: forgotten.
  const second = createKeel({ store: file, sources: fakeSources({ seed: 4 }) });
  await new Promise((r) => setTimeout(r, 20));
  await second.runs.start('t', 'conformance-approval', event('e22'), { live: true });
  await until(
    () => src.reads.length > 1 || (feeds as unknown as { recent: Map<string, unknown> }).recent.size === 0,
  );
  src.reads.length = 0;
  (await feeds.open('t', run.runId, () => {}, head)).close();
  assert.equal(src.reads.length, 1, 'read again');
  await second.close();
  await feeds.close();
  await keel.close();
});

test('a feed reads its ledger once when opened; an append announced while that read is under way is read after it', async () => {
  const keel = await keelWith('conformance-approval');
  const quiet = await keel.runs.start('t', 'conformance-approval', event('e6'), { live: true });
  const src = countingSource(keel, { withoutEntries: true });
  const feeds = new RunFeeds(src, { fallbackPollMs: 60_000 });
  const first = await feeds.open('t', quiet.runId, () => {});
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(src.reads.length, 1, 'one read: the projection');
  first.close();
  // The projection's read is held until the run has moved on and its append was announced.
  const run = await keel.runs.start('t', 'conformance-approval', event('e7'), { live: true });
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const slow = {
    ...src,
    async readEntries(tenant: string, runId: string, fromSeq = 0, limit?: number) {
      const got = await src.readEntries(tenant, runId, fromSeq, limit);
      if (fromSeq === 0) await held;
      return got;
    },
  };
  const late = new RunFeeds(slow, { fallbackPollMs: 60_000 });
  const opening = late.open('t', run.runId, () => {});
  await new Promise((r) => setTimeout(r, 20));
  await keel.approvals.approve('t', run.runId, 'alice');
  await new Promise((r) => setTimeout(r, 20));
  release();
  const reader = await opening;
  await until(() => reader.terminal, 3000);
  assert.equal(reader.events.at(-1)!.event.type, 'run.completed');
  reader.close();
  await feeds.close();
  await late.close();
  await keel.close();
});

test('with every notification lost, the slow poll still delivers: a reader never hangs', async () => {
  const keel = await keelWith('conformance-approval');
  const run = await keel.runs.start('t', 'conformance-approval', event('e2'), { live: true });
  const feeds = new RunFeeds(countingSource(keel, { silent: true }), { fallbackPollMs: 150 });
  const reader = await feeds.open('t', run.runId, () => {});
  assert.equal(reader.terminal, false);
  await keel.approvals.approve('t', run.runId, 'alice');
  await until(() => reader.terminal, 3000);
  assert.equal(reader.events.at(-1)!.event.type, 'run.completed');
  reader.close();
  await feeds.close();
  await keel.close();
});

test('an append by another handle on the same file (another process, in production) reaches the feed', async () => {
  const keel = await keelWith('conformance-approval');
  const run = await keel.runs.start('t', 'conformance-approval', event('e3'), { live: true });
  const path = (keel.store as unknown as { path: string }).path;
  const other = createKeel({ store: path, sources: fakeSources({ seed: 4 }) });
  const feeds = new RunFeeds(countingSource(keel), { fallbackPollMs: 60_000 });
  const reader = await feeds.open('t', run.runId, () => {});
  await other.approvals.approve('t', run.runId, 'bob');
  await until(() => reader.terminal, 3000);
  reader.close();
  await feeds.close();
  await other.close();
  await keel.close();
});

test("a fork's events before its fork point are its source's, byte for byte but runId; run.started carries no fork marker", async () => {
  const keel = await keelWith('conformance-multi-node');
  const run = await keel.runs.start('t', 'conformance-multi-node', event('e4'), { live: true });
  assert.equal(run.status, 'completed');
  const entries = await keel.runs.entries('t', run.runId);
  for (const fromSeq of [1, 2, 3, entries.length - 1]) {
    const fork = await keel.runs.fork('t', run.runId, { fromSeq, mode: 'replay' });
    const source = (await projectRun(keel.store.ledger, 't', run.runId, 'r')).events;
    const forked = (await projectRun(keel.store.ledger, 't', fork.runId, 'r')).events;
    const k = source.findIndex((e) => e.ledgerSeq >= fromSeq);
    assert.ok(k > 0);
    assert.deepEqual(forked.slice(0, k), source.slice(0, k), `fork at ledger seq ${fromSeq}`);
    assert.equal('forkOf' in forked[0]!.event.payload, false);
    // A fork of a fork inherits the same events again.
    const again = await keel.runs.fork('t', fork.runId, { fromSeq, mode: 'replay' });
    assert.deepEqual(
      (await projectRun(keel.store.ledger, 't', again.runId, 'r')).events.slice(0, k),
      source.slice(0, k),
    );
  }
  await keel.close();
});
