/**
 * The real `keel` command on PostgreSQL: store selection by --store / KEEL_STORE /
 * KEEL_DATABASE_URL, `keel migrate`, the refund flow end to end, and clear exit-6 errors (no
 * stack trace, no password) when the server cannot be reached.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import {
  type CliError,
  exampleEvent,
  exampleSpec,
  failJson,
  failText,
  okJson,
  runKeel,
  Sandbox,
  SUPPORT_DESK_PACK,
} from '../../test/helpers/keel-cli.ts';
import { dropSchema, scratchSchemaName, testDatabaseUrl } from '../adapters/postgres/index.ts';
import { STORE_SCHEMA_VERSIONS } from '../app/open-store.ts';

const base = testDatabaseUrl();

async function schemaExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [name]);
    return r.rowCount === 1;
  } finally {
    await client.end();
  }
}
const schema = scratchSchemaName('keel_test_cli');
const url = `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
const sandbox = new Sandbox('postgres');
after(async () => {
  sandbox.remove();
  await dropSchema(base, schema);
});
const cwd = sandbox.dir;
/** No inherited store selection: each test says what it uses. */
const clean = { KEEL_STORE: undefined, KEEL_DATABASE_URL: undefined };

describe('keel on PostgreSQL', () => {
  test('keel migrate applies the schema once, then reports it current', () => {
    const first = okJson<{
      kind: string;
      created: boolean;
      schema: string;
      from: number;
      version: number;
      applied: number[];
    }>(runKeel(['--store', url, 'migrate', '--json'], { cwd, env: clean }));
    const pgVersion = STORE_SCHEMA_VERSIONS.postgres;
    assert.deepEqual(first, {
      kind: 'postgres',
      store: url,
      created: true,
      schema,
      from: 0,
      version: pgVersion,
      applied: Array.from({ length: pgVersion }, (_, i) => i + 1),
    });
    const again = runKeel(['migrate'], { cwd, env: { ...clean, KEEL_DATABASE_URL: url } });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`\\(schema ${schema}\\): schema version ${pgVersion}, up to date`));
  });

  test('KEEL_DATABASE_URL selects PostgreSQL: the refund flow runs, verifies, and the helpdesk is in ./.keel', () => {
    // The support desk's tools from KEEL_TOOLS; its pack keeps the helpdesk in ./.keel by default.
    const env = { ...clean, KEEL_DATABASE_URL: url, KEEL_TENANT: 'acme', KEEL_TOOLS: SUPPORT_DESK_PACK };
    okJson(runKeel(['publish', exampleSpec('refund-under-50'), '--as', 'dana', '--json'], { cwd, env }));
    // Up the lifecycle one step at a time, as the README does; the gates read PostgreSQL.
    const promote = (to: string, ...more: string[]) =>
      okJson<{
        promotion: { from: string; to: string; override?: { reason: string } };
        report: { met: boolean };
      }>(runKeel(['promote', 'refund-under-50', to, '--as', 'dana', ...more, '--json'], { cwd, env }));
    assert.equal(promote('TESTING').promotion.to, 'TESTING');
    const tested = okJson<{ passed: boolean; tests: { runId: string }[] }>(
      runKeel(['test', 'refund-under-50', '--json'], { cwd, env }),
    );
    assert.equal(tested.passed, true);
    assert.equal(promote('SHADOW').report.met, true, 'its tests passed');
    assert.equal(promote('LIVE').report.met, true, 'the first LIVE version: its tests pass again');
    const autonomous = promote('AUTONOMOUS', '--override', '--reason', 'no live record yet');
    assert.equal(autonomous.report.met, false, 'no live runs yet');
    assert.deepEqual(autonomous.promotion.override, { reason: 'no live record yet' });
    const emitted = okJson<{ runs: { runId: string; status: string }[] }>(
      runKeel(['emit', exampleEvent('refund-30'), '--json'], { cwd, env }),
    );
    assert.equal(emitted.runs[0]?.status, 'completed');
    const runId = emitted.runs[0]!.runId;
    const verified = okJson<{ ok: boolean; entries: number }>(
      runKeel(['verify', runId, '--json'], { cwd, env }),
    );
    assert.equal(verified.ok, true);
    assert.ok(existsSync(join(cwd, '.keel', 'helpdesk.db')), 'the helpdesk is in ./.keel');
    assert.equal(existsSync(join(cwd, '.keel', 'keel.db')), false, 'no SQLite store was created');
    // The same database through --store shows the run (and the test runs, the gates' evidence:
    // run again for LIVE, they are the same runs); another tenant sees nothing.
    const listed = okJson<{ runs: { runId: string }[] }>(
      runKeel(['--store', url, '--tenant', 'acme', 'runs', 'ls', '--json'], { cwd, env: clean }),
    );
    assert.deepEqual(
      listed.runs.map((r) => r.runId).sort(),
      [runId, ...tested.tests.map((t) => t.runId)].sort(),
    );
    const other = okJson<{ runs: unknown[] }>(
      runKeel(['--store', url, '--tenant', 'globex', 'runs', 'ls', '--json'], { cwd, env: clean }),
    );
    assert.deepEqual(other.runs, []);
  });

  test('--store and KEEL_STORE win over KEEL_DATABASE_URL', () => {
    const viaFlag = join(cwd, 'flag', 'keel.db');
    const viaEnv = join(cwd, 'env', 'keel.db');
    okJson(
      runKeel(['--store', viaFlag, 'publish', exampleSpec('close-resolved-ticket'), '--json'], {
        cwd,
        env: { ...clean, KEEL_DATABASE_URL: url, KEEL_TOOLS: SUPPORT_DESK_PACK },
      }),
    );
    okJson(
      runKeel(['publish', exampleSpec('close-resolved-ticket'), '--json'], {
        cwd,
        env: { KEEL_STORE: viaEnv, KEEL_DATABASE_URL: url, KEEL_TOOLS: SUPPORT_DESK_PACK },
      }),
    );
    assert.ok(existsSync(viaFlag) && existsSync(viaEnv));
    const onPostgres = okJson<unknown[]>(
      runKeel(['--store', url, 'approvals', 'ls', '--json'], { cwd, env: clean }),
    );
    assert.deepEqual(onPostgres, []);
  });

  test('a schema without Keel tables is a store that does not exist: read and write commands refuse it and create nothing', async () => {
    const missing = scratchSchemaName('keel_test_cli_missing');
    const at = `${base}${base.includes('?') ? '&' : '?'}schema=${missing}`;
    try {
      for (const args of [
        ['runs', 'ls'],
        ['emit', exampleEvent('refund-30')],
      ]) {
        const err = failJson(runKeel(['--store', at, ...args, '--json'], { cwd, env: clean }), 6);
        assert.equal(err.error, 'store_not_found', JSON.stringify(err));
        assert.match(err.message, new RegExp(`schema ${missing} has no Keel tables`));
      }
      assert.equal(await schemaExists(missing), false, 'refusing created no schema');
      // A first publish creates it, and says so.
      const created = runKeel(['--store', at, 'publish', exampleSpec('refund-under-50')], {
        cwd,
        env: { ...clean, KEEL_TOOLS: SUPPORT_DESK_PACK },
      });
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stderr, /^created store postgres:\/\//m);
      assert.equal(await schemaExists(missing), true);
    } finally {
      await dropSchema(base, missing);
    }
  });

  test('an unreachable server exits 6 with a clear message, no stack trace and no password', () => {
    const bad = 'postgres://keel:s3cret-pw@127.0.0.1:1/test';
    const text = failText(runKeel(['--store', bad, 'runs', 'ls'], { cwd, env: clean }), 6);
    assert.match(text, /cannot connect to PostgreSQL at postgres:\/\/keel:\*\*\*@127\.0\.0\.1:1\/test/);
    assert.doesNotMatch(text, /s3cret/);
    const err: CliError = failJson(
      runKeel(['migrate', '--json'], { cwd, env: { ...clean, KEEL_DATABASE_URL: bad } }),
      6,
    );
    assert.equal(err.error, 'store_unavailable');
    assert.doesNotMatch(JSON.stringify(err), /s3cret/);
  });

  test('an unsupported store URL or a non-URL KEEL_DATABASE_URL is a usage error', () => {
    assert.match(
      failText(runKeel(['--store', 'mysql://db/keel', 'runs', 'ls'], { cwd, env: clean }), 2),
      /--store: mysql:\/\/ is not a supported store/,
    );
    assert.match(
      failText(runKeel(['runs', 'ls'], { cwd, env: { ...clean, KEEL_DATABASE_URL: 'keel.db' } }), 2),
      /KEEL_DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  test('keel migrate on the default SQLite store reports its schema version', () => {
    const dir = new Sandbox('migrate-sqlite');
    try {
      const r = okJson<{ kind: string; version: number }>(
        runKeel(['migrate', '--json'], { cwd: dir.dir, env: clean }),
      );
      assert.deepEqual(r, {
        kind: 'sqlite',
        store: join('.keel', 'keel.db'),
        created: true,
        version: STORE_SCHEMA_VERSIONS.sqlite,
      });
      assert.ok(existsSync(join(dir.dir, '.keel', 'keel.db')));
    } finally {
      dir.remove();
    }
  });

  test('a version or seq past 2^31 - 1 is the same bad-input refusal on SQLite and PostgreSQL (issue 26)', () => {
    const sqlite = join(cwd, 'int-bound.db');
    const spec = exampleSpec('refund-under-50');
    const over = sandbox.write(
      'int-bound.yaml',
      readFileSync(spec, 'utf8').replace(/^version: 1$/m, 'version: 2147483648'),
    );
    const refusals = (store: string) => {
      const env = { ...clean, KEEL_TENANT: 'acme', KEEL_TOOLS: SUPPORT_DESK_PACK };
      const run = (...args: string[]) =>
        failJson(runKeel(['--store', store, ...args, '--json'], { cwd, env }), 2);
      okJson(runKeel(['--store', store, 'migrate', '--json'], { cwd, env }));
      return [
        run('publish', over, '--as', 'dana'),
        run('promote', 'refund-under-50', 'TESTING', '--version', '2147483648', '--as', 'dana'),
        run('fork', `sha256:${'a'.repeat(64)}`, '--from', '2147483648', '--mode', 'replay'),
      ].map((e) => ({ error: e.error, field: e.details?.field, message: e.message.replace(over, '<spec>') }));
    };
    const onSqlite = refusals(sqlite);
    assert.deepEqual(refusals(url), onSqlite);
    assert.deepEqual(
      onSqlite.map((r) => [r.error, r.field]),
      [
        ['spec_invalid', 'version'],
        ['usage', '--version'],
        ['usage', '--from'],
      ],
    );
    assert.match(
      onSqlite[0]!.message,
      /version: expected a positive whole number of at most 2147483647, got 2147483648/,
    );
  });
});
