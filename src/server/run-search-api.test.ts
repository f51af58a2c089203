/**
 * Finding runs over `/api/runs`: by subject (exactly or a prefix), by run id (whole or 8+ hex
 * digits), a jump to a date (`until`) paged on by the cursor; every parameter checked strictly (an
 * unknown one, a bad date, a short id: 400 naming it) and every answer scoped to the key's tenant.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inProcessServer, type Json } from '../../test/helpers/in-process-server.ts';
import { setStatus } from '../testing/index.ts';

const PLAIN = {
  id: 'plain',
  version: 1,
  status: 'DRAFT',
  triggers: [{ event: 'ping' }],
  steps: [{ name: 'a', tool: 'core.noop' }],
  limits: { maxSteps: 1, maxCostUsd: 0 },
};

const t = inProcessServer();
const api = t.api;
/** Run ids by subject, in the order started (oldest first). */
const started: { subject: string; runId: string; createdAt: string }[] = [];

/** Publishes the workflow and starts its runs, once (the server's own hooks run first). */
let ready: Promise<void> | undefined;
const setup = () => {
  ready ??= startRuns();
  return ready;
};

async function startRuns(): Promise<void> {
  const r = await api('POST', '/api/workflows', { body: { text: JSON.stringify(PLAIN), format: 'json' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await setStatus(t.keel, 'acme', 'plain', 1, 'LIVE');
  const subjects = ['T-1', 'T-10', 'T-2', 'T-1', '', 'T-1'];
  for (const [i, subject] of subjects.entries()) {
    const e = await api('POST', '/api/events', {
      body: { id: `evt-${i}`, type: 'ping', time: '2026-01-31T12:00:00Z', ...(subject ? { subject } : {}) },
    });
    assert.equal(e.status, 201, JSON.stringify(e.body));
    const runId = (e.body.runs as Json[])[0]!.runId as string;
    await t.server.host.drain();
    const run = await api('GET', `/api/runs/${runId}`);
    started.push({ subject, runId, createdAt: run.body.createdAt as string });
    // Distinct creation times, so the jump below has a clear boundary.
    await new Promise((res) => setTimeout(res, 5));
  }
}

const ids = async (q: string, key?: string) => {
  const r = await api('GET', `/api/runs${q}`, key ? { key } : {});
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.runs as Json[]).map((x) => x.runId as string);
};
const newest = (pick: (s: string) => boolean) =>
  started
    .filter((s) => pick(s.subject))
    .map((s) => s.runId)
    .reverse();

test('finds runs by subject, exactly or by prefix, each listed with its subject', async () => {
  await setup();
  assert.deepEqual(
    await ids('?subject=T-1'),
    newest((s) => s === 'T-1'),
  );
  assert.deepEqual(
    await ids('?subjectPrefix=T-1'),
    newest((s) => s.startsWith('T-1')),
  );
  assert.deepEqual(await ids('?subject=T-1&limit=2'), newest((s) => s === 'T-1').slice(0, 2));
  assert.deepEqual(await ids('?subject=T-9'), []);
  const all = (await api('GET', '/api/runs')).body.runs as Json[];
  assert.deepEqual(
    all.map((r) => r.subject ?? null),
    [...started].reverse().map((s) => s.subject || null),
  );
  // Another tenant's key finds none of acme's runs by subject or id.
  assert.deepEqual(await ids('?subject=T-1', t.globex), []);
  assert.deepEqual(await ids(`?runId=${started[0]!.runId}`, t.globex), []);
});

test('finds a run by its id or its first 8+ hex digits, with or without sha256:, in any case', async () => {
  await setup();
  const { runId } = started[2]!;
  const hex = runId.slice('sha256:'.length);
  assert.deepEqual(await ids(`?runId=${runId}`), [runId]);
  assert.deepEqual(await ids(`?runId=${hex.slice(0, 10)}`), [runId]);
  assert.deepEqual(await ids(`?runId=sha256:${hex.slice(0, 8).toUpperCase()}`), [runId]);
});

test('jumps to a date: the runs created before it, then older ones by the cursor', async () => {
  await setup();
  const at = started[3]!.createdAt;
  const older = started
    .slice(0, 3)
    .map((s) => s.runId)
    .reverse();
  const first = await api('GET', `/api/runs?until=${encodeURIComponent(at)}&limit=2`);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(
    (first.body.runs as Json[]).map((r) => r.runId),
    older.slice(0, 2),
  );
  const rest = await api(
    'GET',
    `/api/runs?until=${encodeURIComponent(at)}&limit=2&cursor=${first.body.next as string}`,
  );
  assert.deepEqual(
    (rest.body.runs as Json[]).map((r) => r.runId),
    older.slice(2),
  );
  assert.equal(rest.body.next, undefined);
  // With a subject too: T-1's runs before that time.
  assert.deepEqual(await ids(`?subject=T-1&until=${encodeURIComponent(at)}`), [started[0]!.runId]);
});

test('a bad or unknown parameter is refused with 400 naming it, never ignored', async () => {
  await setup();
  const refused = async (q: string, field: string, message: RegExp) => {
    const r = await api('GET', `/api/runs${q}`);
    assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
    assert.equal((r.body.details as Json | undefined)?.field ?? r.body.field, field, JSON.stringify(r.body));
    assert.match(r.body.message as string, message);
  };
  await refused('?subjct=T-1', 'subjct', /subjct: unknown field/);
  await refused('?until=2026-02-30T00:00:00Z', 'until', /February 2026 has 28 days/);
  await refused('?until=2026-02-01', 'until', /until/);
  await refused('?since=yesterday', 'since', /since/);
  await refused('?runId=3fa9c2d', 'runId', /runId: a run id prefix has 8 to 64 hex digits, got 7/);
  await refused('?runId=T-1', 'runId', /runId: expected a run id or the first 8\+ hex digits/);
  await refused('?subject=T-1&subjectPrefix=T', 'subjectPrefix', /give subject or subjectPrefix, not both/);
  await refused('?subject=', 'subject', /subject/);
  await refused(`?subject=${'x'.repeat(513)}`, 'subject', /subject/);
});
