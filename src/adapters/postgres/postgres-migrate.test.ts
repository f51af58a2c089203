import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { isKeelError } from '../../core/errors.ts';
import { PostgresStore } from './postgres-store.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
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

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const isUnavailable = (pattern: RegExp) => (e: unknown) =>
  isKeelError(e) && e.code === 'store_unavailable' && pattern.test(e.message);

test('three stores opening one empty schema at once migrate it exactly once', async () => {
  const schema = fresh('concurrent');
  const stores = await Promise.all([0, 1, 2].map(() => PostgresStore.open(url, { schema })));
  try {
    const rows = await sql<{ version: number }>(
      `SELECT version FROM "${schema}".keel_migrations ORDER BY version`,
    );
    assert.deepEqual(
      rows.map((r) => r.version),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
    // Every store works on the one schema.
    assert.deepEqual(await stores[2]!.runs.listRuns('t1'), { runs: [] });
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test('migrate reports what it applied, then that the schema is current', async () => {
  const schema = fresh('report');
  const first = await PostgresStore.migrate(url, { schema });
  assert.deepEqual(first, {
    schema,
    from: 0,
    version: SCHEMA_VERSION,
    applied: Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
  });
  const again = await Promise.all([0, 1, 2].map(() => PostgresStore.migrate(url, { schema })));
  for (const r of again) assert.deepEqual(r.applied, []);
  // The URL's ?schema= picks the schema too.
  const viaUrl = await PostgresStore.migrate(`${url}?schema=${schema}`);
  assert.equal(viaUrl.schema, schema);
  assert.equal(viaUrl.from, SCHEMA_VERSION);
});

test('a schema written by a newer Keel is refused and left alone', async () => {
  const schema = fresh('newer');
  await PostgresStore.migrate(url, { schema });
  await sql(`INSERT INTO "${schema}".keel_migrations (version, name) VALUES (99, 'from the future')`);
  await assert.rejects(
    PostgresStore.open(url, { schema }),
    isUnavailable(/version 99, newer than this Keel/),
  );
  await assert.rejects(
    PostgresStore.open(url, { schema, migrate: false }),
    isUnavailable(/version 99, newer than this Keel/),
  );
  const rows = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".keel_migrations`);
  assert.equal(rows[0]!.n, SCHEMA_VERSION + 1);
});

test('with migrate: false an unmigrated schema is refused, naming `keel migrate`', async () => {
  const schema = fresh('behind');
  await assert.rejects(
    PostgresStore.open(url, { schema, migrate: false }),
    isUnavailable(new RegExp(`version 0, this Keel needs ${SCHEMA_VERSION}: run \`keel migrate\``)),
  );
  const tables = await sql(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1`, [schema]);
  assert.equal(tables.length, 0, 'nothing was created');
  await PostgresStore.migrate(url, { schema });
  const store = await PostgresStore.open(url, { schema, migrate: false });
  await store.close();
});

test('an unreachable server is store_unavailable naming the server, never the password', async () => {
  const bad = 'postgres://keel:s3cret-pw@127.0.0.1:1/test';
  for (const attempt of [() => PostgresStore.open(bad), () => PostgresStore.migrate(bad)]) {
    await assert.rejects(attempt(), (e: unknown) => {
      assert.ok(
        isUnavailable(/cannot connect to PostgreSQL at postgres:\/\/keel:\*\*\*@127\.0\.0\.1:1\/test/)(e),
        String(e),
      );
      assert.doesNotMatch(JSON.stringify((e as { toJSON(): unknown }).toJSON()), /s3cret/);
      return true;
    });
  }
});

test('a bad schema name is a usage error naming the field', async () => {
  await assert.rejects(
    PostgresStore.open(url, { schema: 'Robert"); DROP TABLE runs; --' }),
    (e: unknown) =>
      isKeelError(e) && e.code === 'usage' && /^schema: expected a PostgreSQL schema name/.test(e.message),
  );
});

test('the scratch helper fails loudly, with what to do, when PostgreSQL is unreachable', async () => {
  await assert.rejects(
    openScratchStore('postgres://postgres@127.0.0.1:1/test', 'keel_test_unreachable'),
    /PostgreSQL is required here .*ECONNREFUSED.*KEEL_TEST_DATABASE_URL/,
  );
});

test('a v1 schema with runs is upgraded to the current version in place: its running runs become claimable', async () => {
  const schema = fresh('v1');
  await sql(`CREATE SCHEMA "${schema}"`);
  await sql(
    `SET search_path TO "${schema}";
     CREATE TABLE keel_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
     ${MIGRATIONS[0]!.sql};
     INSERT INTO keel_migrations (version, name) VALUES (1, 'v1');
     INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at)
     VALUES ('r-old', 't1', 'wf', 1, 'h', 'running', 0, 'h', 'e', 't', '2026-01-01', '2026-01-01'),
            ('r-done', 't1', 'wf', 1, 'h', 'completed', 0, 'h', 'e', 't', '2026-01-01', '2026-01-01');
     INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
     SELECT run_key, 0, 1, 'run.started', NULL, 'h', 'h', '2026-01-01', '\\x7b7d'::bytea FROM runs;`,
  );
  const report = await PostgresStore.migrate(url, { schema });
  assert.deepEqual(
    [report.from, report.applied],
    [1, Array.from({ length: SCHEMA_VERSION - 1 }, (_, i) => i + 2)],
  );
  const store = await PostgresStore.open(url, { schema, migrate: false });
  try {
    assert.equal((await store.runs.getRun('t1', 'r-old'))?.status, 'running');
    const claimed = await store.queue.claimRuns('w1', 1000, 10, Date.now());
    assert.deepEqual(
      claimed.map((r) => [r.runId, r.entries.map((e) => e.seq)]),
      [['r-old', [0]]],
    );
  } finally {
    await store.close();
  }
});

test('a v12 schema with queued shadow work is upgraded in place: the items stay, claimable, no attempt counted', async () => {
  const schema = fresh('v12');
  await sql(`CREATE SCHEMA "${schema}"`);
  await sql(
    `SET search_path TO "${schema}";
     CREATE TABLE keel_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
     ${MIGRATIONS.slice(0, 12)
       .map((m) => m.sql)
       .join(';\n')};
     INSERT INTO keel_migrations (version, name) SELECT g, 'old' FROM generate_series(1, 12) g;
     INSERT INTO shadow_queue (tenant, id, workflow_id, version, live_version, live_run_id, judged_as, event, enqueued_ms, lease_owner, lease_until)
     VALUES ('t1', 'w-1', 'wf', 2, 1, 'live-1', 'LIVE', '{}', 100, 'gone', 200);`,
  );
  const report = await PostgresStore.migrate(url, { schema });
  assert.deepEqual([report.from, report.version], [12, SCHEMA_VERSION]);
  const store = await PostgresStore.open(url, { schema, migrate: false });
  try {
    const [item] = await store.shadowQueue.claimShadowWork('me', 1_000, 5, 1_000, { tenant: 't1' });
    assert.deepEqual([item?.id, item?.liveRunId, item?.attempts], ['w-1', 'live-1', 0]);
    assert.equal((await store.shadowQueue.shadowQueueStatus(1_000, { tenant: 't1' })).failed, 0);
  } finally {
    await store.close();
  }
});
