/**
 * Finding runs in the SQLite file: each search is answered by an index (the plan names it and
 * never scans the table), and a file written before run rows kept their subject is filled from
 * each run's root when it is opened.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { hashOf } from '../../core/canonical/index.ts';
import { chainEntry } from '../../core/ledger/index.ts';
import type { RunFilter } from '../../ports/index.ts';
import { sampleEvent } from '../../testing/index.ts';
import { encodeCursor } from '../shared/rows.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
import { runListQuery } from './sqlite-run-index.ts';
import { SqliteStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-sqlite-search-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function rootOf(tenant: string, subject: string, at: string) {
  const runId = hashOf({ tenant, subject, at });
  const payload = {
    tenant,
    workflowId: 'wf',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE' as const,
    event: sampleEvent({ tenant, subject }),
    engine: 'keel/test',
  };
  return chainEntry(runId, null, 'run.started', payload, at).stored;
}

/** The plan SQLite chooses for a listing, one line per step. */
function planOf(db: Database.Database, filter: RunFilter): string {
  const q = runListQuery('t1', filter, 50);
  return (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[])
    .map((r) => r.detail)
    .join('\n');
}

test('every search reads an index, never the whole table: subject, subject prefix, run id prefix, a jump to a date', async () => {
  const path = join(dir, 'plan.db');
  const store = new SqliteStore(path);
  for (let i = 0; i < 300; i++) {
    const tenant = i % 3 === 0 ? 't2' : 't1';
    const root = rootOf(
      tenant,
      `T-${i % 40}`,
      `2026-04-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`,
    );
    await store.ledger.append({
      tenant,
      runId: root.runId,
      expectedHead: null,
      entries: [root],
      status: 'completed',
      create: {
        workflowId: 'wf',
        version: 1,
        specHash: hashOf('spec'),
        eventId: `e-${i}`,
        eventType: 't',
        subject: `T-${i % 40}`,
      },
    });
  }
  await store.close();
  const db = new Database(path, { readonly: true });
  try {
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'")
      .pluck()
      .all();
    assert.ok(indexes.includes('runs_by_subject'), `indexes on runs: ${indexes.join(', ')}`);
    const cursor = encodeCursor('2026-04-01T00:02:00.000Z', 'sha256:80');
    const cases: [string, RunFilter, RegExp][] = [
      ['subject', { subject: 'T-7' }, /USING INDEX runs_by_subject \(tenant=\? AND subject=\?\)/],
      [
        'subject, paged',
        { subject: 'T-7', cursor },
        /USING INDEX runs_by_subject \(tenant=\? AND subject=\?/,
      ],
      [
        'subject prefix',
        { subjectPrefix: 'T-1' },
        /USING INDEX runs_by_subject \(tenant=\? AND subject>\? AND subject<\?\)/,
      ],
      [
        'run id prefix',
        { runId: 'sha256:0123abcd' },
        /USING INDEX sqlite_autoindex_runs_1 \(run_id>\? AND run_id<\?\)/,
      ],
      [
        'whole run id',
        { runId: `sha256:${'a'.repeat(64)}` },
        /USING INDEX sqlite_autoindex_runs_1 \(run_id=\?\)/,
      ],
      [
        'jump to a date',
        { until: '2026-04-01T00:02:00.000Z' },
        /USING INDEX runs_by_tenant \(tenant=\? AND created_at<\?\)/,
      ],
      [
        'jump, paged',
        { until: '2026-04-01T00:02:00.000Z', cursor },
        /USING INDEX runs_by_tenant \(tenant=\?/,
      ],
    ];
    for (const [what, filter, expected] of cases) {
      const plan = planOf(db, filter);
      assert.match(plan, expected, `${what}:\n${plan}`);
      assert.doesNotMatch(plan, /^SCAN runs$/m, `${what} scans the table:\n${plan}`);
    }
    // The exact subject and the date come out of their index in the listing's order: no sort.
    for (const filter of [{ subject: 'T-7' }, { until: '2026-04-01T00:02:00.000Z' }, {}])
      assert.doesNotMatch(planOf(db, filter), /TEMP B-TREE/, JSON.stringify(filter));
  } finally {
    db.close();
  }
});

test('a file from before run subjects is upgraded: each row takes its root event subject; a root that is not JSON leaves none', async () => {
  const path = join(dir, 'v16.db');
  const raw = new Database(path);
  for (const m of MIGRATIONS.slice(0, 16)) raw.exec(m);
  raw.pragma('user_version = 16');
  const put = (subject: string, at: string, payload?: Uint8Array) => {
    const root = rootOf('t1', subject, at);
    const { lastInsertRowid: key } = raw
      .prepare(`INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
        VALUES (?, 't1', 'wf', 1, ?, 'completed', 0, ?, 'evt-1', 'refund.requested', ?, ?)`)
      .run(root.runId, hashOf('spec'), root.hash, at, at);
    raw
      .prepare(`INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
        VALUES (?, 0, ?, ?, NULL, unhex(substr(?, 8)), unhex(substr(?, 8)), ?, ?)`)
      .run(
        key,
        root.v,
        root.kind,
        root.payloadHash,
        root.hash,
        root.at,
        Buffer.from(payload ?? root.payload),
      );
    return root.runId;
  };
  const withSubject = put('T-42', '2026-04-02T00:00:01.000Z');
  const without = put('', '2026-04-02T00:00:02.000Z');
  const broken = put('T-43', '2026-04-02T00:00:03.000Z', new TextEncoder().encode('{not json'));
  raw.close();
  const store = new SqliteStore(path);
  try {
    assert.equal((await store.runs.getRun('t1', withSubject))?.subject, 'T-42');
    assert.equal((await store.runs.getRun('t1', without))?.subject, undefined);
    assert.equal((await store.runs.getRun('t1', broken))?.subject, undefined);
    const found = await store.runs.listRuns('t1', { subject: 'T-42' });
    assert.deepEqual(
      found.runs.map((r) => r.runId),
      [withSubject],
    );
  } finally {
    await store.close();
  }
  const check = new Database(path);
  assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  check.close();
});
