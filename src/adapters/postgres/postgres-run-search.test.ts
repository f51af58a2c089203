/**
 * Finding runs in PostgreSQL: with 20,000 runs analysed, each search is answered by an index (the
 * plan names it, never a sequential scan), and a schema from before run rows kept their subject is
 * filled from each run's root when migrated.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { hashOf } from '../../core/canonical/index.ts';
import { chainEntry } from '../../core/ledger/index.ts';
import type { RunFilter } from '../../ports/index.ts';
import { sampleEvent } from '../../testing/index.ts';
import { encodeCursor } from '../shared/rows.ts';
import { runListQuery } from './postgres-run-index.ts';
import { PostgresStore } from './postgres-store.ts';
import { MIGRATIONS } from './schema.ts';
import { dropSchema, openScratchStore, scratchSchemaName, testDatabaseUrl } from './scratch-schema.ts';

const url = testDatabaseUrl();
const schemas: string[] = [];
const fresh = (label: string) => {
  const s = scratchSchemaName(`keel_test_${label}`);
  schemas.push(s);
  return s;
};
after(async () => {
  for (const s of schemas) await dropSchema(url, s);
});

async function withClient<T>(schema: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    return await f(client);
  } finally {
    await client.end();
  }
}

test('every search reads an index, never a sequential scan: subject, subject prefix, run id prefix, a jump to a date', async () => {
  const schema = fresh('search_plan');
  const store = await openScratchStore(url, schema);
  await store.close();
  await withClient(schema, async (c) => {
    // 20,000 runs of t1 (and 2,000 of t2), a second apart, 2,000 subjects.
    await c.query(`
      INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash,
                        event_id, event_type, created_at, updated_at, subject)
      SELECT 'sha256:' || md5(g::text) || md5((-g)::text), CASE WHEN g % 11 = 0 THEN 't2' ELSE 't1' END,
             'wf', 1, 'h', 'completed', 0, 'h', 'e-' || g, 't',
             to_char(timestamp '2026-04-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             '2026-04-01', 'T-' || (g % 2000)
        FROM generate_series(1, 22000) g`);
    await c.query('ANALYZE runs');
    const indexes = (
      await c.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'runs'`, [schema])
    ).rows.map((r) => r.indexname as string);
    assert.ok(indexes.includes('runs_by_subject'), `indexes on runs: ${indexes.join(', ')}`);
    const planOf = async (filter: RunFilter) => {
      const q = runListQuery('t1', filter, 50);
      return (await c.query(`EXPLAIN ${q.text}`, q.values)).rows
        .map((r) => r['QUERY PLAN'] as string)
        .join('\n');
    };
    const cursor = encodeCursor('2026-04-01T02:00:00.000Z', 'sha256:80');
    const cases: [string, RunFilter, RegExp][] = [
      ['subject', { subject: 'T-7' }, /Index Scan using runs_by_subject/],
      ['subject, paged', { subject: 'T-7', cursor }, /Index Scan using runs_by_subject/],
      // A prefix few runs match; for a broad one the planner may rightly walk the listing index instead.
      ['subject prefix', { subjectPrefix: 'T-199' }, /runs_by_subject/],
      ['run id prefix', { runId: 'sha256:0123abcd' }, /runs_run_id_key/],
      ['whole run id', { runId: `sha256:${'a'.repeat(64)}` }, /runs_run_id_key/],
      ['jump to a date', { until: '2026-04-01T02:00:00.000Z' }, /Index Scan using runs_by_tenant/],
      ['jump, paged', { until: '2026-04-01T02:00:00.000Z', cursor }, /Index Scan using runs_by_tenant/],
    ];
    for (const [what, filter, expected] of cases) {
      const plan = await planOf(filter);
      assert.match(plan, expected, `${what}:\n${plan}`);
      assert.doesNotMatch(plan, /Seq Scan/, `${what} scans the table:\n${plan}`);
    }
    for (const filter of [{ subject: 'T-7' }, { until: '2026-04-01T02:00:00.000Z' }])
      assert.doesNotMatch(await planOf(filter), /Sort/, JSON.stringify(filter));
  });
});

test('a schema from before run subjects is migrated: each row takes its root event subject; a root that is not JSON leaves none', async () => {
  const schema = fresh('subject_v15');
  const before = MIGRATIONS.findIndex((m) => m.name.includes('event subject'));
  assert.ok(before > 0);
  const root = (subject: string, at: string) =>
    chainEntry(
      hashOf({ subject, at }),
      null,
      'run.started',
      {
        tenant: 't1',
        workflowId: 'wf',
        version: 1,
        specHash: hashOf('spec'),
        status: 'LIVE' as const,
        event: sampleEvent({ subject }),
        engine: 'keel/test',
      },
      at,
    ).stored;
  const withSubject = root('T-42', '2026-04-02T00:00:01.000Z');
  const without = root('', '2026-04-02T00:00:02.000Z');
  const broken = root('T-43', '2026-04-02T00:00:03.000Z');
  await withClient('public', async (c) => {
    await c.query(`CREATE SCHEMA "${schema}"`);
    await c.query(`SET search_path TO "${schema}"`);
    await c.query(
      'CREATE TABLE keel_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    for (const m of MIGRATIONS.slice(0, before)) {
      await c.query(m.sql);
      await c.query('INSERT INTO keel_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    for (const [r, payload] of [
      [withSubject, withSubject.payload],
      [without, without.payload],
      [broken, new TextEncoder().encode('{not json')],
    ] as const) {
      const key = await c.query(
        `INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
         VALUES ($1, 't1', 'wf', 1, $2, 'completed', 0, $3, 'evt-1', 'refund.requested', $4, $4) RETURNING run_key`,
        [r.runId, hashOf('spec'), r.hash, r.at],
      );
      await c.query(
        `INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
         VALUES ($1, 0, $2, $3, NULL, $4, $5, $6, $7)`,
        [key.rows[0].run_key, r.v, r.kind, r.payloadHash, r.hash, r.at, Buffer.from(payload)],
      );
    }
  });
  const report = await PostgresStore.migrate(url, { schema });
  assert.equal(report.from, before);
  const store = await PostgresStore.open(url, { schema, migrate: false });
  try {
    assert.equal((await store.runs.getRun('t1', withSubject.runId))?.subject, 'T-42');
    assert.equal((await store.runs.getRun('t1', without.runId))?.subject, undefined);
    assert.equal((await store.runs.getRun('t1', broken.runId))?.subject, undefined);
    const found = await store.runs.listRuns('t1', { subject: 'T-42' });
    assert.deepEqual(
      found.runs.map((r) => r.runId),
      [withSubject.runId],
    );
  } finally {
    await store.close();
  }
});
